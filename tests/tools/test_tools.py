"""fccli/tools: a function becomes a tool; a call intent becomes a result, never a crash.

The model only states an intent (a name and some arguments). The program looks the name up,
validates the arguments like user input, executes, and hands back every failure as an error
result the model can read.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from fccli.core.errors import UsageError
from fccli.core.models import ToolResultBlock, ToolUseBlock
from fccli.tools import weather
from fccli.tools.execute import ToolRun, result_text, run_call, run_calls
from fccli.tools.loader import BUILTIN_SETS, load_tool_file, load_toolset
from fccli.tools.registry import ToolError, ToolSet, clean_schema, tool_from_function

# ---------------------------------------------------------------------------------------------
# helpers and sample tools


def schema_nodes(schema: Any) -> Iterator[dict[str, Any]]:
    """Every sub-schema of a JSON Schema (property *names* are not schema positions)."""
    if not isinstance(schema, dict):
        return
    yield schema
    for key in ("properties", "$defs"):
        for sub in schema.get(key, {}).values():
            yield from schema_nodes(sub)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for sub in schema.get(key, []):
            yield from schema_nodes(sub)
    for key in ("items", "additionalProperties", "not"):
        yield from schema_nodes(schema.get(key))


_ids = iter(range(10**9))


def use(name: str, raw_arguments: str | None = None, **arguments: Any) -> ToolUseBlock:
    return ToolUseBlock(
        id=f"call_{next(_ids)}", name=name, input=arguments, raw_arguments=raw_arguments
    )


def search(
    query: Annotated[str, Field(description="what to look for")],
    title: str,
    limit: Annotated[int, Field(description="at most this many")] = 5,
    tag: str | None = None,
) -> dict[str, Any]:
    """Search the notes.

    Returns the matching notes, best first.
    """
    return {"query": query, "title": title, "limit": limit, "tag": tag}


def add(a: int, b: int = 2) -> int:
    """Add two integers."""
    return a + b


def echo(text: str) -> str:
    """Say it back."""
    return text


def broken(x: int) -> int:
    """Always fails."""
    raise ValueError(f"cannot handle {x}")


def refuse(x: int) -> int:
    """Fails on purpose, with a message for the model."""
    raise ToolError(f"no data for {x}; try a number below 10")


def undocumented(x: int) -> int:
    return x


class Query(BaseModel):
    """A search over the archive."""

    q: Annotated[str, Field(description="search words")]
    limit: int = 3


class Inner(BaseModel):
    """A book."""

    title: str
    year: int | None = None


class Shelf(BaseModel):
    books: list[Inner]
    label: str = "main"


class Bare(BaseModel):
    x: int


def bare(b: Bare) -> int:
    return b.x


received: list[BaseModel] = []


def find(query: Query) -> dict[str, Any]:
    received.append(query)
    return {"q": query.q, "limit": query.limit}


def shelve(shelf: Shelf) -> int:
    """Put books on a shelf."""
    received.append(shelf)
    return len(shelf.books)


@pytest.fixture
def tools() -> ToolSet:
    return ToolSet(
        "test",
        [tool_from_function(f) for f in (search, add, echo, broken, refuse, find, shelve)],
    )


# ---------------------------------------------------------------------------------------------
# registry: the schema from type hints


def test_schema_properties_come_from_type_hints_and_field_descriptions() -> None:
    schema = tool_from_function(search).spec().input_schema
    assert schema["type"] == "object"
    assert schema["properties"]["query"] == {"type": "string", "description": "what to look for"}
    assert schema["properties"]["title"] == {"type": "string"}
    assert schema["properties"]["limit"] == {
        "type": "integer",
        "description": "at most this many",
        "default": 5,
    }
    assert schema["properties"]["tag"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "default": None,
    }


def test_only_parameters_without_default_are_required() -> None:
    assert tool_from_function(search).spec().input_schema["required"] == ["query", "title"]
    assert tool_from_function(add).spec().input_schema["required"] == ["a"]


def test_a_function_with_all_defaults_has_no_required_list() -> None:
    def ping(times: int = 1) -> str:
        """Ping."""
        return "pong" * times

    assert "required" not in tool_from_function(ping).spec().input_schema


def test_description_is_the_cleaned_docstring() -> None:
    tool = tool_from_function(search)
    assert tool.description == "Search the notes.\n\nReturns the matching notes, best first."
    assert tool.spec().description == tool.description


def test_function_without_docstring_has_empty_description() -> None:
    assert tool_from_function(undocumented).description == ""


def test_tool_name_is_the_function_name_unless_given() -> None:
    assert tool_from_function(add).name == "add"
    assert tool_from_function(add, name="plus").spec().name == "plus"


def test_no_pydantic_title_keys_in_the_schema_of_a_signature() -> None:
    for node in schema_nodes(tool_from_function(search).spec().input_schema):
        assert "title" not in node, node


def test_a_model_tools_schema_is_the_models_own_titles_and_all() -> None:
    # Article 004 passes `WeatherParams.model_json_schema()` as the parameters: fc shows the same.
    for func, model in ((find, Query), (shelve, Shelf), (bare, Bare)):
        schema = tool_from_function(func).spec().input_schema
        assert schema == model.model_json_schema(), func.__name__
        assert list(schema) == list(model.model_json_schema())
    assert tool_from_function(find).spec().input_schema["properties"]["q"]["title"] == "Q"


def test_a_property_literally_named_title_survives() -> None:
    schema = tool_from_function(search).spec().input_schema
    assert list(schema["properties"]) == ["query", "title", "limit", "tag"]
    assert "title" in schema["required"]
    nested = tool_from_function(shelve).spec().input_schema["$defs"]["Inner"]
    assert nested["properties"]["title"] == {"title": "Title", "type": "string"}
    assert nested["required"] == ["title"]


def test_clean_schema_drops_generated_titles_but_keeps_title_properties_and_values() -> None:
    raw = {
        "title": "Doc",
        "type": "object",
        "properties": {
            "title": {"title": "Title", "type": "string"},
            "meta": {
                "title": "Meta",
                "type": "object",
                "additionalProperties": {"title": "Value", "type": "string"},
            },
            "tags": {"title": "Tags", "type": "array", "items": {"title": "Tag", "type": "string"}},
            "kind": {"title": "Kind", "anyOf": [{"title": "A", "const": "a"}, {"type": "null"}]},
        },
        "required": ["title"],
        "default": {"title": "a value, not a schema"},
        "$defs": {"title": {"title": "T", "type": "string"}},
    }
    assert clean_schema(raw) == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "meta": {"type": "object", "additionalProperties": {"type": "string"}},
            "tags": {"type": "array", "items": {"type": "string"}},
            "kind": {"anyOf": [{"const": "a"}, {"type": "null"}]},
        },
        "required": ["title"],
        "default": {"title": "a value, not a schema"},
        "$defs": {"title": {"type": "string"}},
    }


def test_schema_keys_are_in_reading_order_type_first() -> None:
    schema = tool_from_function(search).spec().input_schema
    assert list(schema) == ["type", "properties", "required", "additionalProperties"]
    assert list(schema["properties"]["query"]) == ["type", "description"]
    assert list(schema["properties"]["limit"]) == ["type", "description", "default"]
    model_spec = tool_from_function(find).spec()
    # A model's schema keeps the model's own order; its docstring is the tool's description too.
    assert list(model_spec.input_schema) == list(Query.model_json_schema())
    assert model_spec.description == model_spec.input_schema["description"]


def test_clean_schema_orders_keys_without_losing_any() -> None:
    raw = {"required": ["x"], "properties": {"x": {"type": "string"}}, "zzz": 1, "type": "object"}
    cleaned = clean_schema(raw)
    assert list(cleaned) == ["type", "properties", "required", "zzz"]
    assert cleaned == raw


def test_extra_arguments_are_refused_by_the_schema() -> None:
    assert tool_from_function(add).spec().input_schema["additionalProperties"] is False


def test_extra_arguments_are_refused_when_called(tools: ToolSet) -> None:
    run = run_call(tools, use("add", a=1, c=3))
    assert run.result.is_error
    assert run.error_kind == "invalid_arguments"
    assert "c: Extra inputs are not permitted" in run.result.content


def test_var_args_and_kwargs_are_not_parameters() -> None:
    def flexible(city: str, *args: Any, **kwargs: Any) -> str:
        """Flexible."""
        return city

    tool = tool_from_function(flexible)
    assert list(tool.spec().input_schema["properties"]) == ["city"]
    assert run_call(ToolSet("t", [tool]), use("flexible", city="x")).result.content == "x"


def test_a_parameter_without_type_hint_is_a_usage_error() -> None:
    def vague(city):  # type: ignore[no-untyped-def]
        return city

    with pytest.raises(UsageError, match="parameter 'city' has no type hint"):
        tool_from_function(vague)


def test_an_unresolvable_type_hint_is_a_usage_error() -> None:
    def odd(city: NoSuchType) -> str:  # type: ignore[name-defined]  # noqa: F821
        return "x"

    with pytest.raises(UsageError, match="tool odd: cannot read its type hints"):
        tool_from_function(odd)


# ---------------------------------------------------------------------------------------------
# registry: a tool taking one pydantic model


def test_a_model_tool_gets_the_models_schema() -> None:
    tool = tool_from_function(find)
    assert tool.takes_model
    assert tool.arguments_model is Query
    assert tool.spec().description == "A search over the archive."
    assert tool.spec().input_schema == {
        "description": "A search over the archive.",
        "properties": {
            "q": {"description": "search words", "title": "Q", "type": "string"},
            "limit": {"default": 3, "title": "Limit", "type": "integer"},
        },
        "required": ["q"],
        "title": "Query",
        "type": "object",
    }


def test_a_model_tool_receives_the_validated_model(tools: ToolSet) -> None:
    received.clear()
    run = run_call(tools, use("find", q="tea", limit="7"))
    assert not run.result.is_error
    assert len(received) == 1
    assert isinstance(received[0], Query)
    assert received[0] == Query(q="tea", limit=7)
    assert json.loads(run.result.content) == {"q": "tea", "limit": 7}


def test_a_model_tool_receives_nested_models_with_defaults(tools: ToolSet) -> None:
    received.clear()
    run = run_call(tools, use("shelve", books=[{"title": "红楼梦"}, {"title": "B", "year": 1}]))
    assert run.result.content == "2"
    (shelf,) = received
    assert isinstance(shelf, Shelf)
    assert shelf.label == "main"
    assert all(isinstance(b, Inner) for b in shelf.books)


def test_a_model_tool_validates_the_model(tools: ToolSet) -> None:
    run = run_call(tools, use("shelve", books=[{"year": 2000}]))
    assert run.error_kind == "invalid_arguments"
    assert "books.0.title: Field required" in run.result.content


def test_a_model_tools_description_falls_back_to_the_model_docstring() -> None:
    assert tool_from_function(find).description == "A search over the archive."
    assert tool_from_function(shelve).description == "Put books on a shelf."
    assert tool_from_function(bare).description == ""


# ---------------------------------------------------------------------------------------------
# registry: ToolSet


def test_a_toolset_offers_its_tools_in_order() -> None:
    ts = ToolSet("t", [tool_from_function(echo), tool_from_function(add)])
    assert ts.names() == ["echo", "add"]
    assert [s.name for s in ts.specs()] == ["echo", "add"]
    assert ts.get("add") is ts.tools["add"]
    assert ts.get("nope") is None


def test_a_toolset_refuses_two_tools_of_the_same_name() -> None:
    with pytest.raises(UsageError, match="two tools are named 'add'"):
        ToolSet("t", [tool_from_function(add), tool_from_function(echo, name="add")])


# ---------------------------------------------------------------------------------------------
# execute: every failure is an error result the model can act on


def test_unknown_tool_is_an_error_listing_the_offered_tools(tools: ToolSet) -> None:
    run = run_call(tools, use("get_weather", city="杭州"))
    assert run.result.is_error
    assert run.error_kind == "unknown_tool"
    assert "unknown tool 'get_weather'" in run.result.content
    assert "search, add, echo, broken, refuse, find, shelve" in run.result.content


def test_unknown_tool_in_an_empty_set_says_none_are_offered() -> None:
    run = run_call(ToolSet("empty", []), use("x"))
    assert run.error_kind == "unknown_tool"
    assert run.result.content.endswith("the tools offered are: (none)")


def test_a_missing_argument_names_the_field_and_shows_the_schema(tools: ToolSet) -> None:
    run = run_call(tools, use("add", b=1))
    assert run.result.is_error
    assert run.error_kind == "invalid_arguments"
    content = run.result.content
    assert content.startswith("invalid arguments for add: a: Field required.")
    schema = json.dumps(tool_from_function(add).spec().input_schema, ensure_ascii=False)
    assert content.endswith(f"Call it again with arguments that match its schema: {schema}")
    assert "(got" not in content  # nothing was sent for a missing field


def test_a_wrong_type_shows_what_was_got(tools: ToolSet) -> None:
    run = run_call(tools, use("echo", text=42))
    assert run.error_kind == "invalid_arguments"
    assert "text: Input should be a valid string (got 42)" in run.result.content


def test_a_wrong_type_shows_a_non_ascii_value_as_sent(tools: ToolSet) -> None:
    run = run_call(tools, use("add", a="三"))
    assert "a: Input should be a valid integer" in run.result.content
    assert '(got "三")' in run.result.content


def test_every_validation_problem_is_listed(tools: ToolSet) -> None:
    run = run_call(tools, use("search", query=1, limit="many", extra=True))
    content = run.result.content
    for where in ("query:", "title: Field required", "limit:", "extra: Extra inputs"):
        assert where in content
    assert '(got "many")' in content


def test_invalid_json_arguments_say_so_and_what_is_missing() -> None:
    ts = weather.toolset()
    call = ToolUseBlock(id="c1", name="get_weather", input={}, raw_arguments='{"city": "杭')
    run = run_call(ts, call)
    assert run.result.is_error
    assert run.error_kind == "invalid_json"
    content = run.result.content
    assert content.startswith(
        'the arguments were not a JSON object (\'{"city": "杭\'), so they were read as {}. '
    )
    assert "invalid arguments for get_weather: city: Field required" in content
    assert '"required": ["city"]' in content


def test_long_invalid_json_arguments_are_shown_cut() -> None:
    raw = '{"city": "' + "x" * 500
    run = run_call(weather.toolset(), use("get_weather", raw_arguments=raw))
    assert run.error_kind == "invalid_json"
    assert repr(raw[:200] + "…") in run.result.content
    assert raw not in run.result.content


def test_a_tool_raising_valueerror_gives_name_raised_valueerror(tools: ToolSet) -> None:
    run = run_call(tools, use("broken", x=7))
    assert run.result.is_error
    assert run.error_kind == "tool_raised"
    assert run.result.content == "broken raised ValueError: cannot handle 7"


def test_a_tool_error_is_given_without_the_exception_type(tools: ToolSet) -> None:
    run = run_call(tools, use("refuse", x=12))
    assert run.result.is_error
    assert run.error_kind == "tool_error"
    assert run.result.content == "refuse failed: no data for 12; try a number below 10"


@pytest.mark.parametrize(
    ("call", "kind"),
    [
        (use("nope"), "unknown_tool"),
        (use("add", raw_arguments="{oops"), "invalid_json"),
        (use("add", a="x"), "invalid_arguments"),
        (use("refuse", x=1), "tool_error"),
        (use("broken", x=1), "tool_raised"),
        (use("add", a=1), None),
    ],
)
def test_every_result_answers_its_call_by_id(tools: ToolSet, call: ToolUseBlock, kind: str) -> None:
    run = run_call(tools, call)
    assert isinstance(run.result, ToolResultBlock)
    assert run.result.tool_use_id == call.id
    assert run.call is call
    assert run.error_kind == kind
    assert run.result.is_error is (kind is not None)


# ---------------------------------------------------------------------------------------------
# execute: what a successful call hands back


def test_a_successful_result_is_the_json_of_the_return_value_non_ascii_kept(
    tools: ToolSet,
) -> None:
    run = run_call(tools, use("search", query="天气", title="杭州"))
    assert not run.result.is_error
    assert run.error_kind is None
    assert run.result.content == ('{"query": "天气", "title": "杭州", "limit": 5, "tag": null}')


def test_a_returned_string_is_given_as_is(tools: ToolSet) -> None:
    run = run_call(tools, use("echo", text='"quoted" 多云\n'))
    assert run.result.content == '"quoted" 多云\n'


def test_an_int_return_is_json(tools: ToolSet) -> None:
    assert run_call(tools, use("add", a=40)).result.content == "42"


def test_result_text_of_a_model_is_its_json() -> None:
    assert result_text(Inner(title="书", year=None)) == '{"title": "书", "year": null}'


def test_result_text_of_none_and_lists() -> None:
    assert result_text(None) == "null"
    assert result_text([1, "二", {"a": True}]) == '[1, "二", {"a": true}]'


def test_a_return_value_json_cannot_write_is_still_a_result() -> None:
    @dataclasses.dataclass
    class Reading:
        at: datetime.date
        values: set[int]

    def read() -> dict[str, Any]:
        """Read the meter."""
        return {"reading": Reading(datetime.date(2024, 5, 1), {3}), "book": Inner(title="x")}

    run = run_call(ToolSet("t", [tool_from_function(read)]), use("read"))
    assert not run.result.is_error
    assert json.loads(run.result.content) == {
        "reading": {"at": "2024-05-01", "values": [3]},
        "book": {"title": "x", "year": None},
    }


@functools.cache
def _every_kind_of_tool() -> ToolSet:
    # Built once: the pydantic models of six tools cost ten times what a call does.
    return ToolSet("t", [tool_from_function(f) for f in (search, add, echo, broken, find, shelve)])


# 100, not 200: a crash-only fuzz whose argument keys are random text, so nearly every example
# takes the same few paths (unknown tool, missing or wrong arguments, raw text that is not JSON),
# each also pinned by an example test above; the second hundred cost ~1.4 s of a CI worker.
@settings(deadline=None)
@given(
    name=st.sampled_from(["add", "search", "echo", "find", "shelve", "broken", "zzz"]),
    arguments=st.dictionaries(
        st.text(max_size=8),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner),
            max_leaves=6,
        ),
        max_size=4,
    ),
    raw=st.none() | st.text(max_size=30),
)
def test_no_call_a_model_can_send_crashes_run_call(
    name: str, arguments: dict[str, Any], raw: str | None
) -> None:
    call = ToolUseBlock(
        id="c", name=name, input={} if raw is not None else arguments, raw_arguments=raw
    )
    run = run_call(_every_kind_of_tool(), call)
    assert run.result.tool_use_id == "c"
    assert run.result.is_error is (run.error_kind is not None)
    json.dumps(run.manifest_entry())


# ---------------------------------------------------------------------------------------------
# execute: run_calls


def test_run_calls_runs_concurrently_and_returns_results_in_call_order() -> None:
    finished: list[str] = []

    def nap(label: str, seconds: float) -> str:
        """Sleep, then say the label."""
        time.sleep(seconds)
        finished.append(label)
        return label

    ts = ToolSet("t", [tool_from_function(nap)])
    # gaps wide enough for a loaded CI machine; the barrier test below proves overlap exactly
    sleeps = {"a": 0.3, "b": 0.2, "c": 0.01, "d": 0.2}
    calls = [use("nap", label=k, seconds=s) for k, s in sleeps.items()]
    start = time.perf_counter()
    runs = run_calls(ts, calls)
    elapsed = time.perf_counter() - start
    assert [r.result.content for r in runs] == ["a", "b", "c", "d"]
    assert [r.result.tool_use_id for r in runs] == [c.id for c in calls]
    assert finished[0] == "c"  # they did finish out of order
    assert elapsed < sum(sleeps.values()) - 0.15
    assert all(r.duration_ms >= sleeps[r.result.content] * 1000 * 0.9 for r in runs)


def test_run_calls_really_runs_a_turns_calls_at_the_same_time() -> None:
    barrier = threading.Barrier(3, timeout=5)

    def meet(n: int) -> int:
        """Wait until all three calls are running."""
        barrier.wait()
        return n

    ts = ToolSet("t", [tool_from_function(meet)])
    runs = run_calls(ts, [use("meet", n=n) for n in (1, 2, 3)])
    assert [r.result.content for r in runs] == ["1", "2", "3"]
    assert not any(r.result.is_error for r in runs)


def test_run_calls_a_failing_call_does_not_stop_the_others(tools: ToolSet) -> None:
    calls = [use("add", a=1), use("nope"), use("broken", x=1), use("echo", text="ok")]
    runs = run_calls(tools, calls)
    assert [r.error_kind for r in runs] == [None, "unknown_tool", "tool_raised", None]
    assert [r.result.content for r in (runs[0], runs[3])] == ["3", "ok"]


def test_run_calls_with_no_calls_or_one_call(tools: ToolSet) -> None:
    assert run_calls(tools, []) == []
    (run,) = run_calls(tools, [use("add", a=1, b=1)])
    assert run.result.content == "2"


# ---------------------------------------------------------------------------------------------
# execute: the manifest entry


def test_manifest_entry_of_a_success(tools: ToolSet) -> None:
    call = use("add", a=1)
    entry = run_call(tools, call).manifest_entry()
    assert list(entry) == [
        "id",
        "name",
        "arguments",
        "duration_ms",
        "is_error",
        "error",
        "error_kind",
    ]
    assert entry["id"] == call.id
    assert entry["name"] == "add"
    assert entry["arguments"] == {"a": 1}
    assert entry["is_error"] is False
    assert entry["error"] is None
    assert entry["error_kind"] is None
    assert isinstance(entry["duration_ms"], float)
    assert entry["duration_ms"] >= 0


def test_manifest_entry_of_an_error_keeps_raw_arguments_and_the_error() -> None:
    call = ToolUseBlock(id="c9", name="get_weather", input={}, raw_arguments='{"city": "杭')
    run = run_call(weather.toolset(), call)
    entry = run.manifest_entry()
    assert list(entry) == [
        "id",
        "name",
        "arguments",
        "raw_arguments",
        "duration_ms",
        "is_error",
        "error",
        "error_kind",
    ]
    assert entry["id"] == "c9"
    assert entry["arguments"] == {}
    assert entry["raw_arguments"] == '{"city": "杭'
    assert entry["is_error"] is True
    assert entry["error"] == run.result.content
    assert entry["error_kind"] == "invalid_json"


def test_manifest_entry_rounds_duration_to_microseconds() -> None:
    call = use("x")
    run = ToolRun(call, ToolResultBlock(tool_use_id=call.id, content="ok"), 1.23456789)
    assert run.manifest_entry()["duration_ms"] == 1.235


# ---------------------------------------------------------------------------------------------
# weather: the built-in tool


def ask_weather(city: str) -> ToolRun:
    return run_call(weather.toolset(), use("get_weather", city=city))


def test_weather_tool_spec() -> None:
    (spec,) = weather.toolset().specs()
    assert spec.name == "get_weather"
    assert (
        spec.description == "查询某个城市当前的天气。返回温度（摄氏度）、天气状况和空气质量指数。"
    )
    assert spec.input_schema == {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "城市名，例如：杭州"}},
        "required": ["city"],
        "additionalProperties": False,
    }


def test_weather_by_chinese_name_answers_in_chinese() -> None:
    run = ask_weather("杭州")
    assert not run.result.is_error
    assert run.result.content == '{"city": "杭州", "temp_c": 21, "condition": "多云", "aqi": 38}'


def test_weather_by_english_name_answers_in_english() -> None:
    data = json.loads(ask_weather("Hangzhou").result.content)
    assert data == {"city": "Hangzhou", "temp_c": 21, "condition": "cloudy", "aqi": 38}


def test_weather_city_suffix_shi_is_not_part_of_the_name() -> None:
    assert json.loads(ask_weather("杭州市").result.content)["city"] == "杭州"
    assert json.loads(ask_weather("哈尔滨市").result.content)["temp_c"] == -8


@pytest.mark.parametrize("name", ["hangzhou", "HANGZHOU", "hAnGzHoU", "  Hangzhou "])
def test_weather_english_names_are_case_insensitive(name: str) -> None:
    assert json.loads(ask_weather(name).result.content)["city"] == "Hangzhou"


@pytest.mark.parametrize("name", ["Xi'an", "Xian", "xi an", "西安"])
def test_weather_knows_xian_by_its_aliases(name: str) -> None:
    assert json.loads(ask_weather(name).result.content)["aqi"] == 168


def test_weather_unknown_city_is_an_error_listing_the_known_cities() -> None:
    run = ask_weather("Atlantis")
    assert run.result.is_error
    assert run.error_kind == "tool_error"
    content = run.result.content
    assert content.startswith("get_weather failed: unknown city 'Atlantis'. Known cities: ")
    for city in weather.cities():
        assert f"{city['zh']} ({city['en']})" in content
    assert len(weather.cities()) == 13


def test_weather_lookup_of_a_lone_suffix_finds_nothing() -> None:
    assert weather.lookup("市") is None
    assert weather.lookup("") is None


# ---------------------------------------------------------------------------------------------
# loader


USER_TOOLS = '''\
"""My tools."""

from __future__ import annotations

import os.path
from os.path import join
from typing import Annotated

from pydantic import BaseModel, Field

LIMIT = 10


class Order(BaseModel):
    """An order."""

    item: str
    qty: int = 1


def convert(
    amount: Annotated[float, Field(description="how much")],
    currency: Annotated[str, Field(description="ISO code, e.g. CNY")] = "CNY",
) -> dict:
    """Convert an amount to US dollars.

    Rates are made up.
    """
    rate = {"CNY": 0.14, "EUR": 1.1}[currency]
    return {"usd": round(amount * rate, 2), "from": currency}


def place(order: Order) -> str:
    """Place an order."""
    return f"{order.qty} x {order.item}"


def _private(x: int) -> int:
    return x
'''


def write(tmp_path: Path, text: str, name: str = "my_tools.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_builtin_weather_set_loads_by_name() -> None:
    assert "weather" in BUILTIN_SETS
    ts = load_toolset("weather")
    assert ts.name == "weather"
    assert ts.names() == ["get_weather"]


def test_a_user_tools_file_loads_with_docstrings_and_descriptions(tmp_path: Path) -> None:
    path = write(tmp_path, USER_TOOLS)
    ts = load_toolset(str(path))
    assert ts.name == str(path)
    assert ts.names() == ["convert", "place"]
    convert, place = ts.specs()
    assert convert.description == "Convert an amount to US dollars.\n\nRates are made up."
    assert convert.input_schema == {
        "type": "object",
        "properties": {
            "amount": {"type": "number", "description": "how much"},
            "currency": {"type": "string", "description": "ISO code, e.g. CNY", "default": "CNY"},
        },
        "required": ["amount"],
        "additionalProperties": False,
    }
    assert place.description == "Place an order."
    assert place.input_schema["properties"]["item"] == {"title": "Item", "type": "string"}


def test_a_user_tools_files_tools_run(tmp_path: Path) -> None:
    ts = load_tool_file(write(tmp_path, USER_TOOLS))
    runs = run_calls(
        ts,
        [
            use("convert", amount=100),
            use("place", item="茶", qty=2),
            use("convert", amount=1, currency="XYZ"),
        ],
    )
    assert json.loads(runs[0].result.content) == {"usd": 14.0, "from": "CNY"}
    assert runs[1].result.content == "2 x 茶"
    assert runs[2].error_kind == "tool_raised"
    assert runs[2].result.content == "convert raised KeyError: 'XYZ'"


def test_private_and_imported_functions_and_classes_are_not_tools(tmp_path: Path) -> None:
    names = load_toolset(str(write(tmp_path, USER_TOOLS))).names()
    for not_a_tool in ("_private", "join", "Order", "BaseModel", "Field", "LIMIT"):
        assert not_a_tool not in names


def test_a_tools_list_limits_what_is_loaded(tmp_path: Path) -> None:
    path = write(tmp_path, USER_TOOLS + "\n\nTOOLS = [place]\n")
    assert load_toolset(str(path)).names() == ["place"]


def test_a_tools_list_may_hold_tool_objects_and_private_functions(tmp_path: Path) -> None:
    text = USER_TOOLS + textwrap.dedent(
        """
        from fccli.tools.registry import tool_from_function

        TOOLS = [tool_from_function(convert, name="to_usd"), _private]
        """
    )
    ts = load_toolset(str(write(tmp_path, text)))
    assert ts.names() == ["to_usd", "_private"]
    assert json.loads(run_call(ts, use("to_usd", amount=10)).result.content)["usd"] == 1.4


def test_a_tools_list_holding_a_non_function_is_a_usage_error(tmp_path: Path) -> None:
    path = write(tmp_path, 'def f(x: int) -> int:\n    return x\n\nTOOLS = [f, "g"]\n')
    with pytest.raises(UsageError, match="TOOLS holds 'g', which is not a function"):
        load_toolset(str(path))


def test_a_missing_tools_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such tools file"):
        load_toolset(str(tmp_path / "nowhere.py"))


def test_a_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "def ok(x: int) -> int:\n    return x\n\ndef bad(:\n    pass\n")
    with pytest.raises(UsageError) as info:
        load_toolset(str(path))
    assert str(info.value).startswith(f"{path}, line 4: syntax error:")


def test_an_import_that_raises_is_a_usage_error(tmp_path: Path) -> None:
    path = write(tmp_path, "import no_such_module_for_fc_tests\n")
    with pytest.raises(UsageError) as info:
        load_toolset(str(path))
    assert "importing it failed: ModuleNotFoundError" in str(info.value)
    assert "no_such_module_for_fc_tests" in str(info.value)


def test_a_file_raising_at_import_is_a_usage_error(tmp_path: Path) -> None:
    path = write(tmp_path, 'raise RuntimeError("no network here")\n')
    with pytest.raises(UsageError, match="importing it failed: RuntimeError: no network here"):
        load_toolset(str(path))


@pytest.mark.parametrize(
    "text",
    [
        "X = 1\n",
        "def _hidden(x: int) -> int:\n    return x\n",
        "from os.path import join\n",
        "def f(x: int) -> int:\n    return x\n\nTOOLS = []\n",
    ],
)
def test_a_file_with_no_tools_is_a_usage_error(tmp_path: Path, text: str) -> None:
    with pytest.raises(UsageError, match="no tool functions found") as info:
        load_toolset(str(write(tmp_path, text)))
    assert info.value.hint is not None
    assert "TOOLS" in info.value.hint


def test_an_unknown_set_name_is_a_usage_error_naming_the_builtin_sets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="unknown tool set 'wether'") as info:
        load_toolset("wether")
    assert info.value.hint is not None
    assert "weather" in info.value.hint
    assert ".py" in info.value.hint


def test_a_parameter_without_type_hint_in_a_user_file_is_a_usage_error(tmp_path: Path) -> None:
    path = write(tmp_path, 'def greet(name, polite: bool = True) -> str:\n    return "hi"\n')
    with pytest.raises(UsageError, match="tool greet: parameter 'name' has no type hint"):
        load_toolset(str(path))


def test_a_file_without_py_suffix_is_a_usage_error(tmp_path: Path) -> None:
    path = write(tmp_path, "def f(x: int) -> int:\n    return x\n", name="tools_file")
    with pytest.raises(UsageError, match="cannot be loaded as Python"):
        load_toolset(str(path))


def test_broken_json_never_runs_a_tool_even_when_empty_arguments_would_do() -> None:
    ran: list[str] = []

    def ping(note: str = "none") -> str:
        """Ping."""
        ran.append(note)
        return "pong"

    tools = ToolSet("t", [tool_from_function(ping)])
    cut = run_call(
        tools, ToolUseBlock(id="c", name="ping", input={}, raw_arguments='{"note": "hal')
    )
    assert cut.result.is_error and cut.error_kind == "invalid_json"
    assert "ping was not run" in cut.result.content
    assert ran == []
    # An empty string is how some servers say "no arguments": that one runs.
    empty = run_call(tools, ToolUseBlock(id="d", name="ping", input={}, raw_arguments=""))
    assert not empty.result.is_error and ran == ["none"]


def test_a_tool_calling_sys_exit_is_an_error_result_not_the_end_of_fc() -> None:
    import sys

    def quit_now(city: str) -> str:
        """Exits."""
        sys.exit(3)

    tools = ToolSet("t", [tool_from_function(quit_now)])
    single = run_call(tools, ToolUseBlock(id="c", name="quit_now", input={"city": "x"}))
    assert single.error_kind == "tool_raised" and "SystemExit" in single.result.content
    both = run_calls(tools, [use("quit_now", city="a"), use("quit_now", city="b")])
    assert [r.error_kind for r in both] == ["tool_raised", "tool_raised"]


class TestOddSignaturesFailAtLoadNotMidRun:
    def test_a_name_providers_refuse(self) -> None:
        def 天气(city: str) -> str:
            """Weather."""
            return city

        with pytest.raises(UsageError, match="would be refused by providers"):
            tool_from_function(天气)

    def test_a_positional_only_parameter(self) -> None:
        def f(city: str, /) -> str:
            """F."""
            return city

        with pytest.raises(UsageError, match="positional-only"):
            tool_from_function(f)

    @pytest.mark.parametrize("param", ["_secret", "model_name"])
    def test_reserved_parameter_names(self, param: str) -> None:
        namespace: dict[str, Any] = {}
        exec(f"def f({param}: str) -> str:\n    '''F.'''\n    return 'x'\n", namespace)
        with pytest.raises(UsageError, match="reserved by pydantic"):
            tool_from_function(namespace["f"])

    def test_a_type_json_schema_cannot_describe(self) -> None:
        import socket

        def f(conn: socket.socket) -> str:
            """F."""
            return "x"

        with pytest.raises(UsageError, match="f"):
            tool_from_function(f)

    def test_a_parameter_called_json_works_quietly(self, recwarn: pytest.WarningsRecorder) -> None:
        def f(json: str) -> str:
            """F."""
            return json.upper()

        tool = tool_from_function(f)
        assert run_call(ToolSet("t", [tool]), use("f", json="x")).result.content == "X"
        assert not recwarn.list


def test_an_async_tool_is_awaited() -> None:
    async def slow_weather(city: str) -> dict[str, Any]:
        """Async weather."""
        return {"city": city}

    tools = ToolSet("t", [tool_from_function(slow_weather)])
    runs = run_calls(tools, [use("slow_weather", city="a"), use("slow_weather", city="b")])
    assert [r.result.content for r in runs] == ['{"city": "a"}', '{"city": "b"}']


def test_a_tools_file_that_exits_on_import_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text("import sys\nsys.exit(3)\n")
    with pytest.raises(UsageError, match="SystemExit"):
        load_tool_file(tmp_path / "t.py")


def test_a_directory_is_not_a_tools_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is a directory"):
        load_toolset(str(tmp_path))


def test_a_tools_file_may_import_its_neighbour(tmp_path: Path) -> None:
    import sys

    (tmp_path / "helpers_for_fc_test.py").write_text("UNIT = '°C'\n")
    (tmp_path / "t.py").write_text(
        "from helpers_for_fc_test import UNIT\n\n"
        "def temp(city: str) -> str:\n"
        "    '''Temperature.'''\n"
        "    return '21' + UNIT\n"
    )
    try:
        tools = load_tool_file(tmp_path / "t.py")
    finally:
        sys.modules.pop("helpers_for_fc_test", None)
    assert run_call(tools, use("temp", city="x")).result.content == "21°C"
    assert str(tmp_path) not in sys.path
