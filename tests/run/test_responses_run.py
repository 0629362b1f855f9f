"""`fc run -p openai --api responses` end to end, over real HTTP to the fake provider
(tests/support/fake_responses.py), which answers 400 with OpenAI's own sentences when the history
breaks the API's rules, so a run that completes proves the history went back right: the
reasoning items with their encrypted content, before the calls they led to, and one
function_call_output per call."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

QUESTION = "北京、上海今天适合跑步吗？"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def run(fc, server: FakeProvider, *args: str, out: str = "t", model: str | None = None):
    extra = ["-m", model] if model else []
    return fc(
        "run", QUESTION, "-p", "openai", "--api", "responses", "--base-url", server.url,
        "-o", out, *extra, *args, env=clean_env(OPENAI_API_KEY=DEFAULT_KEY),
    )  # fmt: skip


@pytest.mark.parametrize("stream", [False, True])
def test_parallel_calls_with_reasoning_carried_back(
    fc, fake_provider: FakeProvider, tmp_path: Path, stream: bool
) -> None:
    result = run(fc, fake_provider, *(["--stream"] if stream else []))
    assert result.returncode == 0, result.stderr
    assert fake_provider.errors == []
    trace = tmp_path / "t"
    assert [r.path for r in fake_provider.received] == ["/responses", "/responses"]
    first = load(trace / "1-request.responses.json")
    assert first["store"] is False and first["include"] == ["reasoning.encrypted_content"]
    answer = load(trace / "1-response.responses.json")
    kinds = [item["type"] for item in answer["output"]]
    assert kinds == ["reasoning", "function_call", "function_call"]  # parallel calls
    second = load(trace / "2-request.responses.json")
    # The reasoning item goes back exactly as received (the .done copy when streamed: its .added
    # copy was cut short), the calls with their fc_ ids (their output-only `status` left out),
    # then one output per call, paired by call_id.
    assert second["input"][1] == answer["output"][0]
    calls = [{k: v for k, v in c.items() if k != "status"} for c in answer["output"][1:]]
    assert second["input"][2:4] == calls
    outputs = second["input"][4:]
    assert [o["call_id"] for o in outputs] == [c["call_id"] for c in answer["output"][1:]]
    assert "北京" in outputs[0]["output"] and "上海" in outputs[1]["output"]
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "ok" and manifest["wire_format"] == "responses"
    usage = manifest["steps"][1]["usage"]
    assert usage["reasoning_tokens"] > 0 and usage["cache_read_tokens"] > 0
    if stream:
        assert (trace / "1-response.responses.sse").read_bytes().startswith(b"event: ")
    check = fc("check", "t")
    assert check.returncode == 0, check.stdout


def test_a_model_that_does_not_reason_is_not_asked_for_encrypted_content(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    result = run(fc, fake_provider, model="gpt-4.1-mini")
    assert result.returncode == 0, result.stderr
    assert "include" not in load(tmp_path / "t" / "1-request.responses.json")
    assert [i["type"] for i in load(tmp_path / "t" / "1-response.responses.json")["output"]] == [
        "function_call",
        "function_call",
    ]


def test_no_parallel_asks_for_one_call_at_a_time(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    result = run(fc, fake_provider, "--no-parallel")
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    assert load(trace / "1-request.responses.json")["parallel_tool_calls"] is False
    assert len(load(trace / "manifest.json")["steps"]) == 3  # one city per step, then the answer


@pytest.mark.parametrize("quirk", ["cut", "cut_clean"])
def test_a_stream_cut_mid_arguments_exits_3_with_nothing_executed(
    fc, fake_provider: FakeProvider, tmp_path: Path, quirk: str
) -> None:
    fake_provider.stream_quirks = {quirk}
    result = run(fc, fake_provider, "--stream")
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr
    assert re.search(r"call \S+ \(get_weather\) has incomplete arguments: '", result.stderr)
    assert "nothing in it was executed" in result.stderr
    trace = tmp_path / "t"
    assert (trace / "1-response.responses.sse").read_bytes()
    assert load(trace / "manifest.json")["steps"][0]["tool_runs"] == []
    assert len(fake_provider.received) == 1


def test_an_error_event_is_reported_in_openai_s_words(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.stream_quirks = {"error_event"}
    result = run(fc, fake_provider, "--stream")
    assert result.returncode == 3, result.stderr
    assert "server_error: An error occurred while processing your request." in result.stderr


def test_the_fake_refuses_a_call_sent_back_without_its_reasoning(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    assert run(fc, fake_provider).returncode == 0
    body = load(tmp_path / "t" / "2-request.responses.json")
    body["input"] = [i for i in body["input"] if i.get("type") != "reasoning"]
    (tmp_path / "bad.json").write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    # fc check says it before sending, in the words the API answers with
    check = fc("check", "bad.json")
    assert check.returncode == 1
    assert "FC123" in check.stdout
    sent = fc(
        "send", "bad.json", env=clean_env(OPENAI_API_KEY=DEFAULT_KEY, FC_BASE_URL=fake_provider.url)
    )
    assert sent.returncode == 3
    assert re.search(
        r"Item 'fc_\w+' of type 'function_call' was provided without its required 'reasoning' "
        r"item: 'rs_\w+'\.",
        sent.stderr,
    )


@pytest.mark.parametrize(
    ("drop", "rule", "sentence"),
    [
        ("function_call_output", "FC101", "No tool output found for function call call_"),
        ("function_call", "FC102", "No tool call found for function call output with call_id"),
        (
            "function_call",
            "FC124",
            "of type 'reasoning' was provided without its required following item",
        ),
    ],
)
def test_check_catches_what_the_api_refuses(
    fc, fake_provider: FakeProvider, tmp_path: Path, drop: str, rule: str, sentence: str
) -> None:
    assert run(fc, fake_provider).returncode == 0
    body = load(tmp_path / "t" / "2-request.responses.json")
    first = next(k for k, i in enumerate(body["input"]) if i.get("type") == drop)
    kept = [i for i in body["input"] if i.get("type") != drop] if drop == "function_call" else None
    body["input"] = kept if kept is not None else body["input"][:first] + body["input"][first + 1 :]
    (tmp_path / "bad.json").write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    check = fc("check", "bad.json")
    assert check.returncode == 1 and rule in check.stdout and sentence in check.stdout
    sent = fc(
        "send", "bad.json", env=clean_env(OPENAI_API_KEY=DEFAULT_KEY, FC_BASE_URL=fake_provider.url)
    )
    assert sent.returncode == 3


def test_replay_show_diff_and_curl_read_the_trace(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    assert run(fc, fake_provider, "--stream").returncode == 0
    show = fc("show", "t", "--step", "1")
    assert show.returncode == 0 and "responses reasoning" in show.stdout
    diff = fc("diff", "t/2-request.json", "t/2-request.responses.json")
    assert diff.returncode == 0
    assert "`tool_use_id` → `call_id`" in diff.stdout and "`item_id` → `id`" in diff.stdout
    curl = fc("curl", "t/2-request.responses.json")
    assert curl.returncode == 0 and "https://api.openai.com/v1/responses" in curl.stdout
    replay = fc(
        "replay", "t", "--step", "2", "-o", "r",
        env=clean_env(OPENAI_API_KEY=DEFAULT_KEY, FC_BASE_URL=fake_provider.url),
    )  # fmt: skip
    assert replay.returncode == 0, replay.stderr
    assert "the same answer, word for word" in replay.stdout


def test_providers_lists_the_responses_api(fc) -> None:
    result = fc("providers", "--json")
    assert result.returncode == 0
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert "responses (https://api.openai.com/v1, model gpt-5-mini)" in rows["openai"]["apis"]


PAGE_TITLE = "# One round trip in four formats"  # docs/reference/formats.md


def test_the_formats_page_commands_show_what_they_say(fc) -> None:
    from tests.conftest import REPO

    text = (REPO / "docs" / "reference" / "formats.md").read_text("utf-8")
    section = text.split(PAGE_TITLE, 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.strip()]
    said = {
        "fc show": ["provider block: responses reasoning", "kept as sent"],
        "fc diff": ["`tool_use_id` → `call_id`", "`item_id` → `id`"],
        "fc convert": ["reasoning block dropped", "item_id"],
        "fc check": ["no problems found"],
    }
    assert sorted(" ".join(line.split()[:2]) for line in lines) == sorted(said)
    for line in lines:
        command = line.split("#", 1)[0].split()
        result = fc(*command[1:], cwd=REPO)
        assert result.returncode == 0, (line, result.stderr)
        for words in said[" ".join(command[:2])]:
            assert words in result.stdout + result.stderr, (line, words)


def test_the_drop_reasoning_harness_bug_meets_openai_s_400_and_fc_check_names_it(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    result = run(fc, fake_provider, "--harness-bug", "drop-reasoning")
    assert result.returncode == 3
    assert "without its required 'reasoning' item" in result.stderr
    assert not any(
        i.get("type") == "reasoning" for i in load(tmp_path / "t/2-request.responses.json")["input"]
    )
    check = fc("check", "t")
    assert check.returncode == 1 and "FC123" in check.stdout


def test_the_providers_page_lines_for_responses_do_what_their_comments_say(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    # fc run "杭州？" -p openai --api responses    # ... files are N-request.responses.json
    env = clean_env(OPENAI_API_KEY=DEFAULT_KEY, FC_BASE_URL=fake_provider.url)
    result = fc("run", "杭州？", "-p", "openai", "--api", "responses", "-o", "t", env=env)
    assert result.returncode == 0, result.stderr
    assert [r.path for r in fake_provider.received] == ["/responses", "/responses"]
    assert (tmp_path / "t" / "2-request.responses.json").is_file()
    # fc tools -f responses    # ... flat {"type": "function", "name", ...}
    tools = fc("tools", "-f", "responses")
    assert tools.returncode == 0
    (tool,) = json.loads(tools.stdout)
    assert list(tool)[:2] == ["type", "name"] and "function" not in tool


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("drop_encrypted", "Items are not persisted when `store` is set to false."),
        ("tamper", "could not be verified"),
    ],
)
def test_the_fake_holds_the_reasoning_item_to_what_it_gave(
    fc, fake_provider: FakeProvider, tmp_path: Path, change: str, said: str
) -> None:
    assert run(fc, fake_provider).returncode == 0
    body = load(tmp_path / "t" / "2-request.responses.json")
    reasoning = next(i for i in body["input"] if i.get("type") == "reasoning")
    if change == "drop_encrypted":
        del reasoning["encrypted_content"]
    else:
        reasoning["encrypted_content"] = reasoning["encrypted_content"][:-4] + "AAAA"
    (tmp_path / "bad.json").write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    env = clean_env(OPENAI_API_KEY=DEFAULT_KEY, FC_BASE_URL=fake_provider.url)
    sent = fc("send", "bad.json", env=env)
    assert sent.returncode == 3 and said in sent.stderr
