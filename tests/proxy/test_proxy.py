"""`fc proxy` end to end: the official `openai` and `anthropic` SDKs as the agent, through the
proxy (uvicorn in a thread of this process) to the fake provider on 127.0.0.1.

The SDK must get the same bytes as without the proxy, and the trace must be the one `fc run`
writes for the same exchange, but for what only one of them can know (`EXPECTED_DIFFERENCES`).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from fccli.proxy.step import UNSEEN_END
from fccli.trace.writer import without_times
from tests.conftest import clean_env
from tests.support import local_http
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.proxy_agents import anthropic_agent, openai_agent
from tests.support.proxy_harness import QUESTION, load, proxy, run_tool, wire_tools

AGENTS = {"openai": (openai_agent, "/v1"), "anthropic": (anthropic_agent, "")}
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}

EXPECTED_DIFFERENCES = {
    # fc run's own settings, which a proxy cannot see: the tool set's name, its loop's limits.
    "options.tools",
    "options.max_steps",
    "options.retries",
    "options.strict",
    # The proxy says it recorded the trace; fc run made its own.
    "recorded_by",
    # fc run retries (and records each attempt); through the proxy, the agent does.
    "steps[*].attempts",
    # fc run's executor classifies its tools' failures; the agent's tools are the agent's.
    "steps[*].tool_runs[*].error_kind",
}
"""Where a proxy's manifest differs from fc run's for the same exchange (times taken out:
started_at, finished_at, duration_ms, first_byte_ms). Besides, the request files the proxy
writes are the client's bytes (compact JSON from the SDKs), fc run's its own pretty-printed
JSON: equal as JSON, not byte for byte; for Anthropic, `max_tokens` (which fc run leaves to
the format's default of 4096 in its internal request) is in the proxy's internal request and
options, since the agent sent it; and `options.api` (`fc run --api responses`) is fc run's own."""


def _differences(a: Any, b: Any, path: str = "") -> set[str]:
    """JSON paths where `a` and `b` differ, list indices as `[*]`."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: set[str] = set()
        for key in set(a) | set(b):
            where = f"{path}.{key}" if path else key
            if key not in a or key not in b:
                out.add(where)
            else:
                out |= _differences(a[key], b[key], where)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return set().union(*(_differences(x, y, f"{path}[*]") for x, y in zip(a, b, strict=True)))
    return set() if a == b else {path}


def _fc_run(fc, provider: str, server: FakeProvider, stream: bool) -> Path:
    env = clean_env(**{KEY_ENV[provider]: DEFAULT_KEY})
    args = ["run", QUESTION, "-p", provider, "--base-url", server.url, "-o", "direct"]
    made = fc(*args, *(["--stream"] if stream else []), env=env)
    assert made.returncode == 0, made.stderr
    return Path("direct")


def _agent(provider: str, url: str, **options: Any) -> Any:
    agent, suffix = AGENTS[provider]
    return agent(url + suffix, DEFAULT_KEY, QUESTION, wire_tools(provider), run_tool, **options)


def assert_same_trace(direct: Path, proxied: Path, provider: str) -> None:
    assert sorted(p.name for p in direct.iterdir()) == sorted(p.name for p in proxied.iterdir())
    for mine in sorted(direct.iterdir()):
        theirs = proxied / mine.name
        if mine.name == "manifest.json":
            manifest = without_times(load(theirs))
            # What only the proxy can know: an SDK left at the stream's last event before the
            # end of the body reached the proxy (on a busy machine, now and then).
            notes = [n for n in manifest.pop("notes", None) or [] if UNSEEN_END not in n]
            if notes:
                manifest["notes"] = notes
            found = _differences(without_times(load(mine)), manifest)
            if provider == "anthropic":
                assert manifest["options"]["max_tokens"] == 4096
                found.discard("options.max_tokens")
            if "api" in load(mine)["options"]:  # `--api responses`: fc run's own option too
                found.discard("options.api")
            assert found == EXPECTED_DIFFERENCES
        elif "-request" in mine.name:
            wanted = load(mine)
            if provider == "anthropic" and mine.name.endswith("-request.json"):
                wanted["max_tokens"] = 4096
            assert load(theirs) == wanted, mine.name
        else:  # answers: the provider's bytes, and fc's reading of them
            assert theirs.read_bytes() == mine.read_bytes(), mine.name


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_sdk_through_the_proxy_gets_the_same_bytes_and_leaves_fc_runs_trace(
    fc, tmp_path: Path, provider: str, stream: bool
) -> None:
    with FakeProvider() as server:
        direct = tmp_path / _fc_run(fc, provider, server, stream)
        server.cache.clear()  # the fake's prompt cache would count the run above
        alone, _ = _agent(provider, server.url, stream=stream)
        server.cache.clear()
        with proxy(tmp_path / "px", provider, base_url=server.url) as px:
            through, messages = _agent(provider, px.url, stream=stream)
    assert through.statuses == [200, 200]
    assert through.bodies == alone.bodies  # byte for byte, as without the proxy
    assert "北京" in json.dumps(messages[-1], ensure_ascii=False)
    (trace,) = px.traces()
    assert_same_trace(direct, trace, provider)
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "ok" and manifest["recorded_by"] == "fc proxy"
    assert [r["name"] for r in manifest["steps"][0]["tool_runs"]] == ["get_weather"] * 2
    assert "step 2" in px.printed and "2 tool result(s) handed back" in px.printed
    assert_key_nowhere(tmp_path / "px", px.printed)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_without_the_fast_extra_asyncio_and_h11_serve_the_same_bytes(
    tmp_path: Path, stream: bool
) -> None:
    """The tests install uvloop and httptools (the `fast` extra); a plain install has neither."""
    with FakeProvider() as server:
        alone, _ = _agent("openai", server.url, stream=stream)
        server.cache.clear()
        with proxy(tmp_path / "px", "openai", plain=True, base_url=server.url) as px:
            through, _ = _agent("openai", px.url, stream=stream)
    assert through.statuses == [200, 200]
    assert through.bodies == alone.bodies
    (trace,) = px.traces()
    assert load(trace / "manifest.json")["status"] == "ok"


def test_an_sdk_that_leaves_at_the_streams_last_event_goes_on_in_its_trace(
    tmp_path: Path,
) -> None:
    """The openai SDK closes its connection at `data: [DONE]`, without reading the end of the
    body; on a busy machine that end had not reached the proxy yet, and the step was recorded
    as cut: its trace closed, and the next step began a second one (seen with asyncio and h11;
    uvloop and httptools alike). Here the end never comes before the agent is done."""
    with FakeProvider() as server:
        server.end_held = threading.Event()
        try:
            with proxy(tmp_path / "px", "openai", plain=True, base_url=server.url) as px:
                through, _ = _agent("openai", px.url, stream=True)
                (trace,) = px.traces()
        finally:
            server.end_held.set()
    assert through.statuses == [200, 200]
    manifest = load(trace / "manifest.json")
    assert (manifest["status"], len(manifest["steps"])) == ("ok", 2)
    assert "北京" in manifest["final_answer"]
    # honest: the answer came whole, but the proxy did not see the upstream end it
    assert [n for n in manifest["notes"] if UNSEEN_END in n] == [
        f"step {n}: {UNSEEN_END}" for n in (1, 2)
    ]


def assert_key_nowhere(out: Path, printed: str, key: str = DEFAULT_KEY) -> None:
    assert key not in printed
    for path in out.rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path


def test_two_conversations_at_once_go_to_their_own_traces(tmp_path: Path) -> None:
    questions = ["北京、上海今天适合跑步吗？", "杭州今天适合跑步吗？", "深圳和广州呢？"]
    results: dict[str, Any] = {}

    def talk(question: str, url: str, stream: bool) -> None:
        results[question] = openai_agent(
            url + "/v1", DEFAULT_KEY, question, wire_tools("openai"), run_tool, stream=stream
        )

    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        threads = [
            threading.Thread(target=talk, args=(q, px.url, i % 2 == 1))
            for i, q in enumerate(questions)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    traces = px.traces()
    assert len(traces) == 3
    by_question = {load(t / "manifest.json")["question"]: t for t in traces}
    assert set(by_question) == set(questions)
    for question, trace in by_question.items():
        manifest = load(trace / "manifest.json")
        assert manifest["status"] == "ok", manifest
        assert len(manifest["steps"]) == 2
        received, messages = results[question]
        # each trace holds its own conversation: the final answer the agent got
        answer = json.loads(received.bodies[-1]) if not manifest["options"]["stream"] else None
        if answer is not None:
            assert manifest["final_answer"] == answer["choices"][0]["message"]["content"]
        assert load(trace / "2-request.openai.json")["messages"] == messages[:-1]


def test_parallel_requests_of_many_agents_all_recorded(tmp_path: Path) -> None:
    n = 8
    done: list[Any] = []

    def talk() -> None:
        done.append(
            openai_agent(px.url + "/v1", DEFAULT_KEY, QUESTION, wire_tools("openai"), run_tool)
        )

    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        threads = [threading.Thread(target=talk) for _ in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert len(done) == n
    traces = px.traces()
    assert len(traces) == n  # the same question eight times: eight conversations
    for trace in traces:
        manifest = load(trace / "manifest.json")
        assert manifest["status"] == "ok" and len(manifest["steps"]) == 2


def test_fc_reads_a_proxy_trace_as_one_from_fc_run(fc, tmp_path: Path) -> None:
    with FakeProvider() as server:
        with proxy(tmp_path / "px", "openai", base_url=server.url) as px:
            _agent("openai", px.url)
        (trace,) = px.traces()
        shown = fc("show", str(trace))
        assert shown.returncode == 0, shown.stderr
        assert "get_weather" in shown.stdout and "北京" in shown.stdout
        checked = fc("check", str(trace))
        assert checked.returncode == 0, checked.stdout + checked.stderr
        diffed = fc("diff", str(trace / "1-request.json"), str(trace / "1-request.openai.json"))
        assert diffed.returncode == 0, diffed.stderr
        call = next(
            b for b in load(trace / "1-response.json")["content"] if b["type"] == "tool_use"
        )
        env = clean_env(OPENAI_API_KEY=DEFAULT_KEY)
        replayed = fc(
            "replay",
            str(trace),
            "--set",
            f'{call["id"]}={{"temp_c": 39}}',
            "--base-url",
            server.url,
            env=env,
        )
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        (new,) = [p for p in (tmp_path / "px").iterdir() if ".replay" in p.name]
        assert "39" in load(new / "manifest.json")["final_answer"]


def test_a_key_the_server_echoes_is_masked_in_the_trace(tmp_path: Path) -> None:
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        server.script = [{"echo_auth": ["arguments"]}]

        body = {
            "model": "gpt-4.1-mini",
            "messages": [{"role": "user", "content": "杭州今天适合跑步吗？"}],
            "tools": wire_tools("openai"),
        }
        answer = local_http.post(
            px.url + "/v1/chat/completions",
            json=body,
            headers={"Authorization": f"Bearer {DEFAULT_KEY}"},
        )
    assert DEFAULT_KEY in answer.text  # the client gets what the server sent, unchanged
    (trace,) = px.traces()
    assert load(trace / "manifest.json")["steps"][0]["masked"]
    assert_key_nowhere(tmp_path / "px", px.printed)


def test_fc_check_reads_a_proxy_trace_from_its_wire_files(fc, tmp_path: Path) -> None:
    """In a recorded trace the wire request is the agent's and the internal one fc's reading of
    it: the agent's own spelling is no finding, an edit of the internal file is."""
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        _agent("openai", px.url)
    (trace,) = px.traces()
    wire = load(trace / "2-request.openai.json")
    wire["messages"][1]["content"] = ""  # as some agents write it; fc writes null
    (trace / "2-request.openai.json").write_text(json.dumps(wire), "utf-8")
    clean = fc("check", str(trace))
    assert clean.returncode == 0 and "FC120" not in clean.stdout, clean.stdout
    internal = load(trace / "2-request.json")
    internal["messages"][0]["content"][0]["text"] = "edited"
    (trace / "2-request.json").write_text(json.dumps(internal), "utf-8")
    edited = fc("check", str(trace))
    assert "FC120" in edited.stdout and "2-request.json" in edited.stdout
    assert "$.messages[0].content[0].text" in edited.stdout


SENT_AS_FC_RUN = {
    "gemini": (["-p", "gemini"], "gemini", "/v1beta/models/{model}:{method}", "x-goog-api-key"),
    "responses": (
        ["-p", "openai", "--api", "responses"],
        "openai",
        "/v1/responses",
        "authorization",
    ),
}


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("fmt", sorted(SENT_AS_FC_RUN))
def test_an_agent_sending_fc_runs_requests_leaves_fc_runs_trace(
    fc, tmp_path: Path, fmt: str, stream: bool
) -> None:
    """The agent here sends the very requests `fc run` sent (Gemini's model in the path, its
    key in x-goog-api-key; OpenAI's Responses API), so the two traces can be compared."""
    args, provider, path, header = SENT_AS_FC_RUN[fmt]
    key_env = {"gemini": "GEMINI_API_KEY", "openai": "OPENAI_API_KEY"}[provider]
    with FakeProvider() as server:
        run = ["run", QUESTION, *args, "--base-url", server.url, "-o", "direct"]
        made = fc(*run, *(["--stream"] if stream else []), env=clean_env(**{key_env: DEFAULT_KEY}))
        assert made.returncode == 0, made.stdout + made.stderr
        direct = tmp_path / "direct"
        model = load(direct / "manifest.json")["model"]
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        key = DEFAULT_KEY if header != "authorization" else f"Bearer {DEFAULT_KEY}"
        server.cache.clear()
        with proxy(tmp_path / "px", provider, base_url=server.url) as px:
            for n in (1, 2):
                answer = local_http.post(
                    px.url + path.format(model=model, method=method),
                    content=(direct / f"{n}-request.{fmt}.json").read_bytes(),
                    headers={header: key, "content-type": "application/json"},
                )
                assert answer.status_code == 200, answer.text
    (trace,) = px.traces()
    assert load(trace / "manifest.json")["model"] == model  # Gemini's: read from the path
    assert_same_trace(direct, trace, fmt)
    assert_key_nowhere(tmp_path / "px", px.printed)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_the_responses_api_through_the_proxy_gets_the_same_bytes(
    tmp_path: Path, stream: bool
) -> None:
    from tests.support.proxy_agents import responses_agent

    def talk(url: str) -> Any:
        return responses_agent(
            url + "/v1", DEFAULT_KEY, QUESTION, wire_tools("responses"), run_tool, stream=stream
        )

    with FakeProvider() as server:
        alone, _ = talk(server.url)
        server.cache.clear()
        with proxy(tmp_path / "px", "openai", base_url=server.url) as px:
            through, items = talk(px.url)
    assert through.statuses == [200, 200] and through.bodies == alone.bodies
    assert "北京" in json.dumps(items[-1], ensure_ascii=False)
    (trace,) = px.traces()
    manifest = load(trace / "manifest.json")
    assert (manifest["status"], manifest["wire_format"], len(manifest["steps"])) == (
        "ok",
        "responses",
        2,
    )
    assert (trace / "1-response.responses.sse").exists() == stream
    assert_key_nowhere(tmp_path / "px", px.printed)
