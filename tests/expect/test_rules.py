"""The rules of `fc expect` (fccli/expect), each holding and broken on the example traces,
through the API the pytest plugin calls: `load_rules`, `evaluate`, `evaluate_steps`."""

from __future__ import annotations

import json
import shutil

import pytest

from fccli.core.errors import UsageError
from fccli.core.models import Request, Response
from fccli.expect import Step, evaluate, evaluate_steps, load_rules
from tests.conftest import REPO

EXAMPLES = REPO / "traces" / "examples"

ORDER_3 = """[order]
calls = [{tool = "get_weather", arguments = {city = "北京"}},
         {tool = "get_weather", arguments = {city = "上海"}},
         {tool = "get_weather", arguments = {city = "深圳"}}]
exact = true
"""

# (rules, trace it holds on, trace it breaks on, (rule, step, file, place), words of the message)
CASES = [
    ("max_steps = 2", "hangzhou", None, None, None),
    ("max_steps = 1", None, "hangzhou", ("max_steps", 2, None, None), "2 steps, at most 1"),
    (
        'stop_reason = ["end_turn", "stop_sequence"]',
        "hangzhou-gemini",
        None,
        None,
        None,
    ),
    (
        'stop_reason = "max_tokens"',
        None,
        "hangzhou-responses",
        ("stop_reason", 2, "2-response.json", "$.stop_reason"),
        "stops with end_turn, max_tokens expected",
    ),
    (
        "no_error_results = true",
        "three-cities",
        "unknown-city",
        ("no_error_results", 2, "2-request.json", "$.messages[2].content[0]"),
        "the result of get_weather (call_b9a07a70e3fb7c9d9b9e3516) is an error: "
        "\"get_weather failed: unknown city '巴黎'",
    ),
    ("no_error_results = false", "unknown-city", None, None, None),
    ('tools_used = "get_weather"', "hangzhou-stream", None, None, None),
    (
        'tools_used = ["send_email"]',
        None,
        "hangzhou",
        ("tools_used", None, None, None),
        "send_email is never called (the calls: get_weather)",
    ),
    ('tools_not_used = ["send_email"]', "hangzhou", None, None, None),
    (
        'tools_not_used = "get_weather"',
        None,
        "three-cities",
        ("tools_not_used", 1, "1-response.json", "$.content[2]"),
        "get_weather is called 3 times",
    ),
    (
        '[order]\ncalls = [{tool = "get_weather", arguments = {city = "北京"}}, '
        '{tool = "get_weather", arguments = {city = "深圳"}}]',
        "three-cities",
        None,
        None,
        None,
    ),
    (
        '[order]\nname = "south first"\ncalls = [{tool = "get_weather", arguments = {city = "深圳"}}, '
        '{tool = "get_weather", arguments = {city = "北京"}}]',
        None,
        "three-cities",
        ("south first", 1, "1-response.json", "$.content[4]"),
        'get_weather {"city": "北京"} is not called after this call (get_weather {"city": "深圳"})',
    ),
    ('[order]\ncalls = ["send_email"]', None, "hangzhou", ("order", None, None, None), "never"),
    (ORDER_3, "three-cities", None, None, None),
    (
        ORDER_3.replace("上海", "杭州"),
        None,
        "three-cities",
        ("order", 1, "1-response.json", "$.content[3]"),
        'call 2 is get_weather {"city": "上海"}, get_weather {"city": "杭州"} expected',
    ),
    (
        '[order]\ncalls = ["get_weather", "get_weather"]\nexact = true',
        None,
        "three-cities",
        ("order", 1, "1-response.json", "$.content[4]"),
        'call 3 (get_weather {"city": "深圳"}) is one more than the 2 expected',
    ),
    (
        '[order]\ncalls = ["get_weather", "get_weather"]\nexact = true',
        None,
        "hangzhou",
        ("order", None, None, None),
        "1 call(s), 2 expected: get_weather is missing",
    ),
    (
        '[arguments]\ntool = "get_weather"\npath = "city"\nequals = "杭州"',
        "hangzhou-gemini",
        "unknown-city",
        ("arguments", 1, "1-response.json", "$.content[2].input.city"),
        '$.city is "巴黎", "杭州" expected',
    ),
    (
        '[arguments]\ntool = "get_weather"\npath = "city"\nequals = "上海"\nfor = "any"',
        "three-cities",
        "hangzhou",
        ("arguments", 1, "1-response.json", "$.content[2].input.city"),
        'no call of get_weather passes: $.city is "杭州", "上海" expected',
    ),
    (
        '[arguments]\ntool = "get_weather"\npath = "city"\nequals = "上海"',
        None,
        "three-cities",
        ("arguments", 1, "1-response.json", "$.content[2].input.city"),
        '$.city is "北京", "上海" expected (and 1 more)',
    ),
    (
        '[arguments]\ntool = "get_weather"\npath = "$.city"\nmatches = "^\\\\w{2}$"',
        "three-cities",
        "no-city",
        ("arguments", 1, "1-response.json", "$.content[2].input.city"),
        "which does not match",
    ),
    (
        '[arguments]\ntool = "get_weather"\npath = "country"\nequals = "中国"',
        None,
        "hangzhou",
        ("arguments", 1, "1-response.json", "$.content[2].input.country"),
        "the arguments have no $.country",
    ),
    (  # a key that is no name is written as JSONPath and jq read it: ["x-unit"], not .x-unit
        '[arguments]\ntool = "get_weather"\npath = "x-unit"\nequals = "C"',
        None,
        "hangzhou",
        ("arguments", 1, "1-response.json", '$.content[2].input["x-unit"]'),
        'the arguments have no $["x-unit"]',
    ),
    (
        '[arguments]\ntool = "send_email"\nequals = {}',
        None,
        "hangzhou",
        ("arguments", None, None, None),
        "send_email is never called: no arguments to check",
    ),
    (
        '[[arguments]]\ntool = "get_weather"\n[arguments.schema]\ntype = "object"\n'
        'required = ["city"]\nadditionalProperties = false\n'
        '[arguments.schema.properties.city]\ntype = "string"\nmaxLength = 3',
        "three-cities",
        "no-city",
        ("arguments", 1, "1-response.json", "$.content[2].input"),
        "fails the schema: $.city: 8 character(s), more than maxLength 3",
    ),
    (
        '[answer]\ncontains = ["21°C", "跑步"]\nmatches = "空气质量指数 \\\\d+"',
        "hangzhou-stream",
        "three-cities",
        ("answer", 2, "2-response.json", "$.content[1]"),
        'the final answer lacks "21°C": "北京现在 12°C',
    ),
    (
        '[answer]\nnot_contains = "没查到"',
        "hangzhou",
        "unknown-city",
        ("answer", 2, "2-response.json", "$.content[1]"),
        'the final answer holds "没查到"',
    ),
    (
        '[answer]\nmatches = "HANGZHOU|杭州"\nignore_case = true',
        "hangzhou-responses",
        "no-city",
        ("answer", 2, "2-response.json", "$.content[1]"),
        "does not match 'HANGZHOU|杭州'",
    ),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_each_rule_holds_on_one_trace_and_is_broken_on_another(case: int) -> None:
    text, holds, breaks, where, words = CASES[case]
    rules = load_rules(text, source="case.toml")
    assert len(rules) == (0 if text.endswith("false") else 1)
    if holds is not None:
        assert evaluate(EXAMPLES / holds, rules) == []
    if breaks is not None:
        [broken] = evaluate(EXAMPLES / breaks, rules)
        assert (broken.rule, broken.step, broken.file, broken.place) == where
        assert words in broken.message


def test_steps_in_memory_are_checked_as_a_trace_of_them_would_be() -> None:
    trace = EXAMPLES / "unknown-city"
    steps = [
        Step(
            n,
            Request.model_validate_json((trace / f"{n}-request.json").read_bytes()),
            Response.model_validate_json((trace / f"{n}-response.json").read_bytes()),
        )
        for n in (1, 2)
    ]
    rules = load_rules(
        'max_steps = 1\nno_error_results = true\ntools_used = "get_weather"\n'
        '[answer]\ncontains = "巴黎"'
    )
    assert evaluate_steps(steps, rules) == evaluate(trace, rules)
    assert [b.rule for b in evaluate_steps(steps, rules)] == ["max_steps", "no_error_results"]
    # a step whose response is missing: no final answer, said so
    [broken] = evaluate_steps(
        [steps[0], Step(2, steps[1].request)], load_rules('[answer]\ncontains = "巴黎"')
    )
    assert broken.message == "the run has no final answer: its last step has no response"
    assert broken.said() == "answer: the run has no final answer: its last step has no response"
    [broken] = evaluate_steps(steps, load_rules("max_steps = 1"))
    assert broken.said() == "max_steps at step 2: 2 steps, at most 1 expected"


def test_a_trace_with_only_its_wire_files_is_read_through_its_format(tmp_path) -> None:
    rules = load_rules(
        'tools_used = "get_weather"\nstop_reason = "tool_use"\n'
        '[arguments]\ntool = "get_weather"\npath = "city"\nequals = "北京"'
    )
    for name in ("hangzhou-gemini", "hangzhou-responses"):
        trace = tmp_path / name
        shutil.copytree(EXAMPLES / name, trace)
        for internal in trace.glob("?-*[a-z].json"):
            if internal.name.count(".") == 1:
                internal.unlink()
        assert not (trace / "1-response.json").exists()
        assert [b.to_json_dict() for b in evaluate(trace, rules)] == [
            b.to_json_dict() for b in evaluate(EXAMPLES / name, rules)
        ]
        assert [(b.rule, b.place) for b in evaluate(trace, rules)] == [
            ("stop_reason", "$.stop_reason"),
            ("arguments", f"$.content[{2 if name.endswith('gemini') else 1}].input.city"),
        ]


def test_a_failed_run_handed_back_as_a_success_is_an_error_result(tmp_path) -> None:
    trace = tmp_path / "as-success"
    shutil.copytree(EXAMPLES / "unknown-city", trace)
    request = json.loads((trace / "2-request.json").read_text("utf-8"))
    assert request["messages"][2]["content"][0].pop("is_error") is True
    (trace / "2-request.json").write_text(json.dumps(request), "utf-8")
    [broken] = evaluate(trace, load_rules("no_error_results = true"))
    assert (broken.step, broken.file, broken.place) == (
        1,
        "manifest.json",
        "$.steps[0].tool_runs[0]",
    )
    assert "the result of get_weather (call_b9a07a70e3fb7c9d9b9e3516) is an error" in broken.message


BAD = [
    ("max_steps = ", 1, "not TOML: Invalid value"),
    ("max_steps = 2\nmax_step = 3", 2, "unknown rule max_step (known: max_steps, stop_reason"),
    (
        "\n[[arguments]]\ntool = 'a'\nequals = 1\n\n[[arguments]]\ntool = 'b'\nequal = 2",
        8,
        "unknown key equal in arguments (known: name, tool, path",
    ),
    ("[answer]\ncontains = 'x'\n[answer.fuzzy]\nx = 1", 3, "unknown key fuzzy in answer"),
    ('stop_reason = "stop"', 1, "unknown stop reason 'stop' (fc's: end_turn, tool_use"),
    ("max_steps = 0", 1, "max_steps takes a whole number, 1 or more"),
    ("[answer]\nignore_case = true\nmatches = '('", 3, "not a regular expression"),
    ("[arguments]\ntool = 'a'\npath = 'a..b'\nequals = 1", 3, "cannot read the path a..b"),
    (
        "[arguments]\ntool = 'a'\nschema = {type = 'string', format = 'email'}",
        3,
        "fc does not check the schema keyword format",
    ),
    ("[arguments]\ntool = 'a'", 1, "arguments needs equals, matches or schema"),
    ("[order]\ncalls = [{tool = 'a', args = {}}]", 2, "each call is a tool name, or a table"),
    ("tools_used = [1]", 1, "tools_used takes a string or a list of strings"),
    (
        "[arguments]\ntool = 'a'\npath = 'when'\nequals = 2026-12-02",
        4,
        "a TOML date or time is not",
    ),
    (
        "[arguments]\ntool = 'a'\nschema = " + "{a = " * 70 + "1" + "}" * 70,
        3,
        "nested deeper than 64",
    ),
]


@pytest.mark.parametrize("text, line, words", BAD)
def test_a_bad_rules_file_is_a_usage_error_naming_the_line(
    text: str, line: int, words: str
) -> None:
    with pytest.raises(UsageError) as raised:
        load_rules(text, source="bad.toml")
    assert raised.value.exit_code == 2
    said = str(raised.value)
    assert said.startswith(f"bad.toml, line {line}: "), said
    assert words in said
