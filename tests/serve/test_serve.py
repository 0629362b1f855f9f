"""`fc serve` end to end: agents written with the official SDKs run their round trip against a
trace fc run recorded from the fake provider, with no provider running, and get the bytes the
provider sent; a request that differs gets the provider's 400, naming the step, the path and
both values. The server runs in a thread of the test process (fccli/serve/launch.py).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fccli.serve.app import make_app
from fccli.serve.launch import InThread, bind
from fccli.serve.recordings import load_recordings
from tests.conftest import clean_env
from tests.support import local_http
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.inprocess import run_in_process
from tests.support.proxy_agents import Received, anthropic_agent, openai_agent
from tests.support.proxy_harness import proxy, run_tool, wire_tools

QUESTION = "杭州今天适合跑步吗？"
KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
CASES = [(p, s) for p in ("openai", "anthropic") for s in (False, True)]


def agent(
    provider: str, url: str, *, stream: bool, run_tool=run_tool, key: str = "sk-agent"
) -> tuple[Received, str]:
    """tests/support/proxy_agents.py's SDK agent of `provider`, pointed at `url` (a server's root), with
    fc run's question, tools, model and limits; what the SDK received, and the model's last words."""
    tools = wire_tools(provider)
    if provider == "openai":
        got, messages = openai_agent(url + "/v1", key, QUESTION, tools, run_tool, stream=stream)
        return got, str(messages[-1]["content"])
    got, messages = anthropic_agent(
        url, key, QUESTION, tools, run_tool, stream=stream, max_tokens=4096
    )
    return got, "".join(b.get("text", "") for b in messages[-1]["content"])


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


def recorded_answers(trace: Path, provider: str, stream: bool) -> list[bytes]:
    suffix = "sse" if stream else "json"
    return [(trace / f"{n}-response.{provider}.{suffix}").read_bytes() for n in (1, 2)]


@pytest.mark.parametrize(("provider", "stream"), CASES, ids=[case_id(*c) for c in CASES])
def test_an_sdk_agent_gets_the_recorded_bytes(traces: Path, serve, provider, stream) -> None:
    trace = traces / case_id(provider, stream)
    served = serve(trace)
    got, answer = agent(provider, served.url, stream=stream)
    assert "21" in answer  # the answer quotes the tool's result: the round trip went through
    assert got.bodies == recorded_answers(trace, provider, stream)
    how = ", streamed as recorded" if stream else ""
    path = "/v1/chat/completions" if provider == "openai" else "/v1/messages"
    assert served.lines == [f"POST {path}: step 1{how}", f"POST {path}: step 2{how}"]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_streamed_trace_answers_an_agent_that_does_not_stream(traces, serve, provider) -> None:
    trace = traces / case_id(provider, True)
    served = serve(trace)
    got, _ = agent(provider, served.url, stream=False)
    # The answer assembled from the stream, as fc wrote it beside the raw bytes.
    assert got.bodies == recorded_answers(trace, provider, False)
    assert served.lines[0].endswith("step 1 (assembled from its recorded stream)")


def hotter(name: str, arguments: dict) -> str:
    """The agent's tool now says 35 °C where the recorded run said 21."""
    return run_tool(name, arguments).replace("21", "35")


def test_a_changed_tool_result_is_the_sdks_bad_request_naming_step_path_and_values(
    traces: Path, serve
) -> None:
    import openai

    served = serve(traces / case_id("openai", False))
    with pytest.raises(openai.BadRequestError) as raised:
        agent("openai", served.url, stream=False, run_tool=hotter)
    expected = (
        "fc serve: no recorded step matches this request; step 2 came closest: "
        "messages[2].content differs: "
        """recorded '{"city": "杭州", "temp_c"…', """
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


def test_a_key_the_agent_put_in_a_message_is_masked_in_the_refusal(traces: Path, serve) -> None:
    """A miss quotes the request; the agent's own key (its auth header) never comes back in it."""
    import openai

    key = "sk-agent-secret-0123456789"
    served = serve(traces / case_id("openai", False))
    with pytest.raises(openai.BadRequestError) as raised:
        agent("openai", served.url, stream=False, key=key, run_tool=lambda name, args: key)
    message = raised.value.body["message"]  # type: ignore[index]
    assert "step 2 came closest: messages[2].content differs" in message
    assert key not in message and key not in "\n".join(served.lines)
    assert "got '***'" in message


def test_a_changed_tool_result_in_anthropics_shape(traces, serve) -> None:
    import anthropic

    served = serve(traces / case_id("anthropic", True))
    with pytest.raises(anthropic.BadRequestError) as raised:
        agent("anthropic", served.url, stream=True, run_tool=hotter)
    body = raised.value.body
    assert isinstance(body, dict) and body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    assert body["error"]["message"].startswith(
        "fc serve: no recorded step matches this request; step 2 came closest: "
        'messages[2].content[0].content differs: recorded \'{"city": "杭州", "temp_c"…\', '
    )


@pytest.mark.parametrize(("provider", "stream"), [("openai", True), ("anthropic", False)])
def test_the_same_sdk_agent_against_fc_serve_of_the_proxys_trace(
    serve, tmp_path: Path, provider: str, stream: bool
) -> None:
    """Recorded by fc proxy from the agent itself, then played back with nothing upstream:
    the agent gets the same bytes it got through the proxy."""
    with FakeProvider() as fake, proxy(tmp_path / "proxied", fake.url) as proxied:
        through, answer = agent(provider, proxied.url, stream=stream, key=DEFAULT_KEY)
        [trace] = proxied.traces()
    served = serve(trace)
    played, again = agent(provider, served.url, stream=stream)
    assert played.bodies == through.bodies and len(played.bodies) == 2
    assert again == answer


# ---------------------------------------------------------------------------------------------
# several traces, recorded errors, and what no provider would be asked


def test_several_traces_of_two_formats_answer_both_agents(traces: Path, serve) -> None:
    served = serve(traces / "openai-json", traces / "anthropic-stream")
    for provider, stream in (("openai", False), ("anthropic", True)):
        got, _ = agent(provider, served.url, stream=stream)
        trace = traces / case_id(provider, stream)
        assert got.bodies == recorded_answers(trace, provider, stream)
    assert served.lines[0] == f"POST /v1/chat/completions: step 1 of {traces / 'openai-json'}"


def post(url: str, body: bytes | str) -> httpx.Response:
    return local_http.post(url, content=body, timeout=10)


def test_requests_no_provider_would_answer_get_its_error_shape(traces: Path, serve) -> None:
    served = serve(traces / "openai-json")
    chat, messages = served.url + "/v1/chat/completions", served.url + "/v1/messages"

    answer = post(chat, b"{not json")
    assert answer.status_code == 400
    assert answer.json()["error"]["message"].startswith("fc serve: the request body is not JSON")
    assert post(chat, b"[1, 2]").json()["error"]["message"] == (
        "fc serve: the request body is not a JSON object"
    )
    models = local_http.get(served.url + "/v1/models", timeout=10)
    assert models.status_code == 404
    assert models.json()["error"]["message"] == (
        "fc serve: no GET /v1/models here: it answers POST /v1/chat/completions"
    )
    # Anthropic's path, while only chat steps are served: Anthropic's shape, and why.
    answer = post(messages, json.dumps({"model": "claude-haiku-4-5", "messages": []}))
    assert answer.status_code == 400
    assert answer.json() == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "fc serve: no step of the served traces is in the anthropic format "
            "(they hold openai steps)",
        },
    }
    # The terminal lists the differences after the first, which the client hears counted.
    other = json.loads((traces / "openai-json" / "1-request.openai.json").read_bytes())
    other.update(model="gpt-other", temperature=0)
    answer = post(chat, json.dumps(other))
    assert answer.json()["error"]["message"].endswith(
        "step 1 came closest: model differs: recorded 'gpt-4.1-mini', got 'gpt-other' "
        "(and 1 more difference)"
    )
    assert served.lines[-1] == "  also temperature was not recorded: got 0"
    # A stream the provider never sent is not made up.
    recorded = json.loads((traces / "openai-json" / "1-request.openai.json").read_bytes())
    answer = post(chat, json.dumps({**recorded, "stream": True}))
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == (
        "fc serve: step 1 matches, but it was recorded without a stream, and fc serve plays "
        "only what the provider sent: ask without `stream`, or record with streaming "
        "(fc run --stream)"
    )
    # As a provider sends them: JSON, or a stream (from the streamed trace).
    assert post(chat, json.dumps(recorded)).headers["content-type"] == "application/json"
    streamed = serve(traces / "openai-stream")
    first = (traces / "openai-stream" / "1-request.openai.json").read_bytes()
    answer = post(streamed.url + "/v1/chat/completions", first)
    assert answer.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert answer.content == (traces / "openai-stream" / "1-response.openai.sse").read_bytes()
    # Control characters in the path reach the terminal escaped.
    local_http.get(served.url + "/v1/%1b[2J", timeout=10)
    assert served.lines[-1].startswith("GET /v1/\\x1b[2J: HTTP 404")


def test_a_step_that_failed_answers_its_recorded_error_again(serve, tmp_path: Path) -> None:
    with FakeProvider() as fake:
        fake.script = [{"status": 400, "message": "scripted refusal"}]
        ran = run_in_process(
            ["run", QUESTION, "-p", "openai", "--base-url", fake.url, "-o", "failed"],
            cwd=tmp_path,
            env=clean_env(OPENAI_API_KEY=DEFAULT_KEY),
            input=None,
            terminal=False,
        )
    assert ran.returncode == 3
    trace = tmp_path / "failed"
    served = serve(trace)
    answer = post(
        served.url + "/v1/chat/completions", (trace / "1-request.openai.json").read_bytes()
    )
    assert answer.status_code == 400
    assert answer.content == (trace / "1-response.openai.json").read_bytes()
    assert served.lines == ["POST /v1/chat/completions: step 1, its recorded error (HTTP 400)"]


# ---------------------------------------------------------------------------------------------
# bad input to the command: one line, exit 2, nothing served


def test_what_is_not_a_playable_trace_is_one_line_and_exit_2(fc, tmp_path: Path) -> None:
    (tmp_path / "file.json").write_text("{}", "utf-8")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "manifest.json").write_text('{"steps": []}', "utf-8")
    internal = tmp_path / "internal"
    internal.mkdir()
    (internal / "manifest.json").write_text('{"steps": [{"step": 1}]}', "utf-8")
    (internal / "1-request.json").write_text('{"model": "m", "messages": []}', "utf-8")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text('{"wire_format": "openai", "steps": []}', "utf-8")
    (broken / "1-request.openai.json").write_text("{oops", "utf-8")
    cases = {
        "missing": "missing: no such file or directory",
        "file.json": "file.json: is not a trace directory",
        "empty": "empty has no steps: there is nothing to play back",
        "internal": "internal has no wire files: fc serve answers with the bytes the provider sent",
        "broken": "broken/1-request.openai.json",
    }
    for name, said in cases.items():
        result = fc("serve", name)
        assert result.returncode == 2, (name, result.stderr)
        assert said in result.stderr
        assert "Traceback" not in result.stderr
        assert result.stdout == ""


def test_a_port_in_use_is_one_line_and_exit_2(fc, traces: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = fc("serve", str(traces / "openai-json"), "--port", str(port))
    assert result.returncode == 2
    assert f"port {port} on 127.0.0.1 is in use" in result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------------------------------------
# the command as a process: what it says at start, Ctrl-C


PAGE_TITLE = "# Play a trace back: `fc serve`"  # docs/reference/serve.md


def page_section() -> tuple[list[list[str]], str, str]:
    """The section's bash blocks (their command lines, comments cut), the output it shows, and
    its prose on one line."""
    import re

    from tests.conftest import REPO

    text = (REPO / "docs" / "reference" / "serve.md").read_text("utf-8")
    section = text.split(PAGE_TITLE, 1)[1].split("\n## ", 1)[0]
    blocks = [b.split("```", 1)[0] for b in section.split("```bash\n")[1:]]
    commands = [[line.split("  #")[0].strip() for line in b.splitlines() if line] for b in blocks]
    shown = re.search(r"\n\n```\n(.*?)```", section, re.S)
    assert shown is not None
    return commands, shown[1], " ".join(section.split())


def test_the_page_s_commands_do_what_it_says(fc, tmp_path: Path) -> None:
    """The section run as shown (a free port for 8787): fc run, fc serve in a process (what it
    prints, what it answers), the two curls, then Ctrl-C."""
    import re
    import shlex
    import signal
    import subprocess
    import sys

    ((record, start), curls), shown, prose = page_section()
    assert fc(*shlex.split(record)[1:]).returncode == 0
    process = subprocess.Popen(
        [sys.executable, "-m", "fccli", *shlex.split(start)[1:], "--port", "0"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    try:
        assert process.stdout is not None
        opening = "".join(process.stdout.readline() for _ in range(3))
        address = opening.split(" on http://", 1)[1].split()[0]
        assert opening == shown.replace("127.0.0.1:8787", address)
        said = []
        for line in curls:
            ran = subprocess.run(
                ["bash", "-c", line.replace("127.0.0.1:8787", address)],
                cwd=tmp_path,
                capture_output=True,
                timeout=30,
            )
            said.append(ran.stdout)
            said.append(process.stdout.readline().encode())
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    finally:
        process.kill()
    answered, line_1, refused, line_2 = said
    assert answered == (tmp_path / "hangzhou" / "1-response.deepseek.json").read_bytes()
    assert line_1 == b"POST /v1/chat/completions: step 1\n"
    words = re.search(r"the terminal prints the same words: `(.*?)`", prose)
    assert words is not None
    assert json.loads(refused)["error"]["message"] == "fc serve: " + words[1]
    assert line_2.decode() == f"POST /v1/chat/completions: HTTP 400: {words[1]}\n"
    assert process.returncode == 130  # Ctrl-C stops it
    assert err.strip() == "fc: error: interrupted"
    assert "Traceback" not in out + err


def test_the_line_for_the_agent_follows_the_traces_format_and_another_host_is_warned_about(
    traces: Path,
) -> None:
    from fccli.serve.start import opening

    recordings = load_recordings([traces / "anthropic-json"])
    assert opening(recordings, [traces / "anthropic-json"], "http://127.0.0.1:9", "::1")[1] == (
        "point the agent at it: ANTHROPIC_BASE_URL=http://127.0.0.1:9"
    )
    both = [traces / "openai-json", traces / "anthropic-json"]
    assert opening(load_recordings(both), both, "http://10.0.0.2:1", "0.0.0.0") == [
        "fc serve: playing 4 step(s) of 2 trace(s) (openai, anthropic) on http://10.0.0.2:1",
        "point the agent at it: OPENAI_BASE_URL=http://10.0.0.2:1/v1",
        "point the agent at it: ANTHROPIC_BASE_URL=http://10.0.0.2:1",
        "warning: listening on 0.0.0.0, not only this machine: anyone who can reach it gets "
        "the traces' answers",
        "Ctrl-C stops",
    ]


def test_a_body_above_the_limit_is_a_413_not_read_whole(traces: Path, serve, monkeypatch) -> None:
    # hostile pass: fc serve read any body whole (a 200 MB one took 2 GB of memory)
    import fccli.serve.app

    monkeypatch.setattr(fccli.serve.app, "MAX_BODY_BYTES", 1000)
    served = serve(traces / "openai-json")
    answer = post(served.url + "/v1/chat/completions", b'{"a": "' + b"x" * 5000 + b'"}')
    assert answer.status_code == 413
    assert answer.json()["error"]["message"].startswith("fc serve: the request body is above 1,000")


def test_hostile_bodies_get_a_400_and_one_line(traces: Path, serve) -> None:
    served = serve(traces / "openai-json")
    chat = served.url + "/v1/chat/completions"
    cases = {
        b"": "the request body is empty: no JSON request",
        b"[" * 100_000: "the request body is not JSON (nested too deeply",
        b'{"n": '
        + b"9" * 5000
        + b"}": "the request body is not JSON (a number with more than 4300 digits",
        b"\xff\xfe{": "the request body is not JSON (not UTF-8 text)",
    }
    for body, said in cases.items():
        answer = post(chat, body)
        assert answer.status_code == 400, said
        assert answer.json()["error"]["message"].startswith("fc serve: " + said)
    # Arguments strings nested past what fc reads are compared as text, not parsed.
    deep = json.loads((traces / "openai-json" / "2-request.openai.json").read_bytes())
    deep["messages"][1]["tool_calls"][0]["function"]["arguments"] = "[" * 100_000
    answer = post(chat, json.dumps(deep))
    assert answer.status_code == 400
    assert "came closest: messages[1].tool_calls[0].function.arguments differs" in answer.text
    # What the terminal shows of a request's values is escaped: no sequence reaches it raw.
    recorded = json.loads((traces / "openai-json" / "1-request.openai.json").read_bytes())
    recorded["messages"][0]["content"] = "\x1b]52;c;aGk=\x07 \ud800"
    answer = post(chat, json.dumps(recorded))
    assert answer.status_code == 400
    assert "got '\\x1b]52;c;aGk=\\x07 \\ud800'" in served.lines[-1]
    assert not any(c in "".join(served.lines) for c in "\x1b\x07\ud800")


def test_a_bug_in_fc_is_one_line_and_a_500_in_the_providers_shape(traces, serve, monkeypatch):
    from fccli.serve.match import Matcher

    def broken(*args: object) -> None:
        raise KeyError("oops")

    served = serve(traces / "anthropic-json")
    monkeypatch.setattr(Matcher, "find", broken)
    answer = post(served.url + "/v1/messages", "{}")
    assert answer.status_code == 500
    assert answer.json()["error"] == {
        "type": "api_error",
        "message": "fc serve: internal error: KeyError: 'oops'",
    }
    assert served.lines == ["internal error: KeyError: 'oops' (a bug in fc)"]


def test_a_model_named_in_the_url_is_matched_too(serve) -> None:
    """Gemini names the model in the path, not the body: another model's path gets a 400 naming
    both, as a different `model` field would in the other formats."""
    example = Path(__file__).parent.parent.parent / "traces" / "examples" / "hangzhou-gemini"
    model = json.loads((example / "manifest.json").read_text("utf-8"))["model"]
    body = (example / "2-request.gemini.json").read_bytes()
    served = serve(example)
    same = post(f"{served.url}/v1beta/models/{model}:generateContent", body)
    assert same.status_code == 200, same.text
    assert same.content == (example / "2-response.gemini.json").read_bytes()
    other = post(f"{served.url}/v1beta/models/gemini-2.5-flash:generateContent", body)
    assert other.status_code == 400
    message = other.json()["error"]["message"]
    assert f"step 2 came closest: model differs: recorded '{model}', got 'gemini-2.5-flash'" in (
        message
    )


def test_a_response_file_edited_into_broken_json_is_played_as_it_is_and_said(
    traces: Path, tmp_path: Path
) -> None:
    from fccli.serve.start import opening

    edited = tmp_path / "edited"
    shutil.copytree(traces / "openai-json", edited)
    (edited / "2-response.openai.json").write_text('{"choices": [', "utf-8")
    recordings = load_recordings([edited])
    response = recordings[1].response
    assert response is not None and response.read() == b'{"choices": ['  # played as it is
    lines = opening(recordings, [edited], "http://127.0.0.1:9", "127.0.0.1")
    warned = [line for line in lines if line.startswith("warning:")]
    assert warned == [
        "warning: step 2: its response file is not valid JSON; fc serve plays it as it is"
    ]
    assert not [
        line
        for line in opening(load_recordings([traces / "openai-json"]), [edited], "u", "127.0.0.1")
        if line.startswith("warning:")
    ]


def test_a_response_file_nested_too_deep_for_python_is_said_not_a_traceback(
    traces: Path, tmp_path: Path
) -> None:
    """Hostile input is normal input: JSON nested deeper than Python's recursion limit (valid
    JSON: nothing to warn about, and no traceback)."""
    from fccli.serve.start import opening

    edited = tmp_path / "deep"
    shutil.copytree(traces / "openai-json", edited)
    (edited / "2-response.openai.json").write_bytes(b"[" * 200_000 + b"]" * 200_000)
    lines = opening(load_recordings([edited]), [edited], "http://127.0.0.1:9", "127.0.0.1")
    assert not [line for line in lines if line.startswith("warning:")]
