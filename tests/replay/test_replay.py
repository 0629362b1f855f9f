"""`fc replay` offline, through the real entry point: the course's experiment 3 (change the tool
result, send again, watch the answer follow), each edit form, hand-edited files, and the rule
that the original trace is never touched."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.commands.test_cli_run import assert_clean_error
from tests.conftest import clean_env
from tests.support.inprocess import run_in_process

QUESTION = "杭州今天适合跑步吗？"
HOT = '{"temp_c": 39, "condition": "晴", "aqi": 38}'


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def fingerprint(trace: Path) -> dict[str, tuple[str, int]]:
    """Every file of a trace: its content hash and its modification time."""
    return {
        p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(trace.iterdir())
    }


def call_ids(trace: Path, step: int = 1) -> list[str]:
    response = load(trace / f"{step}-response.json")
    return [b["id"] for b in response["content"] if b["type"] == "tool_use"]


def results(trace: Path, step: int = 1) -> dict[str, dict[str, Any]]:
    """The tool results the first request of a (replayed) trace handed back, by id."""
    out = {}
    for message in load(trace / f"{step}-request.json")["messages"]:
        for block in message["content"]:
            if block["type"] == "tool_result":
                out[block["tool_use_id"]] = block
    return out


# Traces made once per session with the real `fc run`, copied into each test's directory.
RUNS = {
    "hangzhou": [QUESTION],
    "three": ["北京、上海、深圳今天适合跑步吗？"],
    "one-at-a-time": ["北京、上海今天适合跑步吗？", "--no-parallel"],
    "no-call": [QUESTION, "--tool-choice", "none"],
}


@pytest.fixture(scope="session")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("made")
    for name, args in RUNS.items():
        done = run_in_process(["run", *args, "-o", name], cwd=root, env=clean_env())
        assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def trace(made: Path, tmp_path: Path):
    """`trace("hangzhou")`: a fresh copy of a made trace in this test's directory, as `t`."""

    def copy(name: str = "hangzhou", to: str = "t") -> Path:
        return Path(shutil.copytree(made / name, tmp_path / to))

    return copy


# --- experiment 3 ------------------------------------------------------------------------------


def test_set_makes_the_answer_follow_and_leaves_the_original_untouched(
    fc, trace, tmp_path: Path
) -> None:
    original = trace()
    before = fingerprint(original)
    (call_id,) = call_ids(original)
    result = fc("replay", "t", "--set", f"{call_id}={HOT}")
    assert result.returncode == 0, result.stderr
    assert fingerprint(original) == before  # every byte, every time stamp, no file added

    new = tmp_path / "t.replay-1"
    manifest = load(new / "manifest.json")
    assert manifest["status"] == "ok"
    assert "39" in manifest["final_answer"]
    assert manifest["final_answer"] != load(original / "manifest.json")["final_answer"]
    assert manifest["replayed_from"]["trace"] == "t"
    assert manifest["replayed_from"]["step"] == 2
    assert manifest["edits"] == [{"kind": "set", "id": call_id, "text": HOT}]
    assert manifest["provider"] == "demo" and manifest["question"] == QUESTION
    # step 1 of the new trace is the replayed request: the old history, the result edited
    assert results(new)[call_id]["content"] == HOT
    wire = load(new / "1-request.deepseek.json")["messages"]
    assert [m["role"] for m in wire] == ["user", "assistant", "tool"]
    assert wire[2] == {"role": "tool", "tool_call_id": call_id, "content": HOT}

    assert "was:" in result.stdout and "now:" in result.stdout
    # the new trace numbers its files from 1; the view says which old step that one replays
    assert "step 1 (replays step 2 of t)" in result.stdout
    end = result.stdout.split("the answer, before and after", 1)[1]
    assert end.index("original (t):") < end.index("21°C") < end.index("replayed (t.replay-1):")
    assert end.index("replayed (t.replay-1):") < end.index("39°C")


def test_each_replay_gets_the_next_directory_and_out_chooses_one(fc, trace, tmp_path) -> None:
    trace()
    assert fc("replay", "t").returncode == 0
    assert fc("replay", "t").returncode == 0
    assert (tmp_path / "t.replay-1/manifest.json").is_file()
    assert (tmp_path / "t.replay-2/manifest.json").is_file()
    result = fc("replay", "t", "-o", "mine")
    assert result.returncode == 0, result.stderr
    assert load(tmp_path / "mine/manifest.json")["edits"] == []
    assert "no edits" in result.stdout
    assert_clean_error(fc("replay", "t", "-o", "mine"), 2, "not empty")
    assert fc("replay", "t", "-o", "mine", "--force").returncode == 0


def test_the_replayed_trace_reads_and_checks_like_any_other(fc, trace) -> None:
    original = trace()
    (call_id,) = call_ids(original)
    assert fc("replay", "t", "--set", f"{call_id}={HOT}").returncode == 0
    assert fc("check", "t.replay-1").returncode == 0
    shown = fc("show", "t.replay-1")
    assert shown.returncode == 0, shown.stderr
    assert "39" in shown.stdout


def test_json_prints_the_new_manifest_only(fc, trace) -> None:
    original = trace()
    (call_id,) = call_ids(original)
    result = fc("replay", "t", "--set", f"{call_id}={HOT}", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["trace"] == "t.replay-1"
    assert summary["replayed_from"]["final_answer"].startswith("杭州现在 21°C")
    assert "39" in summary["final_answer"]


# --- each edit form ----------------------------------------------------------------------------


def test_set_reads_a_file_and_an_id_may_be_shortened(fc, trace, tmp_path: Path) -> None:
    original = trace()
    (call_id,) = call_ids(original)
    (tmp_path / "hot.json").write_text(HOT + "\n", encoding="utf-8")
    result = fc("replay", "t", "--set", f"{call_id[:9]}=@hot.json")
    assert result.returncode == 0, result.stderr
    new = tmp_path / "t.replay-1"
    assert results(new)[call_id]["content"] == HOT  # the file's last line break is not kept
    assert load(new / "manifest.json")["edits"] == [
        {"kind": "set", "id": call_id, "text": HOT, "file": "hot.json"}
    ]


def test_set_reads_stdin(fc, trace, tmp_path: Path) -> None:
    original = trace()
    (call_id,) = call_ids(original)
    result = fc("replay", "t", "--set", f"{call_id}=@-", input=HOT)
    assert result.returncode == 0, result.stderr
    assert results(tmp_path / "t.replay-1")[call_id]["content"] == HOT


def test_error_flips_is_error_and_ok_flips_it_back(fc, trace, tmp_path: Path) -> None:
    original = trace()
    (call_id,) = call_ids(original)
    result = fc("replay", "t", "--error", call_id)
    assert result.returncode == 0, result.stderr
    first = tmp_path / "t.replay-1"
    assert results(first)[call_id]["is_error"] is True
    # chat has no is_error flag: the marker in the text says it
    tool_message = load(first / "1-request.deepseek.json")["messages"][2]
    assert tool_message["content"].startswith("[tool error] ")
    assert "没查到" in load(first / "manifest.json")["final_answer"]
    assert load(first / "manifest.json")["edits"] == [{"kind": "error", "id": call_id}]

    # a replay of the replay: its step 1 holds the result; --ok makes it a success again
    back = fc("replay", "t.replay-1", "--ok", call_id)
    assert back.returncode == 0, back.stderr
    answer = load(tmp_path / "t.replay-1.replay-1/manifest.json")["final_answer"]
    assert "21°C" in answer


def test_error_on_an_error_result_says_it_already_was(fc, trace) -> None:
    original = trace()
    (call_id,) = call_ids(original)
    assert fc("replay", "t", "--error", call_id).returncode == 0
    result = fc("replay", "t.replay-1", "--error", call_id)
    assert result.returncode == 0, result.stderr
    assert "already was an error" in result.stdout


EDITOR = """
import json, sys
path = sys.argv[1]
doc = json.load(open(path, encoding="utf-8"))
assert "about" in doc
(entry,) = doc["results"]
assert entry["tool"] == "get_weather" and entry["input"] == {"city": "杭州"}
entry["content"]["temp_c"] = 39  # shown as JSON, not as an escaped string
json.dump(doc, open(path, "w", encoding="utf-8"), ensure_ascii=False)
"""


def test_edit_opens_the_results_in_the_editor(fc, trace, tmp_path: Path) -> None:
    original = trace()
    (call_id,) = call_ids(original)
    (tmp_path / "editor.py").write_text(EDITOR, encoding="utf-8")
    env = clean_env(EDITOR=f"{sys.executable} {tmp_path / 'editor.py'}")
    result = fc("replay", "t", "--edit", env=env)
    assert result.returncode == 0, result.stderr
    new = tmp_path / "t.replay-1"
    content = json.loads(results(new)[call_id]["content"])
    assert content == {"city": "杭州", "temp_c": 39, "condition": "多云", "aqi": 38}
    (edit,) = load(new / "manifest.json")["edits"]
    assert edit["kind"] == "editor" and edit["id"] == call_id and edit["is_error"] is False
    assert "39°C" in load(new / "manifest.json")["final_answer"]


def test_an_editor_saving_nothing_new_sends_the_results_as_they_were(fc, trace, tmp_path) -> None:
    trace()
    env = clean_env(EDITOR="true")  # exits 0 and leaves the file as it was
    result = fc("replay", "t", "--edit", env=env)
    assert result.returncode == 0, result.stderr
    assert load(tmp_path / "t.replay-1/manifest.json")["edits"] == []


def test_an_editor_that_fails_replays_nothing(fc, trace, tmp_path: Path) -> None:
    trace()
    assert_clean_error(fc("replay", "t", "--edit", env=clean_env(EDITOR="false")), 2, "editor")
    assert not (tmp_path / "t.replay-1").exists()
    emptied = clean_env(EDITOR=f"{sys.executable} -c \"open(__import__('sys').argv[1], 'w')\"")
    assert_clean_error(fc("replay", "t", "--edit", env=emptied), 2, "empty")
    missing = clean_env(EDITOR="no-such-editor-here")
    assert_clean_error(fc("replay", "t", "--edit", env=missing), 2, "$EDITOR")


def test_an_editor_that_breaks_the_json_keeps_the_work(fc, trace, tmp_path: Path) -> None:
    trace()
    breaker = tmp_path / "breaker.py"
    breaker.write_text("import sys\nopen(sys.argv[1], 'a').write('oops')\n", encoding="utf-8")
    result = fc("replay", "t", "--edit", env=clean_env(EDITOR=f"{sys.executable} {breaker}"))
    assert_clean_error(result, 2, "not valid JSON", "kept in")
    kept = Path(result.stderr.rsplit("kept in ", 1)[1].strip())
    assert kept.read_text(encoding="utf-8").endswith("oops")
    kept.unlink()


# --- ids and steps -----------------------------------------------------------------------------


def test_an_unknown_id_is_exit_2_listing_the_known_ones(fc, trace, tmp_path: Path) -> None:
    original = trace("three")
    ids = call_ids(original)
    result = fc("replay", "t", "--set", "call_nope={}")
    assert_clean_error(result, 2, "call_nope", *ids)
    assert "北京" in result.stderr  # each id with the call it answers
    assert_clean_error(fc("replay", "t", "--error", "nope"), 2, *ids)
    assert not (tmp_path / "t.replay-1").exists()


def test_an_id_prefix_that_names_several_is_refused(fc, trace) -> None:
    trace("three")
    assert_clean_error(fc("replay", "t", "--ok", "call_"), 2, "the start of 3 ids")


def test_conflicting_edits_are_refused(fc, trace) -> None:
    original = trace()
    (call_id,) = call_ids(original)
    assert_clean_error(fc("replay", "t", "--error", call_id, "--ok", call_id), 2, "choose one")
    twice = fc("replay", "t", "--set", f"{call_id}=a", "--set", f"{call_id}=b")
    assert_clean_error(twice, 2, "more than once")
    assert_clean_error(fc("replay", "t", "--set", "no-equals-sign"), 2, "ID=TEXT")
    assert_clean_error(fc("replay", "t", "--once", "--max-steps", "2"), 2, "--once")


def test_a_step_without_results_is_exit_2_naming_the_steps_that_have(fc, trace) -> None:
    trace()
    assert_clean_error(fc("replay", "t", "--step", "1"), 2, "step 1", "steps that do: 2")
    assert_clean_error(fc("replay", "t", "--step", "9"), 2, "no step 9")


def test_a_run_without_tool_calls_has_nothing_to_replay(fc, trace) -> None:
    trace("no-call")
    assert_clean_error(fc("replay", "t"), 2, "nothing to edit")


def test_not_a_trace_is_exit_2(fc, tmp_path: Path) -> None:
    assert_clean_error(fc("replay", "nowhere"), 2, "nowhere")
    (tmp_path / "empty").mkdir()
    assert_clean_error(fc("replay", "empty"), 2, "manifest.json")


def test_the_round_trip_goes_on_unless_once(fc, trace, tmp_path: Path) -> None:
    original = trace("one-at-a-time")
    (beijing,) = call_ids(original)
    hot = '{"city": "北京", "temp_c": 39, "condition": "晴", "aqi": 85}'
    once = fc("replay", "t", "--step", "2", "--set", f"{beijing}={hot}", "--once")
    assert once.returncode == 0, once.stderr
    manifest = load(tmp_path / "t.replay-1/manifest.json")
    assert manifest["status"] == "max_steps" and len(manifest["steps"]) == 1
    assert manifest["options"]["max_steps"] == 1

    # without --once the model asks for Shanghai next, gets it, and answers from both
    on = fc("replay", "t", "--step", "2", "--set", f"{beijing}={hot}")
    assert on.returncode == 0, on.stderr
    manifest = load(tmp_path / "t.replay-2/manifest.json")
    assert manifest["status"] == "ok"
    assert [s["stop_reason"] for s in manifest["steps"]] == ["tool_use", "end_turn"]
    assert "39°C" in manifest["final_answer"] and "上海" in manifest["final_answer"]


# --- hand-edited trace files -------------------------------------------------------------------


def edit_file(path: Path, old: str, new: str, *, at: float) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, (at, at))


def step_times(trace: Path, step: int = 2) -> float:
    return (trace / f"{step}-request.json").stat().st_mtime


def test_an_edited_wire_file_is_noticed_and_used(fc, trace, tmp_path: Path) -> None:
    original = trace()
    (call_id,) = call_ids(original)
    wire = original / "2-request.deepseek.json"
    edit_file(wire, '\\"temp_c\\": 21', '\\"temp_c\\": 39', at=step_times(original) + 30)
    before = fingerprint(original)
    result = fc("replay", "t")
    assert result.returncode == 0, result.stderr
    assert fingerprint(original) == before
    assert "Replaying 2-request.deepseek.json" in result.stdout
    assert "changed after 2-request.json" in result.stdout
    manifest = load(tmp_path / "t.replay-1/manifest.json")
    (edit,) = manifest["edits"]
    assert edit["kind"] == "hand-edited" and edit["file"] == "2-request.deepseek.json"
    assert edit["ids"] == [call_id]
    assert manifest["replayed_from"]["file"] == "2-request.deepseek.json"
    assert "39°C" in manifest["final_answer"]


def test_an_edited_internal_file_is_noticed_and_used(fc, trace, tmp_path: Path) -> None:
    original = trace()
    internal = original / "2-request.json"
    edit_file(internal, '\\"temp_c\\": 21', '\\"temp_c\\": -15', at=step_times(original) + 90)
    result = fc("replay", "t")
    assert result.returncode == 0, result.stderr
    assert "Replaying 2-request.json: it was changed 90 s after" in result.stdout
    manifest = load(tmp_path / "t.replay-1/manifest.json")
    assert manifest["edits"][0]["file"] == "2-request.json"
    assert "-15°C" in manifest["final_answer"]


def test_times_that_say_nothing_fall_to_the_wire_file_and_from_decides(
    fc, trace, tmp_path: Path
) -> None:
    original = trace()
    internal = original / "2-request.json"
    at = step_times(original)
    edit_file(internal, '\\"temp_c\\": 21', '\\"temp_c\\": -15', at=at)
    os.utime(original / "2-request.deepseek.json", (at, at))  # as a fresh checkout leaves them
    result = fc("replay", "t", "--once")
    assert result.returncode == 0, result.stderr
    assert "times do not tell" in result.stdout and "--from internal" in result.stdout
    assert "21°C" in load(tmp_path / "t.replay-1/manifest.json")["final_answer"]

    chosen = fc("replay", "t", "--from", "internal")
    assert chosen.returncode == 0, chosen.stderr
    assert "as --from asked" in chosen.stdout
    assert "-15°C" in load(tmp_path / "t.replay-2/manifest.json")["final_answer"]
    assert_clean_error(fc("replay", "t", "--from", "other"), 2, "internal or wire")


def test_set_works_on_top_of_a_hand_edit(fc, trace, tmp_path: Path) -> None:
    original = trace("three")
    beijing, shanghai, _ = call_ids(original)
    wire = original / "2-request.deepseek.json"
    edit_file(wire, '\\"temp_c\\": 12', '\\"temp_c\\": 5', at=step_times(original) + 30)
    result = fc("replay", "t", "--set", f"{shanghai}={HOT}")
    assert result.returncode == 0, result.stderr
    new = tmp_path / "t.replay-1"
    sent = results(new)
    assert '"temp_c": 5' in sent[beijing]["content"]  # the hand edit
    assert sent[shanghai]["content"] == HOT  # --set on top
    kinds = [(e["kind"], e.get("ids") or e.get("id")) for e in load(new / "manifest.json")["edits"]]
    assert kinds == [("hand-edited", [beijing]), ("set", shanghai)]
    assert f"result for {beijing} (get_weather " in result.stdout
    assert "by an edit by hand of the trace's files\n" in result.stdout
    assert f"result for {shanghai} (get_weather " in result.stdout
    assert "by --set\n" in result.stdout
    answer = load(new / "manifest.json")["final_answer"]
    assert "5°C" in answer and "39°C" in answer


def test_a_hand_edit_that_breaks_the_json_is_said_not_skipped(fc, trace) -> None:
    original = trace()
    wire = original / "2-request.deepseek.json"
    wire.write_text(wire.read_text(encoding="utf-8")[:-10], encoding="utf-8")
    result = fc("replay", "t")
    assert_clean_error(result, 2, "2-request.deepseek.json", "not valid JSON", "--from internal")
    assert fc("replay", "t", "--from", "internal").returncode == 0


def test_a_missing_internal_file_is_read_from_the_wire_one(fc, trace, tmp_path: Path) -> None:
    original = trace()
    (original / "2-request.json").unlink()
    result = fc("replay", "t")
    assert result.returncode == 0, result.stderr
    assert "2-request.json is missing" in result.stdout
    assert "21°C" in load(tmp_path / "t.replay-1/manifest.json")["final_answer"]


# --- in-process: the choice between the two files ----------------------------------------------


def test_edited_file_reads_the_times(tmp_path: Path) -> None:
    from fccli.replay.source import edited_file

    internal, wire = tmp_path / "2-request.json", tmp_path / "2-request.deepseek.json"
    internal.write_text("{}")
    wire.write_text("{}")
    os.utime(wire, (1000, 1000))
    os.utime(internal, (1000.002, 1000.002))  # as fc writes them: the wire file first
    assert edited_file(internal, wire)[0] == "wire"  # (they disagree, yet the times are fc's)
    os.utime(wire, (1005, 1005))
    assert edited_file(internal, wire)[0] == "wire"
    os.utime(internal, (1200, 1200))
    kind, why = edited_file(internal, wire)
    assert kind == "internal" and "3 min after" in why


def test_a_hand_edit_that_breaks_the_protocol_is_not_sent(fc, trace, tmp_path: Path) -> None:
    original = trace()
    (call_id,) = call_ids(original)
    wire = original / "2-request.deepseek.json"
    edit_file(
        wire,
        f'"tool_call_id": "{call_id}"',
        '"tool_call_id": "call_made_up"',
        at=step_times(original) + 30,
    )
    result = fc("replay", "t")
    assert_clean_error(result, 1, "not sent", "FC101", "fc send t.replay-1/1-request.deepseek.json")
    assert "no result had this id" in result.stdout
    assert load(tmp_path / "t.replay-1/manifest.json")["status"] == "error"


MY_TOOLS = '''
from typing import Annotated
from pydantic import Field


def get_weather(city: Annotated[str, Field(description="城市名，例如：杭州")]) -> dict:
    """查询某个城市当前的天气。返回温度（摄氏度）、天气状况和空气质量指数。"""
    return {"city": city, "temp_c": 25, "condition": "晴", "aqi": 20}
'''


def test_the_trace_s_tools_file_is_found_again_or_named_with_tools(fc, tmp_path: Path) -> None:
    (tmp_path / "my_tools.py").write_text(MY_TOOLS, encoding="utf-8")
    assert fc("run", QUESTION, "--tools", "./my_tools.py", "-o", "t").returncode == 0
    options = load(tmp_path / "t/manifest.json")["options"]
    assert options["tools"] == "./my_tools.py"  # as typed, for fc show
    assert options["tools_file"] == {"path": "../my_tools.py", "relative_to": "trace"}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    found = fc("replay", "../t", cwd=elsewhere)
    assert found.returncode == 0, found.stderr
    assert "25°C" in load(tmp_path / "t.replay-1/manifest.json")["final_answer"]
    replayed = load(tmp_path / "t.replay-1/manifest.json")["options"]
    assert replayed["tools_file"] == {"path": "../my_tools.py", "relative_to": "trace"}
    # the trace and its tools moved together still find each other
    moved = tmp_path / "course"
    moved.mkdir()
    (tmp_path / "my_tools.py").rename(moved / "my_tools.py")
    (tmp_path / "t").rename(moved / "t")
    again = fc("replay", str(moved / "t"), "-o", "again", cwd=elsewhere)
    assert again.returncode == 0, again.stderr
    (moved / "my_tools.py").unlink()
    lost = fc("replay", str(moved / "t"), "-o", "lost", cwd=elsewhere)
    assert_clean_error(lost, 2, "my_tools.py", "--tools")
    (tmp_path / "here.py").write_text(MY_TOOLS, encoding="utf-8")
    named = fc("replay", str(moved / "t"), "--tools", "../here.py", "-o", "named", cwd=elsewhere)
    assert named.returncode == 0, named.stderr


def test_fc_writes_the_wire_request_before_the_internal_one(made: Path) -> None:
    """What telling a hand edit from the times rests on (fccli/replay/source.py)."""
    for name in RUNS:
        trace = made / name
        for internal in trace.glob("*-request.json"):
            wire = internal.with_name(internal.name.replace(".json", ".deepseek.json"))
            assert wire.stat().st_mtime_ns <= internal.stat().st_mtime_ns, internal


# --- review of issue 6 -------------------------------------------------------------------------


@pytest.mark.parametrize("out", ["t", "t/.", "./t", "t/inner", "."])
def test_an_out_that_is_holds_or_is_inside_the_original_is_refused(fc, trace, out: str) -> None:
    original = trace()
    before = fingerprint(original)
    result = fc("replay", "t", "-o", out, "--force")
    assert_clean_error(result, 2, "original trace")
    assert fingerprint(original) == before  # nothing deleted, nothing written inside


def test_replaying_dotdot_writes_beside_the_trace_not_in_the_cwd(fc, trace, tmp_path) -> None:
    original = trace()
    (original / "sub").mkdir()
    result = fc("replay", "..", cwd=original / "sub")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "t.replay-1/manifest.json").is_file()
    assert list((original / "sub").iterdir()) == []


def test_an_emptied_editor_document_cancels_with_the_promised_words(
    fc, trace, tmp_path: Path
) -> None:
    trace()
    emptied = clean_env(EDITOR=f"{sys.executable} -c \"open(__import__('sys').argv[1], 'w')\"")
    result = fc("replay", "t", "--edit", env=emptied)
    assert_clean_error(result, 2, "the edited document is empty: nothing was replayed")
    assert "kept in" not in result.stderr
    assert not (tmp_path / "t.replay-1").exists()


def test_set_reads_stdin_once_only(fc, trace, tmp_path: Path) -> None:
    original = trace("three")
    a, b, _ = call_ids(original)
    result = fc("replay", "t", "--set", f"{a}=@-", "--set", f"{b}=@-", input=HOT)
    assert_clean_error(result, 2, "standard input")
    assert not (tmp_path / "t.replay-1").exists()


@pytest.mark.parametrize(("option", "value"), [("max_steps", 0), ("retries", 11), ("retries", -1)])
def test_numbers_of_the_manifest_are_checked_as_the_options_are(
    fc, trace, tmp_path: Path, option: str, value: int
) -> None:
    original = trace()
    manifest = load(original / "manifest.json")
    manifest["options"][option] = value
    (original / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert_clean_error(fc("replay", "t"), 2, f"options.{option}")
    assert not (tmp_path / "t.replay-1").exists()
    flag = "--" + option.replace("_", "-")
    assert fc("replay", "t", flag, "2").returncode == 0  # the command line overrides it


def test_both_request_files_edited_alike_are_a_hand_edit(fc, trace, tmp_path: Path) -> None:
    original = trace()
    later = step_times(original) + 30
    for name in ("2-request.json", "2-request.deepseek.json"):
        edit_file(original / name, '\\"temp_c\\": 21', '\\"temp_c\\": 39', at=later)
    result = fc("replay", "t")
    assert result.returncode == 0, result.stderr
    assert "no edits" not in result.stdout
    assert "agree, but both were changed" in result.stdout
    manifest = load(tmp_path / "t.replay-1/manifest.json")
    (edit,) = manifest["edits"]
    assert edit["kind"] == "hand-edited"
    assert "39°C" in manifest["final_answer"]
    # untouched files, even if copied later than the run, are not taken for an edit
    trace(to="u")
    assert "no edits" in fc("replay", "u").stdout


def test_the_default_step_is_the_last_with_results(fc, trace, tmp_path: Path) -> None:
    original = trace("one-at-a-time")
    assert (original / "3-request.json").is_file()
    result = fc("replay", "t")
    assert result.returncode == 0, result.stderr
    assert load(tmp_path / "t.replay-1/manifest.json")["replayed_from"]["step"] == 3


FLIP = """
import json, sys
path = sys.argv[1]
doc = json.load(open(path, encoding="utf-8"))
doc["results"][0]["is_error"] = True
json.dump(doc, open(path, "w", encoding="utf-8"), ensure_ascii=False)
"""


def test_edit_flipping_is_error_is_honoured(fc, trace, tmp_path: Path) -> None:
    original = trace()
    (call_id,) = call_ids(original)
    (tmp_path / "flip.py").write_text(FLIP, encoding="utf-8")
    result = fc("replay", "t", "--edit", env=clean_env(EDITOR=f"{sys.executable} flip.py"))
    assert result.returncode == 0, result.stderr
    new = tmp_path / "t.replay-1"
    assert results(new)[call_id]["is_error"] is True
    (edit,) = load(new / "manifest.json")["edits"]
    assert edit["kind"] == "editor" and edit["is_error"] is True
    assert "没查到" in load(new / "manifest.json")["final_answer"]


def test_the_demo_refuses_a_base_url(fc, trace, tmp_path: Path) -> None:
    trace()
    result = fc("replay", "t", "-p", "demo", "--base-url", "http://127.0.0.1:9")
    assert_clean_error(result, 2, "--base-url")
    assert not (tmp_path / "t.replay-1").exists()
