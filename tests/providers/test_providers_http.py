"""`fc run` against real HTTP: the test suite's fake provider on 127.0.0.1 (tests/support/fake_provider.py)
speaks the chat and Anthropic wire formats and answers bad histories with the real 400 bodies.

Each test runs the real `fc` entry point in a subprocess, as a user would, and asserts on three
things: the exit code and the words a user reads, the trace, and what the server received.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

QUESTION = "杭州今天适合跑步吗？"
TWO_CITIES = "北京和上海今天适合跑步吗？"
KEY_ENV = {
    "deepseek": "DEEPSEEK_API_KEY",
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
}


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def env_for(provider: str, key: str = DEFAULT_KEY, **extra: str) -> dict[str, str]:
    variables = {KEY_ENV[provider]: key} if provider in KEY_ENV else {}
    return clean_env(**variables, **extra)


def run_fc(fc, server: FakeProvider, provider: str, *args: str, question: str = QUESTION, env=None):
    return fc(
        "run",
        question,
        "-p",
        provider,
        "--base-url",
        server.url,
        "-o",
        "t",
        *args,
        env=env or env_for(provider),
    )


def assert_key_nowhere(result, trace: Path, key: str = DEFAULT_KEY) -> None:
    assert key not in result.stdout
    assert key not in result.stderr
    for path in trace.iterdir():
        assert key.encode() not in path.read_bytes(), path.name


def steps(trace: Path) -> list[dict[str, Any]]:
    return load(trace / "manifest.json")["steps"]


# --- the round trip, per provider ------------------------------------------------------------


def test_deepseek_round_trip_sends_exactly_the_trace_bytes(
    fc, fake_provider, tmp_path: Path
) -> None:
    result = run_fc(fc, fake_provider, "deepseek")
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    assert len(fake_provider.received) == 2
    for step, received in enumerate(fake_provider.received, start=1):
        assert received.path == "/chat/completions"
        assert (trace / f"{step}-request.deepseek.json").read_bytes() == received.body
        assert received.headers["authorization"] == f"Bearer {DEFAULT_KEY}"
    # the thinking-mode rule: the tool-calling turn goes back WITH its reasoning_content
    assistant = load(trace / "2-request.deepseek.json")["messages"][1]
    assert assistant["tool_calls"] and "reasoning_content" in assistant
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "ok"
    assert manifest["provider"] == "deepseek"
    assert manifest["base_url"] == fake_provider.url
    assert manifest["model"] == "deepseek-flash"
    assert [s["stop_reason"] for s in manifest["steps"]] == ["tool_use", "end_turn"]
    assert [a["status"] for a in manifest["steps"][0]["attempts"]] == [200]
    assert "21" in manifest["final_answer"]
    assert_key_nowhere(result, trace)


def test_the_response_file_is_the_body_exactly_as_received(
    fc, fake_provider, tmp_path: Path
) -> None:
    result = run_fc(fc, fake_provider, "deepseek")
    assert result.returncode == 0, result.stderr
    for step, answered in enumerate(fake_provider.sent, start=1):
        assert (tmp_path / f"t/{step}-response.deepseek.json").read_bytes() == answered
    assert load(tmp_path / "t/1-response.json")["stop_reason"] == "tool_use"


def test_openai_round_trip_has_no_deepseek_fields(fc, fake_provider, tmp_path: Path) -> None:
    result = run_fc(fc, fake_provider, "openai")
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    first = load(trace / "1-request.openai.json")
    assert first["model"] == "gpt-4.1-mini"
    assert "thinking" not in first
    assert "reasoning_content" not in load(trace / "2-request.openai.json")["messages"][1]
    assert fake_provider.received[1].body == (trace / "2-request.openai.json").read_bytes()
    assert_key_nowhere(result, trace)


def test_ollama_needs_no_key_and_sends_none(fc, tmp_path: Path) -> None:
    with FakeProvider(key=None) as server:
        result = run_fc(fc, server, "ollama", env=clean_env())
        assert result.returncode == 0, result.stderr
        assert all("authorization" not in r.headers for r in server.received)
    assert (tmp_path / "t/2-request.openai.json").exists()


def test_anthropic_round_trip_writes_anthropic_files(fc, fake_provider, tmp_path: Path) -> None:
    result = run_fc(fc, fake_provider, "anthropic")
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    names = sorted(p.name for p in trace.iterdir())
    assert "1-request.anthropic.json" in names and "2-response.anthropic.json" in names
    for received in fake_provider.received:
        assert received.path == "/v1/messages"
        assert received.headers["x-api-key"] == DEFAULT_KEY
        assert received.headers["anthropic-version"] == "2023-06-01"
        assert "authorization" not in received.headers
    second = load(trace / "2-request.anthropic.json")
    assert fake_provider.received[1].body == (trace / "2-request.anthropic.json").read_bytes()
    assert_anthropic_request_shape(second)
    # the results of a turn: blocks in ONE user message, right after the assistant turn
    assistant, results = second["messages"][1], second["messages"][2]
    call_ids = [b["id"] for b in assistant["content"] if b["type"] == "tool_use"]
    assert [b["tool_use_id"] for b in results["content"]] == call_ids
    response = load(trace / "1-response.anthropic.json")
    assert response["type"] == "message" and response["stop_reason"] == "tool_use"
    assert_key_nowhere(result, trace)


def assert_anthropic_request_shape(body: dict[str, Any]) -> None:
    """The Messages API's request shape (anthropic-sdk-python message_create_params.py)."""
    assert isinstance(body["model"], str) and isinstance(body["max_tokens"], int)
    allowed = {
        "text": {"text"},
        "tool_use": {"id", "name", "input"},
        "tool_result": {"tool_use_id", "content", "is_error"},
        "thinking": {"thinking", "signature"},
    }
    for message in body["messages"]:
        assert message["role"] in ("user", "assistant")
        for block in message["content"]:
            assert set(block) - {"type"} <= allowed[block["type"]], block
    for tool in body["tools"]:
        assert set(tool) <= {"name", "description", "input_schema", "strict"}
        assert tool["input_schema"]["type"] == "object"


def test_anthropic_thinking_blocks_go_back_with_their_signature(
    fc, fake_provider, tmp_path: Path
) -> None:
    result = run_fc(fc, fake_provider, "anthropic", "--thinking")
    assert result.returncode == 0, result.stderr
    first = load(tmp_path / "t/1-request.anthropic.json")
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    answered = load(tmp_path / "t/1-response.anthropic.json")["content"][0]
    sent_back = load(tmp_path / "t/2-request.anthropic.json")["messages"][1]["content"][0]
    assert answered["type"] == "thinking"
    assert sent_back == answered


def test_deepseek_is_the_default_when_its_key_is_set(fc, fake_provider, tmp_path: Path) -> None:
    env = env_for("deepseek", FC_BASE_URL=fake_provider.url)
    result = fc("run", QUESTION, "-o", "t", env=env)
    assert result.returncode == 0, result.stderr
    assert load(tmp_path / "t/manifest.json")["provider"] == "deepseek"
    assert len(fake_provider.received) == 2


# --- options on the wire ------------------------------------------------------------------------


def test_no_parallel_asks_for_one_call_at_a_time(fc, fake_provider, tmp_path: Path) -> None:
    result = run_fc(fc, fake_provider, "deepseek", "--no-parallel", question=TWO_CITIES)
    assert result.returncode == 0, result.stderr
    first = load(tmp_path / "t/1-request.deepseek.json")
    assert first["parallel_tool_calls"] is False
    assert [len(s["tool_runs"]) for s in steps(tmp_path / "t")] == [1, 1, 0]


def test_no_parallel_on_anthropic_is_disable_parallel_tool_use(
    fc, fake_provider, tmp_path: Path
) -> None:
    result = run_fc(fc, fake_provider, "anthropic", "--no-parallel", question=TWO_CITIES)
    assert result.returncode == 0, result.stderr
    first = load(tmp_path / "t/1-request.anthropic.json")
    assert first["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    assert "parallel_tool_calls" not in first


def test_two_cities_in_parallel_are_two_tool_messages(fc, fake_provider, tmp_path: Path) -> None:
    result = run_fc(fc, fake_provider, "deepseek", question=TWO_CITIES)
    assert result.returncode == 0, result.stderr
    roles = [m["role"] for m in load(tmp_path / "t/2-request.deepseek.json")["messages"]]
    assert roles == ["user", "assistant", "tool", "tool"]


def test_no_thinking_sends_disabled(fc, fake_provider, tmp_path: Path) -> None:
    result = run_fc(fc, fake_provider, "deepseek", "--no-thinking")
    assert result.returncode == 0, result.stderr
    assert load(tmp_path / "t/1-request.deepseek.json")["thinking"] == {"type": "disabled"}
    assert (
        "reasoning_content"
        not in load(tmp_path / "t/1-response.deepseek.json")["choices"][0]["message"]
    )


@pytest.mark.parametrize(
    ("provider", "choice", "wire"),
    [
        ("openai", "required", "required"),
        ("openai", "get_weather", {"type": "function", "function": {"name": "get_weather"}}),
        ("anthropic", "required", {"type": "any"}),
        ("anthropic", "get_weather", {"type": "tool", "name": "get_weather"}),
        ("deepseek", "auto", "auto"),
    ],
)
def test_tool_choice_in_each_formats_shape(
    fc, fake_provider, tmp_path: Path, provider, choice, wire
) -> None:
    result = run_fc(fc, fake_provider, provider, "--tool-choice", choice, "--max-steps", "1")
    assert result.returncode == 0, result.stderr
    suffix = "anthropic" if provider == "anthropic" else provider
    assert load(tmp_path / f"t/1-request.{suffix}.json")["tool_choice"] == wire


@pytest.mark.parametrize(
    ("provider", "args"),
    [
        ("deepseek", ["--tool-choice", "required"]),
        ("anthropic", ["--thinking", "--tool-choice", "get_weather"]),
    ],
)
def test_a_tool_choice_thinking_mode_refuses_is_never_sent(
    fc, fake_provider, tmp_path: Path, provider, args
) -> None:
    result = run_fc(fc, fake_provider, provider, *args)
    assert result.returncode == 2
    assert "thinking" in result.stderr and "Traceback" not in result.stderr
    assert fake_provider.received == []
    assert not (tmp_path / "t").exists()


def test_strict_rewrites_the_schemas_on_the_wire(fc, fake_provider, tmp_path: Path) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(
        "def forecast(city: str, days: int = 1) -> str:\n"
        '    """Weather forecast for a city."""\n'
        "    return f'{city}: sunny for {days} day(s)'\n",
        encoding="utf-8",
    )
    result = run_fc(fc, fake_provider, "openai", "--strict", "--tools", str(tools))
    assert result.returncode == 0, result.stderr
    function = load(tmp_path / "t/1-request.openai.json")["tools"][0]["function"]
    assert function["strict"] is True
    schema = function["parameters"]
    assert schema["required"] == ["city", "days"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["days"]["type"] == ["integer", "null"]


def test_strict_refuses_keywords_strict_mode_rejects_by_name(
    fc, fake_provider, tmp_path: Path
) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(
        "from typing import Annotated\nfrom pydantic import Field\n"
        "def forecast(city: Annotated[str, Field(max_length=30)]) -> str:\n"
        '    """Weather forecast."""\n'
        "    return city\n",
        encoding="utf-8",
    )
    result = run_fc(fc, fake_provider, "deepseek", "--strict", "--tools", str(tools))
    assert result.returncode == 2
    assert "maxLength" in result.stderr and "forecast" in result.stderr
    assert fake_provider.received == []


def test_system_prompt_reaches_both_formats(fc, fake_provider, tmp_path: Path) -> None:
    result = run_fc(
        fc, fake_provider, "anthropic", "--system", "Answer briefly.", "--max-steps", "1"
    )
    assert result.returncode == 0, result.stderr
    assert load(tmp_path / "t/1-request.anthropic.json")["system"] == "Answer briefly."


# --- failures -----------------------------------------------------------------------------------


def test_429_and_500_are_retried_and_the_run_completes(fc, fake_provider, tmp_path: Path) -> None:
    fake_provider.script = [{"status": 429, "retry_after": "0"}, {"status": 500}]
    result = run_fc(fc, fake_provider, "deepseek")
    assert result.returncode == 0, result.stderr
    attempts = steps(tmp_path / "t")[0]["attempts"]
    assert [a["status"] for a in attempts] == [429, 500, 200]
    assert attempts[0]["retry_after"] == "0"
    assert len(fake_provider.received) == 4


def test_a_dropped_connection_is_retried(fc, fake_provider, tmp_path: Path) -> None:
    fake_provider.script = ["close"]
    result = run_fc(fc, fake_provider, "deepseek")
    assert result.returncode == 0, result.stderr
    attempts = steps(tmp_path / "t")[0]["attempts"]
    assert "error" in attempts[0] and attempts[1]["status"] == 200


def test_retries_run_out_exit_3_and_the_trace_says_so(fc, fake_provider, tmp_path: Path) -> None:
    fake_provider.script = [{"status": 503}] * 2
    result = run_fc(fc, fake_provider, "deepseek", "--retries", "1")
    assert result.returncode == 3
    assert "HTTP 503" in result.stderr and "after 2 attempts" in result.stderr
    assert "Traceback" not in result.stderr
    manifest = load(tmp_path / "t/manifest.json")
    assert manifest["status"] == "error"
    assert manifest["error"]["http_status"] == 503
    assert [a["status"] for a in manifest["error"]["attempts"]] == [503, 503]
    assert (tmp_path / "t/1-request.deepseek.json").exists()


def test_401_exits_3_naming_the_key_variable_and_never_the_key(
    fc, fake_provider, tmp_path: Path
) -> None:
    fake_provider.echo_key_in_401 = True
    wrong = "sk-wrong-but-secret-4242"
    result = run_fc(fc, fake_provider, "deepseek", env=env_for("deepseek", key=wrong))
    assert result.returncode == 3
    lines = result.stderr.strip().splitlines()
    assert len(lines) <= 3
    assert "HTTP 401" in lines[0]
    assert "$DEEPSEEK_API_KEY" in result.stderr
    assert_key_nowhere(result, tmp_path / "t", key=wrong)
    # the provider's answer is kept (masked), as the trace keeps what it had
    assert "***" in (tmp_path / "t/1-response.deepseek.json").read_text(encoding="utf-8")


def test_401_from_anthropic_names_its_variable(fc, fake_provider, tmp_path: Path) -> None:
    result = run_fc(fc, fake_provider, "anthropic", env=env_for("anthropic", key="sk-ant-wrong"))
    assert result.returncode == 3
    assert "invalid x-api-key" in result.stderr
    assert "$ANTHROPIC_API_KEY" in result.stderr


@pytest.mark.parametrize("provider", ["deepseek", "openai", "anthropic"])
def test_no_key_is_exit_2_naming_the_variable_and_nothing_is_sent(
    fc, fake_provider, tmp_path: Path, provider
) -> None:
    result = run_fc(fc, fake_provider, provider, env=clean_env())
    assert result.returncode == 2
    assert f"${KEY_ENV[provider]}" in result.stderr
    assert "Traceback" not in result.stderr
    assert fake_provider.received == []
    assert not (tmp_path / "t").exists()


def test_a_400_shows_the_providers_own_sentence(fc, fake_provider, tmp_path: Path) -> None:
    sentence = "The `reasoning_content` in the thinking mode must be passed back to the API."
    fake_provider.script = [{"status": 400, "message": sentence}]
    result = run_fc(fc, fake_provider, "deepseek")
    assert result.returncode == 3
    assert sentence in result.stderr
    assert len(fake_provider.received) == 1  # a 400 is not retried
    body = load(tmp_path / "t/1-response.deepseek.json")
    assert body["error"]["message"] == sentence


def test_a_server_that_is_not_there_is_exit_3(fc, tmp_path: Path) -> None:
    server = FakeProvider().start()
    url = server.url
    server.stop()
    env = env_for("deepseek")
    result = fc(
        "run", QUESTION, "-p", "deepseek", "--base-url", url, "--retries", "0", "-o", "t", env=env
    )
    assert result.returncode == 3
    assert "cannot reach" in result.stderr and "Traceback" not in result.stderr
    assert load(tmp_path / "t/manifest.json")["status"] == "error"


def test_a_bad_base_url_is_exit_2(fc, tmp_path: Path) -> None:
    result = fc(
        "run", QUESTION, "-p", "deepseek", "--base-url", "127.0.0.1:9", env=env_for("deepseek")
    )
    assert result.returncode == 2
    assert "http://" in result.stderr


def test_thinking_on_a_provider_without_a_switch_is_refused(fc, fake_provider) -> None:
    result = run_fc(fc, fake_provider, "openai", "--thinking")
    assert result.returncode == 2
    assert "no thinking switch" in result.stderr


# --- the model's mistakes come back to it as error results ---------------------------------------


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        ("bad_json_args", "invalid_json"),
        ("unknown_tool", "unknown_tool"),
        ("wrong_type", "invalid_arguments"),
    ],
)
def test_a_faulty_call_becomes_an_error_result_and_the_run_recovers(
    fc, fake_provider, tmp_path: Path, fault: str, kind: str
) -> None:
    fake_provider.script = [fault]
    result = run_fc(fc, fake_provider, "deepseek")
    assert result.returncode == 0, result.stderr
    # said as it happened: the refused call never ran, the next one did
    refused, ran = re.findall(r"the model only asked(.*):\n", result.stdout)
    assert (refused, ran) == (
        # a tool not offered has no schema to validate against
        ", for a tool not offered; fc has nothing to validate against and executed nothing"
        if kind == "unknown_tool"
        else "; fc validated the arguments and executed nothing",
        "; fc validated the arguments and executed",
    )
    trace = tmp_path / "t"
    record = steps(trace)
    assert record[0]["tool_runs"][0]["error_kind"] == kind
    assert record[1]["tool_runs"][0]["is_error"] is False
    assert record[-1]["stop_reason"] == "end_turn"
    # the error result went back to the model, marked, in the tool message of its call
    tool_message = load(trace / "2-request.deepseek.json")["messages"][2]
    assert tool_message["content"].startswith("[tool error] ")


def test_an_anthropic_error_result_carries_is_error(fc, fake_provider, tmp_path: Path) -> None:
    fake_provider.script = ["unknown_tool"]
    result = run_fc(fc, fake_provider, "anthropic")
    assert result.returncode == 0, result.stderr
    block = load(tmp_path / "t/2-request.anthropic.json")["messages"][2]["content"][0]
    assert block["is_error"] is True


def interrupt_run(server: FakeProvider, cwd: Path, *args: str, settle: float = 0.0, ready=None):
    """Start `fc run QUESTION -p deepseek ARGS` against the fake, press Ctrl-C once the server
    has the request (or `ready()` is true) and `settle` seconds more; return (exit code, stderr)."""
    import signal
    import subprocess
    import sys
    import time

    command = [sys.executable, "-m", "fccli", "run", QUESTION, "-p", "deepseek"]
    proc = subprocess.Popen(
        [*command, "--base-url", server.url, "-o", "t", *args],
        cwd=cwd,
        env=env_for("deepseek"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    while not (ready() if ready else server.received) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(settle)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=15)
    return proc.returncode, stderr


def test_ctrl_c_while_waiting_for_the_provider_exits_130(fake_provider, tmp_path: Path) -> None:
    fake_provider.script = [{"delay": 30}]
    returncode, stderr = interrupt_run(fake_provider, tmp_path)
    assert returncode == 130, stderr
    assert "Traceback" not in stderr
    manifest = load(tmp_path / "t/manifest.json")
    assert manifest["status"] == "interrupted"
    assert manifest["error"]["message"] == "interrupted at step 1 while waiting for the model"
    assert (tmp_path / "t/1-request.deepseek.json").exists()


def test_anthropic_thinking_with_too_few_max_tokens_is_never_sent(fc, fake_provider) -> None:
    result = run_fc(fc, fake_provider, "anthropic", "--thinking", "--max-tokens", "500")
    assert result.returncode == 2
    assert "max_tokens" in result.stderr and "--max-tokens" in result.stderr
    assert fake_provider.received == []


def test_a_password_in_the_base_url_is_masked_and_never_replaces_the_key(
    fc, fake_provider, tmp_path: Path
) -> None:
    secret = "sk-in-the-url-777"
    url = fake_provider.url.replace("http://", f"http://user:{secret}@")
    keyed = fc(
        "run", QUESTION, "-p", "deepseek", "--base-url", url, "-o", "k", env=env_for("deepseek")
    )
    assert keyed.returncode == 2
    assert "$DEEPSEEK_API_KEY" in keyed.stderr and secret not in keyed.stderr
    with FakeProvider(key=None) as server:
        url = server.url.replace("http://", f"http://user:{secret}@")
        result = fc("run", QUESTION, "-p", "ollama", "--base-url", url, "-o", "t", env=clean_env())
    assert result.returncode == 0, result.stderr
    assert load(tmp_path / "t/manifest.json")["base_url"].startswith("http://user:***@127.0.0.1:")
    assert_key_nowhere(result, tmp_path / "t", key=secret)


def test_a_short_placeholder_key_is_never_masked_inside_the_models_words(
    fc, tmp_path: Path
) -> None:
    # A local server's key "city" must not turn the model's {"city": ...} into {"***": ...}.
    with FakeProvider(key="city") as server:
        result = run_fc(fc, server, "openai", env=env_for("openai", key="city"))
    assert result.returncode == 0, result.stderr
    assert steps(tmp_path / "t")[0]["tool_runs"][0]["arguments"] == {"city": "杭州"}


@pytest.mark.parametrize(
    "key", ["sk-abc\ndef-secretpart", "“sk-quoted-zzzz”"], ids=["newline", "curly"]
)
def test_a_key_a_header_cannot_carry_is_exit_2_without_its_value(
    fc, fake_provider, key: str
) -> None:
    key = key.replace("\\n", "\n")
    result = run_fc(fc, fake_provider, "deepseek", env=env_for("deepseek", key=key))
    assert result.returncode == 2
    assert "$DEEPSEEK_API_KEY" in result.stderr
    assert "secretpart" not in result.stderr and "zzzz" not in result.stderr
    assert fake_provider.received == []


def test_an_empty_base_url_is_refused(fc) -> None:
    result = fc("run", QUESTION, "-p", "deepseek", "--base-url", "", env=env_for("deepseek"))
    assert result.returncode == 2
    assert "--base-url is empty" in result.stderr


def test_a_key_sent_where_fc_base_url_points_is_said(fc, fake_provider, tmp_path: Path) -> None:
    env = env_for("deepseek", FC_BASE_URL=fake_provider.url)
    result = fc("run", QUESTION, "-p", "deepseek", "-o", "t", env=env)
    assert result.returncode == 0, result.stderr
    said = f"$DEEPSEEK_API_KEY goes to {fake_provider.url}, taken from $FC_BASE_URL"
    assert said in result.stdout
    assert said in load(tmp_path / "t/manifest.json")["notes"]
    explicit = run_fc(fc, fake_provider, "deepseek", "-o", "t2")
    assert "taken from $FC_BASE_URL" not in explicit.stdout
