"""`fc run --demo-fault KIND`: the demo model makes a classic mistake on purpose, and the trace shows
the mistake and how fc's harness handled it (an error result the model reads, the model right in
the next step); for no-call, `fc check` on the trace raises the warning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.core.errors import UsageError
from fccli.providers.demo.model import DemoProvider
from tests.conftest import REPO

QUESTION = "杭州今天适合跑步吗？"


def load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def first_call(trace: Path) -> dict[str, Any]:
    return load(trace / "1-response.deepseek.json")["choices"][0]["message"]["tool_calls"][0]


def run_fault(fc, tmp_path: Path, kind: str, question: str = QUESTION, *extra: str) -> Path:
    result = fc("run", question, "--demo-fault", kind, "-o", "t", *extra)
    assert result.returncode == 0, result.stderr
    return tmp_path / "t"


@pytest.mark.parametrize(
    ("kind", "error_kind", "mistake"),
    [
        ("bad-json", "invalid_json", lambda call: call["function"]["arguments"] == '{"city":"杭'),
        ("missing-arg", "invalid_arguments", lambda call: call["function"]["arguments"] == "{}"),
        (
            "wrong-type",
            "invalid_arguments",
            lambda call: call["function"]["arguments"] == '{"city":["杭州"]}',
        ),
        (
            "unknown-tool",
            "unknown_tool",
            lambda call: call["function"]["name"] == "get_current_weather",
        ),
    ],
)
def test_the_mistake_is_answered_with_an_error_and_the_model_corrects_itself(
    fc, tmp_path: Path, kind: str, error_kind: str, mistake: Any
) -> None:
    trace = run_fault(fc, tmp_path, kind)
    # the mistake, as the model sent it
    assert mistake(first_call(trace))
    manifest = load(trace / "manifest.json")
    step1, step2, step3 = manifest["steps"]
    # the harness: an error result, nothing run
    (refused,) = step1["tool_runs"]
    assert (refused["is_error"], refused["error_kind"]) == (True, error_kind)
    sent_back = load(trace / "2-request.deepseek.json")["messages"]
    assert sent_back[-1]["role"] == "tool"
    assert sent_back[-1]["content"].startswith("[tool error] ")
    # the model reads it and calls again, right this time
    reasoning = load(trace / "2-response.deepseek.json")["choices"][0]["message"][
        "reasoning_content"
    ]
    assert reasoning.startswith("上一步的调用出错了，工具返回：")
    (fixed,) = step2["tool_runs"]
    assert (fixed["name"], fixed["arguments"], fixed["is_error"]) == (
        "get_weather",
        {"city": "杭州"},
        False,
    )
    # and answers from the good result alone
    assert step3["stop_reason"] == "end_turn"
    assert manifest["final_answer"].startswith("杭州现在 21°C")
    assert "错误" not in manifest["final_answer"]
    # a handled mistake is no protocol error
    checked = fc("check", "t", "--json")
    assert checked.returncode == 0, checked.stdout
    assert json.loads(checked.stdout)["findings"] == []


def test_no_call_answers_with_made_up_weather_and_check_warns(fc, tmp_path: Path) -> None:
    trace = run_fault(fc, tmp_path, "no-call")
    manifest = load(trace / "manifest.json")
    (step,) = manifest["steps"]
    assert (step["stop_reason"], step["tool_runs"]) == ("end_turn", [])
    assert "22°C" in manifest["final_answer"]  # the weather table says 21°C: made up
    checked = fc("check", "t")
    assert checked.returncode == 0
    assert "! warning FC119 at $.content" in checked.stdout
    assert "made them up" in checked.stdout
    assert fc("check", "t", "--strict").returncode == 1


def test_several_cities_only_the_faulty_call_is_asked_again(fc, tmp_path: Path) -> None:
    trace = run_fault(fc, tmp_path, "missing-arg", "北京、上海、深圳今天适合跑步吗？")
    manifest = load(trace / "manifest.json")
    first, second, _ = manifest["steps"]
    assert [r["is_error"] for r in first["tool_runs"]] == [True, False, False]
    assert [r["arguments"] for r in second["tool_runs"]] == [{"city": "北京"}]
    assert manifest["final_answer"].count("°C") == 3


def test_wrong_type_puts_several_values_in_one_array(fc, tmp_path: Path) -> None:
    trace = run_fault(fc, tmp_path, "wrong-type", "北京、上海今天适合跑步吗？")
    calls = load(trace / "1-response.deepseek.json")["choices"][0]["message"]["tool_calls"]
    assert [c["function"]["arguments"] for c in calls] == ['{"city":["北京","上海"]}']
    second = load(trace / "manifest.json")["steps"][1]["tool_runs"]
    assert [r["arguments"] for r in second] == [{"city": "北京"}, {"city": "上海"}]


REFUND = "帮我把订单 ORD-2024-000123 退款 4999 元"
REFUND_TOOLS = str(REPO / "docs" / "course" / "refund.json")


@pytest.mark.parametrize("kind", ["wrong-type", "missing-arg", "bad-json"])
@pytest.mark.parametrize("thinking", [True, False], ids=["thinking", "no-thinking"])
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_strict_holds_the_demo_to_the_schema_and_the_step_says_the_fault_did_not_happen(
    fc, tmp_path: Path, kind: str, thinking: bool, stream: bool
) -> None:
    extra = [*([] if thinking else ["--no-thinking"]), *(["--stream"] if stream else [])]
    ran = fc(
        "run", REFUND, "--tools", REFUND_TOOLS, "--strict", "--demo-fault", kind, "-o", "t", *extra
    )
    assert ran.returncode == 0, ran.stderr
    call = first_call(tmp_path / "t")
    sent = json.loads(call["function"]["arguments"])
    assert sent == {"order_id": "ORD-2024-000123", "amount": 4999, "reason": None}
    (step, _) = load(tmp_path / "t" / "manifest.json")["steps"]
    assert [r["is_error"] for r in step["tool_runs"]] == [False]
    said = f"--demo-fault {kind} 没有发生：refund_order 是 strict 工具"
    assert said in " ".join(ran.stdout.split())
    shown = fc("show", "t")  # the trace says it too
    assert "".join(said.split()) in "".join(shown.stdout.split())


def test_without_strict_the_same_fault_is_sent_and_keeps_the_other_arguments(
    fc, tmp_path: Path
) -> None:
    trace = run_fault(fc, tmp_path, "wrong-type", REFUND, "--tools", REFUND_TOOLS)
    sent = json.loads(first_call(trace)["function"]["arguments"])
    assert sent == {"order_id": ["ORD-2024-000123"], "amount": 4999}
    assert "没有发生" not in (trace / "1-response.deepseek.json").read_text("utf-8")


def test_strict_does_not_stop_a_fault_outside_the_schema(fc, tmp_path: Path) -> None:
    trace = run_fault(fc, tmp_path, "unknown-tool", REFUND, "--tools", REFUND_TOOLS, "--strict")
    assert first_call(trace)["function"]["name"] == "get_refund_order"


def test_the_correction_is_in_the_questions_language(fc, tmp_path: Path) -> None:
    trace = run_fault(fc, tmp_path, "unknown-tool", "Should I run in Hangzhou today?")
    message = load(trace / "2-response.deepseek.json")["choices"][0]["message"]
    assert message["reasoning_content"].startswith(
        "My last call failed; the tool said: unknown tool 'get_current_weather'"
    )


def test_a_fault_run_is_the_same_every_time(fc, tmp_path: Path) -> None:
    for out in ("a", "b"):
        assert fc("run", QUESTION, "--demo-fault", "bad-json", "-o", out).returncode == 0
    names = sorted(p.name for p in (tmp_path / "a").iterdir() if p.name != "manifest.json")
    assert names
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_no_thinking_still_works(fc, tmp_path: Path) -> None:
    trace = run_fault(fc, tmp_path, "missing-arg", QUESTION, "--no-thinking")
    assert load(trace / "manifest.json")["final_answer"].startswith("杭州现在 21°C")


def test_cut_stream_needs_stream(fc) -> None:
    result = fc("run", QUESTION, "--demo-fault", "cut-stream")
    assert result.returncode == 2
    assert "needs --stream" in result.stderr


def test_cut_stream_exits_3_and_executes_nothing(fc, tmp_path: Path) -> None:
    result = fc("run", QUESTION, "--stream", "--demo-fault", "cut-stream", "-o", "t")
    assert result.returncode == 3, result.stderr
    trace = tmp_path / "t"
    # the message: where, how much came, which call was incomplete and its fragment
    assert "step 1: the stream ended early after" in result.stderr
    assert "bytes" in result.stderr
    assert "incomplete arguments" in result.stderr
    assert "nothing in it was executed" in result.stderr
    assert "Traceback" not in result.stderr
    raw = (trace / "1-response.deepseek.sse").read_bytes()
    assert raw.startswith(b"data: ") and b"[DONE]" not in raw
    assert f"{len(raw):,} bytes" in result.stderr
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "error"
    (step,) = manifest["steps"]
    assert step["tool_runs"] == []
    # nothing assembled from half an answer, and no second request
    assert not (trace / "1-response.json").exists()
    assert not (trace / "2-request.json").exists()
    # fc show says where it stopped
    shown = fc("show", "t")
    assert shown.returncode == 0, shown.stderr
    assert "1-response.deepseek.sse" in shown.stdout


def test_a_fault_has_no_meaning_for_a_real_provider(fc) -> None:
    result = fc("run", QUESTION, "--demo-fault", "bad-json", "-p", "deepseek")
    assert result.returncode == 2
    assert "no meaning for deepseek" in result.stderr


def test_the_provider_refuses_an_unknown_kind() -> None:
    with pytest.raises(UsageError, match="unknown demo fault"):
        DemoProvider(fault="nope")
