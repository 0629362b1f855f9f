"""`fc serve` end to end: agents written with the official SDKs run their round trip against a
trace fc run recorded from the fake provider, with no provider running, and get the bytes the
provider sent; a request that differs gets the provider's 400, naming the step, the path and
both values. The server runs in a thread of the test process (fccli/server/launch.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fccli.serve.app import make_app
from fccli.serve.recordings import load_recordings
from fccli.server.launch import InThread, bind
from tests.conftest import clean_env
from tests.fake_provider import DEFAULT_KEY, FakeProvider
from tests.inprocess import run_in_process
from tests.sdk_agents import AGENTS, QUESTION

KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
CASES = [(p, s) for p in ("openai", "anthropic") for s in (False, True)]


def case_id(provider: str, stream: bool) -> str:
    return f"{provider}-{'stream' if stream else 'json'}"


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A trace per provider and stream mode, as fc run wrote it talking to the fake provider
    (stopped before any test runs: nothing upstream answers)."""
    root = tmp_path_factory.mktemp("traces")
    with FakeProvider() as fake:
        for provider, stream in CASES:
            name = case_id(provider, stream)
            ran = run_in_process(
                ["run", QUESTION, "-p", provider, "--base-url", fake.url, "-o", name]
                + (["--stream"] if stream else []),
                cwd=root,
                env=clean_env(**{KEYS[provider]: DEFAULT_KEY}),
                input=None,
                terminal=False,
            )
            assert ran.returncode == 0, ran.stderr
    return root


class Served:
    def __init__(self, paths: list[Path]) -> None:
        self.lines: list[str] = []
        self.server = InThread(
            make_app(load_recordings(paths), self.lines.append), bind("127.0.0.1", 0)
        )
        self.url = self.server.url


@pytest.fixture
def serve() -> Iterator[object]:
    started: list[Served] = []

    def start(*paths: Path) -> Served:
        served = Served(list(paths))
        served.server.start()
        started.append(served)
        return served

    yield start
    for served in started:
        served.server.stop()


def base_url(provider: str, url: str) -> str:
    return url + "/v1" if provider == "openai" else url


def recorded_answers(trace: Path, provider: str, stream: bool) -> list[bytes]:
    suffix = "sse" if stream else "json"
    return [(trace / f"{n}-response.{provider}.{suffix}").read_bytes() for n in (1, 2)]


@pytest.mark.parametrize(("provider", "stream"), CASES, ids=[case_id(*c) for c in CASES])
def test_an_sdk_agent_gets_the_recorded_bytes(traces: Path, serve, provider, stream) -> None:
    trace = traces / case_id(provider, stream)
    served = serve(trace)
    bodies: list[bytearray] = []
    answer = AGENTS[provider](base_url(provider, served.url), stream=stream, bodies=bodies)
    assert "21" in answer  # the answer quotes the tool's result: the round trip went through
    assert [bytes(b) for b in bodies] == recorded_answers(trace, provider, stream)
    how = ", streamed as recorded" if stream else ""
    path = "/v1/chat/completions" if provider == "openai" else "/v1/messages"
    assert served.lines == [f"POST {path}: step 1{how}", f"POST {path}: step 2{how}"]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_streamed_trace_answers_an_agent_that_does_not_stream(traces, serve, provider) -> None:
    trace = traces / case_id(provider, True)
    served = serve(trace)
    bodies: list[bytearray] = []
    AGENTS[provider](base_url(provider, served.url), stream=False, bodies=bodies)
    # The answer assembled from the stream, as fc wrote it beside the raw bytes.
    assert [bytes(b) for b in bodies] == recorded_answers(trace, provider, False)
    assert served.lines[0].endswith("step 1 (assembled from its recorded stream)")


def changed_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent's tool now says 35 °C where the recorded run said 21."""
    from tests import sdk_agents

    def hotter(arguments: dict) -> str:
        return json.dumps(
            {"city": "杭州", "temp_c": 35, "condition": "多云", "aqi": 38}, ensure_ascii=False
        )

    monkeypatch.setattr(sdk_agents, "result_text", hotter)


def test_a_changed_tool_result_is_the_sdks_bad_request_naming_step_path_and_values(
    traces: Path, serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    import openai

    changed_result(monkeypatch)
    served = serve(traces / case_id("openai", False))
    with pytest.raises(openai.BadRequestError) as raised:
        AGENTS["openai"](served.url + "/v1", stream=False, bodies=[])
    expected = (
        "fc serve: no recorded step matches this request; step 2 came closest: "
        "messages[2].content differs: "
        """recorded '{"city": "杭州", "temp_c": 21, "condition": "多云", "aqi": 38}', """
        """got '{"city": "杭州", "temp_c": 35, "condition": "多云", "aqi": 38}'"""
    )
    assert raised.value.status_code == 400
    assert raised.value.body == {
        "message": expected,
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
    # The same words on the terminal.
    assert (
        served.lines[-1] == "POST /v1/chat/completions: HTTP 400: " + expected[len("fc serve: ") :]
    )


def test_a_changed_tool_result_in_anthropics_shape(traces, serve, monkeypatch) -> None:
    import anthropic

    changed_result(monkeypatch)
    served = serve(traces / case_id("anthropic", True))
    with pytest.raises(anthropic.BadRequestError) as raised:
        AGENTS["anthropic"](served.url, stream=True, bodies=[])
    body = raised.value.body
    assert isinstance(body, dict) and body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    assert body["error"]["message"].startswith(
        "fc serve: no recorded step matches this request; step 2 came closest: "
        'messages[2].content[0].content differs: recorded \'{"city": "杭州", "temp_c": 21'
    )
