"""`fc run` end to end through the real entry point, as a learner runs it (CLI.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from fccli import __version__

QUESTION = "杭州今天适合跑步吗？"
STEP_FILES = (
    "1-request.json",
    "1-request.deepseek.json",
    "1-response.deepseek.json",
    "1-response.json",
    "2-request.json",
    "2-request.deepseek.json",
    "2-response.deepseek.json",
    "2-response.json",
)


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def only_trace(cwd: Path) -> Path:
    (trace,) = (cwd / "traces").iterdir()
    return trace


def assert_clean_error(result: Any, code: int, *words: str) -> None:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert 1 <= len(lines) <= 3, result.stderr
    for word in words:
        assert word in result.stderr


def test_the_hangzhou_round_trip_writes_the_trace_of_cli_md(fc, tmp_path: Path) -> None:
    result = fc("run", QUESTION)
    assert result.returncode == 0, result.stderr
    trace = only_trace(tmp_path)
    assert re.fullmatch(r"\d{8}-\d{6}-hangzhou", trace.name)
    for name in (*STEP_FILES, "manifest.json"):
        assert (trace / name).is_file(), name

    response = load(trace / "1-response.json")
    assert response["stop_reason"] == "tool_use"
    (use,) = [b for b in response["content"] if b["type"] == "tool_use"]
    assert (use["name"], use["input"]) == ("get_weather", {"city": "杭州"})

    second = load(trace / "2-request.json")["messages"]
    assert second[1] == {"role": "assistant", "content": response["content"]}
    assert second[2]["content"][0]["tool_use_id"] == use["id"]

    wire = load(trace / "2-request.deepseek.json")["messages"]
    assistant, tool = wire[1], wire[2]
    assert isinstance(assistant["tool_calls"][0]["function"]["arguments"], str)
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"city": "杭州"}
    assert "reasoning_content" in assistant
    assert tool == {"role": "tool", "tool_call_id": use["id"], "content": tool["content"]}
    temp = json.loads(tool["content"])["temp_c"]

    final = load(trace / "2-response.json")
    assert final["stop_reason"] == "end_turn"
    answer = "".join(b["text"] for b in final["content"] if b["type"] == "text")
    assert f"{temp}°C" in answer
    assert load(trace / "manifest.json")["final_answer"] == answer
    assert str(trace.relative_to(tmp_path)) in result.stdout


def test_three_cities_three_calls_one_result_message_three_tool_messages(
    fc, tmp_path: Path
) -> None:
    assert fc("run", "北京、上海、深圳今天适合跑步吗？", "-o", "t").returncode == 0
    calls = [b for b in load(tmp_path / "t/1-response.json")["content"] if b["type"] == "tool_use"]
    assert [c["input"]["city"] for c in calls] == ["北京", "上海", "深圳"]
    results = load(tmp_path / "t/2-request.json")["messages"][2]
    assert results["role"] == "user"
    assert [b["tool_use_id"] for b in results["content"]] == [c["id"] for c in calls]
    wire = load(tmp_path / "t/2-request.deepseek.json")["messages"]
    assert [m["role"] for m in wire] == ["user", "assistant", "tool", "tool", "tool"]
    assert [m["tool_call_id"] for m in wire[2:]] == [c["id"] for c in calls]


def test_the_same_question_twice_gives_byte_identical_step_files(fc, tmp_path: Path) -> None:
    assert fc("run", QUESTION, "-o", "a").returncode == 0
    assert fc("run", QUESTION, "-o", "b").returncode == 0
    for name in STEP_FILES:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_json_output_is_the_summary_only(fc, tmp_path: Path) -> None:
    result = fc("run", QUESTION, "--json", "-o", "t")
    assert result.returncode == 0
    summary = json.loads(result.stdout)
    assert summary["status"] == "ok"
    assert summary["trace"] == "t"
    assert [s["stop_reason"] for s in summary["steps"]] == ["tool_use", "end_turn"]


def test_output_to_a_pipe_has_no_colour_codes(fc) -> None:
    result = fc("run", QUESTION)
    assert "\x1b[" not in result.stdout
    assert "tool_use" in result.stdout and "get_weather" in result.stdout


def test_a_non_empty_out_is_refused_and_force_replaces_only_a_trace(fc, tmp_path: Path) -> None:
    assert fc("run", QUESTION, "-o", "t").returncode == 0
    assert_clean_error(fc("run", QUESTION, "-o", "t"), 2, "not empty", "--force")
    first = (tmp_path / "t/manifest.json").read_text()
    assert fc("run", QUESTION, "-o", "t", "--force").returncode == 0
    assert (tmp_path / "t/manifest.json").read_text() != first  # a new run, new times


@pytest.mark.parametrize("out", ["mine", "."])
def test_force_never_deletes_what_is_not_a_trace(fc, tmp_path: Path, out: str) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "keep.txt").write_text("mine")
    (tmp_path / "keep.txt").write_text("mine")
    assert_clean_error(fc("run", QUESTION, "-o", out, "--force"), 2, "not an fc trace")
    assert (tmp_path / "mine" / "keep.txt").read_text() == "mine"
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_trace_files_are_readable_by_others_as_the_umask_allows(fc, tmp_path: Path) -> None:
    assert fc("run", QUESTION, "-o", "t").returncode == 0
    assert (tmp_path / "t/1-request.json").stat().st_mode & 0o044  # umask 022 in tests


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["-p", "nosuch"], ["unknown provider 'nosuch'", "demo"]),
        (["--tools", "nosuch"], ["unknown tool set 'nosuch'", "weather"]),
        (["--tools", "missing.py"], ["missing.py", "no such tools file"]),
        (["--tool-choice", "get_time"], ["get_time", "get_weather"]),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(
    fc, tmp_path: Path, args: list[str], words: list[str]
) -> None:
    assert_clean_error(fc("run", QUESTION, *args), 2, *words)
    assert not (tmp_path / "traces").exists()


def test_an_unknown_option_is_exit_2(fc) -> None:
    result = fc("run", QUESTION, "--no-such-flag")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_version_and_help_work_offline(fc) -> None:
    version = fc("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"fc {__version__}"
    help_ = fc("--help")
    assert help_.returncode == 0 and "run" in help_.stdout
    run_help = fc("run", "--help")
    assert run_help.returncode == 0 and "--max-steps" in run_help.stdout


def write_tool(path: Path, name: str, param_description: str, description: str) -> None:
    path.write_text(
        "from typing import Annotated\n"
        "from pydantic import Field\n\n"
        f"def {name}(city: Annotated[str, Field(description={param_description!r})]) -> str:\n"
        f"    {description!r}\n"
        "    return f'{city}: 30 degrees'\n",
        encoding="utf-8",
    )


def test_experiment_4_a_parameter_description_changes_the_argument(fc, tmp_path: Path) -> None:
    write_tool(
        tmp_path / "my_tools.py", "get_weather", "城市的英文名，例如：Hangzhou", "查询天气。"
    )
    result = fc("run", QUESTION, "--tools", "my_tools.py", "-o", "t")
    assert result.returncode == 0, result.stderr
    (tool,) = load(tmp_path / "t/1-request.json")["tools"]
    assert tool["description"] == "查询天气。"
    assert (
        tool["input_schema"]["properties"]["city"]["description"] == "城市的英文名，例如：Hangzhou"
    )
    response = load(tmp_path / "t/1-response.json")
    (use,) = [b for b in response["content"] if b["type"] == "tool_use"]
    assert use["input"] == {"city": "Hangzhou"}
    assert "英文名" in response["content"][0]["thinking"]
    assert (
        load(tmp_path / "t/2-request.json")["messages"][2]["content"][0]["content"]
        == "Hangzhou: 30 degrees"
    )


def test_experiment_4_a_vague_description_leaves_only_the_name_to_go_by(fc, tmp_path: Path) -> None:
    write_tool(tmp_path / "vague.py", "get_weather", "城市名，例如：杭州", "获取信息")
    assert fc("run", QUESTION, "--tools", "vague.py", "-o", "t").returncode == 0
    response = load(tmp_path / "t/1-response.json")
    assert response["stop_reason"] == "tool_use"
    assert "名字像是能查" in response["content"][0]["thinking"]


def test_experiment_4_a_tool_that_says_nothing_of_weather_is_not_called(fc, tmp_path: Path) -> None:
    write_tool(tmp_path / "opaque.py", "lookup", "要查的东西", "获取信息")
    result = fc("run", QUESTION, "--tools", "opaque.py", "-o", "t")
    assert result.returncode == 0, result.stderr
    response = load(tmp_path / "t/1-response.json")
    assert response["stop_reason"] == "end_turn"
    assert not [b for b in response["content"] if b["type"] == "tool_use"]
    assert "°C" not in load(tmp_path / "t/manifest.json")["final_answer"]
    # but a model can be made to call it
    forced = fc(
        "run",
        QUESTION,
        "--tools",
        "opaque.py",
        "--tool-choice",
        "lookup",
        "--no-thinking",
        "-o",
        "f",
    )
    assert forced.returncode == 0, forced.stderr
    assert load(tmp_path / "f/1-response.json")["stop_reason"] == "tool_use"


def test_no_thinking_sends_the_switch_and_gets_no_reasoning(fc, tmp_path: Path) -> None:
    assert fc("run", QUESTION, "--no-thinking", "-o", "t").returncode == 0
    assert load(tmp_path / "t/1-request.deepseek.json")["thinking"] == {"type": "disabled"}
    assert not any(b["type"] == "thinking" for b in load(tmp_path / "t/1-response.json")["content"])
    assert "reasoning_content" not in load(tmp_path / "t/2-request.deepseek.json")["messages"][1]


def test_no_parallel_and_tool_choice_reach_the_wire(fc, tmp_path: Path) -> None:
    result = fc(
        "run",
        "北京、上海？",
        "--no-parallel",
        "--tool-choice",
        "get_weather",
        "--no-thinking",
        "-o",
        "t",
    )
    assert result.returncode == 0, result.stderr
    body = load(tmp_path / "t/1-request.deepseek.json")
    assert body["parallel_tool_calls"] is False
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    manifest = load(tmp_path / "t/manifest.json")
    # one city per step: 北京, then 上海, then the answer
    assert [len(s["tool_runs"]) for s in manifest["steps"]] == [1, 1, 0]


def test_max_steps_stops_and_says_so(fc, tmp_path: Path) -> None:
    result = fc("run", QUESTION, "--max-steps", "1", "-o", "t")
    assert result.returncode == 0
    assert "max-steps" in result.stdout
    assert load(tmp_path / "t/manifest.json")["status"] == "max_steps"


def test_fc_provider_selects_the_provider(fc, tmp_path: Path) -> None:
    from tests.conftest import clean_env

    result = fc("run", QUESTION, env=clean_env(FC_PROVIDER="nosuch"))
    assert_clean_error(result, 2, "unknown provider 'nosuch'")


@pytest.mark.parametrize(
    "question", [QUESTION, "北京、上海今天适合跑步吗？"], ids=["one-call", "parallel-calls"]
)
def test_ctrl_c_exits_130_at_once_and_the_trace_keeps_what_it_had(
    tmp_path: Path, question: str
) -> None:
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import clean_env

    (tmp_path / "slow.py").write_text(
        "import pathlib, time\n\n"
        "def get_weather(city: str) -> str:\n"
        '    """Slow weather."""\n'
        "    pathlib.Path('running').touch()\n"
        "    time.sleep(30)\n"
        "    return 'late'\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "fccli", "run", question, "--tools", "slow.py", "-o", "t"],
        cwd=tmp_path,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    while not (tmp_path / "running").exists() and time.monotonic() < deadline:
        time.sleep(
            0.05
        )  # until a tool runs (the step is priced before: a moment on a busy machine)
    time.sleep(0.1)  # into the tool's sleep
    proc.send_signal(signal.SIGINT)
    # the tools sleep 30 s: finishing well before means nothing waited for them
    _, stderr = proc.communicate(timeout=15)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "interrupted" in stderr
    manifest = load(tmp_path / "t/manifest.json")
    assert manifest["status"] == "interrupted"
    assert manifest["error"]["message"] == "interrupted at step 1 while the tools ran"
    (step,) = manifest["steps"]  # the step whose tools were running is on record
    assert step["stop_reason"] == "tool_use" and step["tool_runs"] == []
    assert (tmp_path / "t/1-response.deepseek.json").exists()


def test_an_answer_cut_at_max_tokens_is_exit_3_and_its_call_never_runs(fc, tmp_path: Path) -> None:
    result = fc("run", QUESTION, "--max-tokens", "30", "-o", "t")
    assert_clean_error(result, 3, "max_tokens", "NOT executed", "the trace keeps what it had")
    assert len(result.stderr.strip().splitlines()) == 2
    response = load(tmp_path / "t/1-response.json")
    assert response["stop_reason"] == "max_tokens"
    (use,) = [b for b in response["content"] if b["type"] == "tool_use"]
    assert use["input"] == {} and use["raw_arguments"]  # half a JSON object, kept as it came
    manifest = load(tmp_path / "t/manifest.json")
    assert manifest["status"] == "error"
    assert manifest["steps"][0]["tool_runs"] == []
    assert not (tmp_path / "t/2-request.json").exists()
    assert "not executed" in result.stdout


@pytest.mark.parametrize("choice", ["required", "get_weather"])
def test_a_tool_choice_deepseek_thinking_mode_refuses_is_stopped_before_sending(
    fc, tmp_path: Path, choice: str
) -> None:
    result = fc("run", QUESTION, "--tool-choice", choice)
    assert_clean_error(result, 2, "thinking mode", "auto or none", "--no-thinking")
    assert not (tmp_path / "traces").exists()
    assert fc("run", QUESTION, "--tool-choice", choice, "--no-thinking").returncode == 0


def test_fc_base_url_in_the_environment_does_not_break_the_offline_run(fc) -> None:
    from tests.conftest import clean_env

    assert fc("run", QUESTION, env=clean_env(FC_BASE_URL="http://127.0.0.1:9")).returncode == 0
    assert_clean_error(fc("run", QUESTION, "--base-url", "http://127.0.0.1:9"), 2, "demo")


def test_a_tool_that_prints_does_not_corrupt_json_output(fc, tmp_path: Path) -> None:
    (tmp_path / "chatty.py").write_text(
        "import sys\n"
        "print('loading my tools')\n"  # at import time, as a learner's file may
        "sys.stdout.write('still loading\\n')\n"
        "def get_weather(city: str) -> str:\n"
        '    """Weather."""\n'
        "    print('tool says hi')\n"
        "    return 'sunny'\n"
    )
    result = fc("run", QUESTION, "--tools", "chatty.py", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "ok"
    assert "tool says hi" in result.stderr
    assert "loading my tools\nstill loading\n" in result.stderr


def test_a_tool_without_a_description_is_pointed_out(fc, tmp_path: Path) -> None:
    (tmp_path / "bare.py").write_text("def get_weather(city: str) -> str:\n    return 'sunny'\n")
    result = fc("run", QUESTION, "--tools", "bare.py", "-o", "t")
    assert result.returncode == 0, result.stderr
    assert "note: tool get_weather has no description" in result.stdout
    assert load(tmp_path / "t/manifest.json")["notes"][0].startswith(
        "tool get_weather has no description"
    )


def test_an_unknown_demo_fault_is_named_as_such(fc) -> None:
    assert_clean_error(
        fc("run", QUESTION, "--demo-fault", "nope"), 2, "unknown --demo-fault 'nope'", "bad-json"
    )
