"""`--harness-bug KIND`: fc's own harness commits a classic mistake, on record, found by fc check.

docs/course.md runs each kind end to end (tests/docs/test_course.py); here, what the commands do not
show at a glance.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from fccli.check import check_trace
from fccli.core.errors import FcError
from fccli.core.models import ToolResultBlock, ToolUseBlock
from fccli.options.harness_bugs import HARNESS_BUG_HELP, HARNESS_BUGS
from fccli.render.run_view import _Elapsed
from fccli.run.prepare import RunSettings, prepare_run
from fccli.tools.execute import ToolRun


def run(tmp_path: Path, question: str, **settings: Any) -> tuple[dict[str, Any], Path]:
    out = tmp_path / "t"
    prepared = prepare_run(RunSettings(question=question, provider="demo", out=out, **settings))
    # A bug that draws a 400 ends the run with an error; the trace says so.
    with contextlib.suppress(FcError):
        prepared.execute()
    return json.loads((out / "manifest.json").read_text("utf-8")), out


def test_every_kind_is_explained() -> None:
    assert set(HARNESS_BUG_HELP) == set(HARNESS_BUGS)


def test_a_run_without_a_bug_says_nothing_of_bugs(tmp_path: Path) -> None:
    manifest, out = run(tmp_path, "北京、上海今天适合跑步吗？")
    assert "harness_bug" not in manifest["options"]
    assert not any("harness_bug" in s for s in manifest["steps"])
    assert check_trace(out) == []


def test_pair_by_order_with_one_call_changes_nothing(tmp_path: Path) -> None:
    manifest, out = run(tmp_path, "杭州今天适合跑步吗？", harness_bug="pair-by-order")
    assert manifest["options"]["harness_bug"] == "pair-by-order"
    assert not any("harness_bug" in s for s in manifest["steps"])
    assert check_trace(out) == []


def test_pair_by_order_moves_every_result_of_three(tmp_path: Path) -> None:
    manifest, out = run(tmp_path, "北京、上海、深圳今天适合跑步吗？", harness_bug="pair-by-order")
    request = json.loads((out / "2-request.json").read_text("utf-8"))
    calls = [b for b in request["messages"][1]["content"] if b["type"] == "tool_use"]
    results = request["messages"][2]["content"]
    assert [r["tool_use_id"] for r in results] == [c["id"] for c in calls]  # ids in place
    cities = [json.loads(r["content"])["city"] for r in results]
    assert cities == ["上海", "深圳", "北京"]  # contents moved on by one
    assert {f.rule for f in check_trace(out)} == {"FC131"}
    assert "北京现在 17°C" in manifest["final_answer"]


def test_no_validation_runs_a_python_tool_on_what_the_model_sent(tmp_path: Path) -> None:
    manifest, _ = run(
        tmp_path,
        "杭州今天适合跑步吗？",
        harness_bug="no-validation",
        demo_fault="wrong-type",
    )
    (first, *_) = manifest["steps"][0]["tool_runs"]
    assert "city: Input should be a valid string" in first["unchecked"]
    # the tool itself met the array, and failed inside, not with a clear message
    assert first["error_kind"] == "tool_raised"
    assert "no-validation" in manifest["steps"][0]["harness_bug"]


def test_ignore_stop_reason_is_not_flagged_when_max_steps_stopped_the_run(tmp_path: Path) -> None:
    manifest, out = run(tmp_path, "杭州今天适合跑步吗？", max_steps=1)
    assert manifest["status"] == "max_steps"
    assert check_trace(out) == []


@pytest.mark.parametrize(
    ("kind", "rule"),
    [
        ("ignore-stop-reason", "FC130"),
        ("split-results", "FC103"),
        ("drop-results", "FC101"),
        ("drop-reasoning", "FC112"),
    ],
)
def test_fc_check_finds_each_kind_with_its_rule(tmp_path: Path, kind: str, rule: str) -> None:
    manifest, out = run(tmp_path, "北京、上海今天适合跑步吗？", harness_bug=kind)
    assert rule in {f.rule for f in check_trace(out)}
    assert any(kind in s.get("harness_bug", "") for s in manifest["steps"])


def test_hand_back_without_a_bug_is_one_message_in_call_order() -> None:
    from fccli.run.buggy_harness import hand_back

    runs = [
        ToolRun(
            ToolUseBlock(id=f"c{i}", name="t", input={}),
            ToolResultBlock(tool_use_id=f"c{i}", content=str(i)),
            0.0,
        )
        for i in range(3)
    ]
    (message,), said = hand_back(None, runs)
    assert said is None
    assert [r.content for r in message.tool_results()] == ["0", "1", "2"]


def test_the_spinner_counts_the_seconds() -> None:
    elapsed = _Elapsed("waiting for demo…")
    elapsed.start -= 3.2
    assert elapsed.__rich__().plain == "waiting for demo… 3 s"


def test_fc_check_names_the_harness_bug_not_a_hand_edit_when_the_two_files_disagree(
    tmp_path: Path,
) -> None:
    _, out = run(tmp_path, "北京、上海今天适合跑步吗？", harness_bug="drop-reasoning")
    (disagree,) = [f for f in check_trace(out) if f.rule == "FC120"]
    assert "--harness-bug drop-reasoning wrote it so on purpose" in disagree.message
    assert "edited" not in disagree.message
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    del manifest["steps"][1]["harness_bug"]  # without the manifest's word, a hand edit
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (disagree,) = [f for f in check_trace(out) if f.rule == "FC120"]
    assert "one of the two was edited" in disagree.message


def test_replay_of_a_harness_bug_says_so_and_not_that_a_file_was_edited(
    tmp_path: Path,
) -> None:
    from fccli.replay.source import read_step_request
    from fccli.wire.registry import get_format

    manifest, out = run(tmp_path, "北京、上海今天适合跑步吗？", harness_bug="drop-reasoning")
    step = 2
    fmt = get_format(manifest["wire_format"])
    source = read_step_request(out, step, fmt, bug="drop-reasoning")
    said = " ".join([source.note or "", *source.notes])
    assert "--harness-bug drop-reasoning" in said, said
    assert "by hand" not in said and "has no place" not in said, said
    assert source.hand_edit is None
    assert source.file == f"{step}-request.json"  # fc's own request, the mistake not repeated
    # Read from the wire file as asked: the field the bug dropped is put back, and said so.
    wired = read_step_request(out, step, fmt, "wire", bug="drop-reasoning")
    said = " ".join([wired.note or "", *wired.notes])
    assert "has no place" not in said, said
    assert "puts it back" in said, said


def test_the_run_view_does_not_call_a_history_without_results_the_question(fc) -> None:
    # drop-results: step 2's history ends on the assistant's calls, not on the question.
    done = fc("run", "北京、上海今天适合跑步吗？", "--harness-bug", "drop-results", "-o", "t")
    step2 = done.stdout.split("step 2", 1)[1]
    first = step2.split("\n→ request", 1)[1].split("\n", 1)[0]
    assert "the last message from the assistant" in first, first
    assert "the question" not in first, first


def _lines(text: str) -> str:
    """Join what Rich wrapped, so a sentence is found whole."""
    return " ".join(text.split())


TWO_CITIES = "北京和上海今天适合跑步吗？"


def test_no_validation_says_the_arguments_ran_unchecked(fc) -> None:
    done = _lines(fc("run", TWO_CITIES, "--harness-bug", "no-validation", "-o", "t").stdout)
    assert "fc did NOT validate the arguments" in done, done
    assert "executed them unchecked" in done, done
    assert "validated the arguments and executed" not in done, done


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_split_results_says_how_many_results_went_back_in_how_many_messages(
    fc, stream: list[str]
) -> None:
    done = _lines(
        fc("run", TWO_CITIES, "--harness-bug", "split-results", *stream, "-o", "t").stdout
    )
    assert "internally in 2 user messages, one per result" in done, done
    assert "ONE user message" not in done, done
    assert "2 tool result(s) handed back in 2 user messages" in done, done
    assert "1 tool result(s) handed back" not in done, done
    shown = _lines(fc("show", "t").stdout)
    assert "2 tool results handed back in 2 user messages" in shown, shown
    assert "1 tool result handed back" not in shown, shown


def test_pair_by_order_says_the_results_are_paired_by_position(fc) -> None:
    done = _lines(fc("run", TWO_CITIES, "--harness-bug", "pair-by-order", "-o", "t").stdout)
    assert "paired with the calls by position, not by id" in done, done
    assert "paired with their calls by id" not in done, done


def test_drop_results_says_the_results_are_not_handed_back(fc) -> None:
    done = _lines(fc("run", TWO_CITIES, "--harness-bug", "drop-results", "-o", "t").stdout)
    assert "the results are NOT handed back" in done, done
    assert "the results go back" not in done, done


@pytest.mark.parametrize("thinking", [[], ["--no-thinking"]])
def test_show_of_ignore_stop_reason_says_a_tool_request_was_taken_as_the_answer(
    fc, thinking: list[str]
) -> None:
    fc("run", TWO_CITIES, "--harness-bug", "ignore-stop-reason", *thinking, "-o", "t")
    shown = _lines(fc("show", "t").stdout)
    assert (
        "the harness took the tool request of step 1 as the answer; its 2 call(s) were never "
        "executed" in shown
    ), shown
    assert "the model answered" not in shown, shown


@pytest.mark.parametrize("fault", ["wrong-type", "missing-arg", "bad-json"])
def test_a_schema_fault_under_strict_is_announced_as_prevented(fc, fault: str) -> None:
    done = _lines(
        fc("run", "杭州今天适合跑步吗？", "--strict", "--demo-fault", fault, "-o", "t").stdout
    )
    assert f"--demo-fault {fault}: strict mode will prevent this mistake" in done, done
    assert "makes this mistake on purpose" not in done, done
    assert f"--demo-fault {fault} did not happen" in done or "没有发生" in done, done
    shown = _lines(fc("show", "t").stdout)
    assert "makes this mistake on purpose" not in shown, shown
    # without --strict the fault happens, and is announced as made on purpose
    done = _lines(fc("run", "杭州今天适合跑步吗？", "--demo-fault", fault, "-o", "u").stdout)
    assert f"--demo-fault {fault}: the demo model makes this mistake on purpose" in done, done


def test_drop_reasoning_without_thinking_does_not_say_reasoning_was_dropped(fc) -> None:
    done = _lines(
        fc("run", TWO_CITIES, "--harness-bug", "drop-reasoning", "--no-thinking", "-o", "t").stdout
    )
    assert "step 1 had no reasoning to drop" in done, done
    assert "reasoning was not carried back" not in done, done
    shown = _lines(fc("show", "t").stdout)
    assert "step 1 had no reasoning to drop" in shown, shown
    # with thinking on, the reasoning is dropped and said so
    done = _lines(fc("run", TWO_CITIES, "--harness-bug", "drop-reasoning", "-o", "u").stdout)
    assert "step 1's reasoning was not carried back" in done, done


COURSE = Path(__file__).parent.parent.parent / "docs" / "course"


def test_a_rule_about_what_every_request_repeats_is_said_once_per_trace(tmp_path: Path) -> None:
    _, out = run(tmp_path, "北京今天要带伞吗？", response_format="json_object")
    assert [f.rule for f in check_trace(out)] == ["FC132"]
    _, out = run(
        tmp_path / "u",
        "帮我查一下用户 U2002 最近的订单",
        tools=str(COURSE / "account.json"),
        harness_bug="identity-from-args",
    )
    assert [f.rule for f in check_trace(out)] == ["FC134"]


def test_the_session_fills_the_identity_unless_the_harness_trusts_the_model(
    tmp_path: Path,
) -> None:
    manifest, out = run(
        tmp_path, "帮我查一下用户 U2002 最近的订单", tools=str(COURSE / "account.json")
    )
    request = json.loads((out / "1-request.json").read_text("utf-8"))
    assert "user_id" not in request["tools"][0]["input_schema"]["properties"]
    assert "user_id" not in request["tools"][0]["input_schema"]["required"]
    assert "ORD-2024-000123" in manifest["final_answer"]  # U1001's own order
    assert check_trace(out) == []


def test_report_success_is_found_from_the_manifest(tmp_path: Path) -> None:
    manifest, out = run(tmp_path, "北京和巴黎今天适合跑步吗？", harness_bug="report-success")
    failed = [r for r in manifest["steps"][0]["tool_runs"] if r["is_error"]]
    assert len(failed) == 1  # 巴黎
    assert "report-success" in manifest["steps"][1]["harness_bug"]
    found = check_trace(out)
    assert [f.rule for f in found] == ["FC133"]
    assert failed[0]["id"] in found[0].message
    # without a failure, nothing is changed or said
    manifest, out = run(tmp_path / "ok", "北京今天适合跑步吗？", harness_bug="report-success")
    assert not any("harness_bug" in s for s in manifest["steps"])
    assert check_trace(out) == []


def test_raise_on_error_stops_only_on_an_error(tmp_path: Path) -> None:
    manifest, _ = run(tmp_path, "北京今天适合跑步吗？", harness_bug="raise-on-error")
    assert manifest["status"] == "ok"
    manifest, _ = run(tmp_path / "e", "北京和巴黎今天适合跑步吗？", harness_bug="raise-on-error")
    assert manifest["status"] == "error"
    assert manifest["error"]["kind"] == "HarnessAborted"
    assert len(manifest["steps"]) == 1


def test_pack_results_puts_every_result_of_a_turn_in_one_tool_message(tmp_path: Path) -> None:
    manifest, out = run(tmp_path, "北京和上海今天适合跑步吗？", harness_bug="pack-results")
    assert manifest["status"] == "error"  # DeepSeek's 400: content a list, a call unanswered
    assert "2 result(s) packed into ONE role:tool message" in manifest["steps"][1]["harness_bug"]
    wire = json.loads((out / "2-request.deepseek.json").read_text("utf-8"))
    assert [m["role"] for m in wire["messages"]] == ["user", "assistant", "tool"]
    assert {f.rule for f in check_trace(out)} >= {"FC113", "FC101"}


def test_a_replay_of_pack_results_reads_the_request_fc_made(fc) -> None:
    fc("run", "北京和上海今天适合跑步吗？", "--harness-bug", "pack-results", "-o", "t")
    replayed = fc("replay", "t")
    assert replayed.returncode == 0, replayed.stderr
    assert "2-request.deepseek.json cannot be read; the request is read from 2-request.json" in (
        _lines(replayed.stderr + replayed.stdout)
    )


def test_tool_request_as_reply_tells_the_opening_story(fc, tmp_path: Path) -> None:
    fc("run", "杭州今天适合跑步吗？", "--harness-bug", "tool-request-as-reply", "-o", "t")
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text("utf-8"))
    assert [s["tool_runs"] for s in manifest["steps"]] == [[], []]  # nothing ever ran
    assert "22°C" in manifest["final_answer"]  # made up: the demo world's 杭州 has 21°C
    found = check_trace(tmp_path / "t")
    assert [(f.rule, f.file) for f in found if f.severity == "error"] == [
        ("FC130", "1-response.json")
    ]
    shown = _lines(fc("show", "t").stdout)
    assert "but no tool ran" in shown and "the model answered at step 2" in shown, shown
