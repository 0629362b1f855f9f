"""`fc expect TRACE RULES` as a user runs it: one line per broken rule, --json, the exit codes,
a trace cut short, a file that is not a trace, and what a hostile trace holds, printed escaped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import REPO, clean_env

EXAMPLES = REPO / "traces" / "examples"
RULES = """max_steps = 2
stop_reason = "end_turn"
no_error_results = true
tools_used = "get_weather"

[answer]
matches = "。\\n"
"""


def _rules(tmp_path: Path, text: str = RULES) -> str:
    path = tmp_path / "rules.toml"
    path.write_text(text, "utf-8")
    return str(path)


def test_all_rules_hold_exit_0_and_a_broken_one_exits_1_with_its_step_and_place(
    fc, tmp_path
) -> None:
    rules = _rules(tmp_path)
    held = fc("expect", str(EXAMPLES / "hangzhou"), rules)
    assert held.returncode == 0, held.stderr
    assert held.stdout == "all 5 rule(s) hold\n"
    broken = fc("expect", str(EXAMPLES / "unknown-city"), rules)
    assert broken.returncode == 1
    lines = broken.stdout.splitlines()
    assert lines[0].startswith(
        "✗ no_error_results at step 2, 2-request.json $.messages[2].content[0]: the result of "
        "get_weather (call_b9a07a70e3fb7c9d9b9e3516) is an error: "
    )
    assert lines[1:] == ["1 of 5 rule(s) broken"]
    assert broken.stderr == ""  # said once, after the broken rules; exit 1 says it failed
    zh = fc("expect", str(EXAMPLES / "unknown-city"), rules, env=clean_env(FC_LANG="zh"))
    assert zh.returncode == 1
    assert "✗ no_error_results 在第 2 步，2-request.json $.messages[2].content[0]：" in zh.stdout
    assert "get_weather（call_b9a07a70e3fb7c9d9b9e3516）的结果是错误" in zh.stdout


def test_json_is_the_broken_rules_in_english(fc, tmp_path) -> None:
    result = fc(
        "expect",
        str(EXAMPLES / "three-cities" / "2-request.deepseek.json"),
        _rules(
            tmp_path,
            'tools_not_used = "get_weather"\nstop_reason = "end_turn"\n[answer]\ncontains = "x"',
        ),
        "--json",
        env=clean_env(FC_LANG="zh"),
    )
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["checked"] == 3
    assert report["broken"] == [
        {
            "rule": "tools_not_used",
            "step": None,
            "file": "2-request.deepseek.json",
            "place": "$.messages[1].content[2]",
            "message": "get_weather is called 3 times",
        },
        {
            "rule": "stop_reason",
            "step": None,
            "file": "2-request.deepseek.json",
            "place": None,
            "message": "no stop reason: a request waits for its answer (end_turn expected)",
        },
        {
            "rule": "answer",
            "step": None,
            "file": "2-request.deepseek.json",
            "place": None,
            "message": "a request has no final answer (it waits for one)",
        },
    ]


def test_bad_rules_and_unreadable_traces_exit_2_in_one_line(fc, tmp_path) -> None:
    trace = str(EXAMPLES / "hangzhou")
    for text, said in [
        (
            "max_steps = 2\n[answer]\ncontain = 'x'\n",
            "rules.toml, line 3: unknown key contain in answer",
        ),
        ("[order\n", "rules.toml, line 1: not TOML: "),
        ("# nothing yet\n", "rules.toml: holds no rule"),
    ]:
        result = fc("expect", trace, _rules(tmp_path, text))
        assert result.returncode == 2
        assert said in result.stderr
        assert len(result.stderr.splitlines()) == 1, result.stderr
    (tmp_path / "latin1.toml").write_bytes("max_steps = 2 # \xe9\n".encode("latin-1"))
    result = fc("expect", trace, str(tmp_path / "latin1.toml"))
    assert (result.returncode, result.stderr) == (
        2,
        f"fc: error: {tmp_path / 'latin1.toml'}: is not UTF-8 text (byte 16)\n",
    )
    rules = _rules(tmp_path)
    for target, said in [
        (tmp_path / "nowhere", "nowhere: no such file"),
        (tmp_path, "is not an fc trace: it has no manifest.json"),
        (tmp_path / "rules.toml", "not valid JSON"),
    ]:
        result = fc("expect", str(target), rules)
        assert result.returncode == 2, result.stdout
        assert said in result.stderr
    assert fc("expect", trace, str(tmp_path / "none.toml")).returncode == 2


def test_a_trace_cut_short_is_read_as_far_as_it_goes(fc, tmp_path) -> None:
    trace = tmp_path / "cut"
    shutil.copytree(EXAMPLES / "unknown-city", trace)
    for name in ("2-response.json", "2-response.deepseek.json", "2-request.json"):
        (trace / name).unlink()
    (trace / "2-request.deepseek.json").write_text('{"model": ', "utf-8")
    result = fc("expect", str(trace), _rules(tmp_path))
    assert result.returncode == 1
    out = result.stdout
    assert "note: step 2: " in out  # what could not be read, said before the rules
    # the error result comes from the manifest's tool run now: no request holds it
    assert "✗ no_error_results at step 1, manifest.json $.steps[0].tool_runs[0]: " in out
    assert "✗ stop_reason: no stop reason: the last step has no response (end_turn expected)" in out
    assert "✗ answer: the run has no final answer: its last step has no response" in out


def test_what_the_trace_holds_is_printed_escaped(fc, tmp_path) -> None:
    trace = tmp_path / "hostile"
    shutil.copytree(EXAMPLES / "hangzhou", trace)
    response = json.loads((trace / "1-response.json").read_text("utf-8"))
    response["content"][2]["name"] = "get_\x1b[2Jweather"
    response["content"][2]["input"]["city"] = "\x1b]52;c;cHduZWQ=\x07"
    (trace / "1-response.json").write_text(json.dumps(response), "utf-8")
    answer = json.loads((trace / "2-response.json").read_text("utf-8"))
    answer["content"][1]["text"] = "\x1b[31mred\x9b [bold]not markup[/]"
    (trace / "2-response.json").write_text(json.dumps(answer), "utf-8")
    rules = _rules(
        tmp_path,
        'tools_used = "get_weather"\n[order]\ncalls = ["x"]\n[answer]\ncontains = "跑步"\n'
        '[arguments]\ntool = "get_\\u001b[2Jweather"\npath = "city"\nequals = "杭州"',
    )
    result = fc("expect", str(trace), rules)
    assert result.returncode == 1
    out = result.stdout
    assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out
    assert "(the calls: get_\\x1b[2Jweather)" in out
    assert '"\\u001b[31mred\\x9b [bold]not markup[/]"' in out  # JSON-quoted, markup as text
    assert '$.city is "\\u001b]52;c;cHduZWQ=\\u0007", "杭州" expected' in out
