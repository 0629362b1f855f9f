"""Strict mode: the schema rewrite, what it refuses, and how a strict `null` reaches a tool.

The strict form is PROTOCOL.md's (DeepSeek specifics): every property in `required`,
`additionalProperties: false`, optional values written as `["T", "null"]`, and no `minLength`,
`maxLength`, `pattern`, `format`, `minimum`, `maximum`, `multipleOf`, `minItems`, `maxItems`.
"""

from __future__ import annotations

import copy
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from fccli.core.models import ToolSpec, ToolUseBlock
from fccli.tools.execute import run_call, without_strict_nulls
from fccli.tools.registry import ToolSet, tool_from_function
from fccli.tools.strict import (
    REJECTED_KEYWORDS,
    StrictProblem,
    strict_spec,
    strict_specs,
    strict_violations,
)
from fccli.tools.weather import toolset as weather_toolset


def spec(schema: dict[str, Any], name: str = "lookup") -> ToolSpec:
    return ToolSpec(name=name, description="d", input_schema=schema)


def rewrite(schema: dict[str, Any]) -> dict[str, Any]:
    strict, problems = strict_spec(spec(schema))
    assert problems == []
    return strict.input_schema


def obj(properties: dict[str, Any], required: list[str] | None = None, **more: Any):
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        out["required"] = required
    return {**out, **more}


# ---------------------------------------------------------------------------------------------
# the rewrite


def test_a_whole_schema_in_strict_form_spelled_out() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "城市名"},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "days": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "near": {
                "type": "object",
                "properties": {"lat": {"type": "number"}, "zip": {"type": "string"}},
                "required": ["lat"],
            },
            "id": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "place": {"$ref": "#/$defs/Place"},
        },
        "required": ["city"],
        "$defs": {
            "Place": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "kind": {"enum": ["a", "b"]}},
                "required": ["name"],
            }
        },
    }
    strict, problems = strict_spec(spec(schema))
    assert problems == []
    assert strict.strict is True
    assert strict.input_schema == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "城市名"},
            "unit": {"type": ["string", "null"], "enum": ["c", "f", None]},
            "days": {"type": ["integer", "null"]},
            "tags": {"type": ["array", "null"], "items": {"type": "string"}},
            "near": {
                "type": ["object", "null"],
                "properties": {"lat": {"type": "number"}, "zip": {"type": ["string", "null"]}},
                "required": ["lat", "zip"],
                "additionalProperties": False,
            },
            "id": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            "place": {"anyOf": [{"$ref": "#/$defs/Place"}, {"type": "null"}]},
        },
        "required": ["city", "unit", "days", "tags", "near", "id", "place"],
        "$defs": {
            "Place": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "kind": {"anyOf": [{"enum": ["a", "b"]}, {"type": "null"}]},
                },
                "required": ["name", "kind"],
                "additionalProperties": False,
            }
        },
        "additionalProperties": False,
    }


def test_the_original_spec_is_left_as_it_was() -> None:
    schema = obj({"a": {"type": "string", "enum": ["x"]}, "b": obj({"c": {"type": "integer"}})})
    before = copy.deepcopy(schema)
    original = spec(schema)
    strict_spec(original)
    assert original.input_schema == before
    assert original.strict is None


def test_every_property_becomes_required_in_property_order() -> None:
    schema = rewrite(obj({"b": {"type": "string"}, "a": {"type": "string"}}, required=["a"]))
    assert schema["required"] == ["b", "a"]


def test_a_required_property_is_not_made_nullable() -> None:
    schema = rewrite(obj({"a": {"type": "string"}}, required=["a"]))
    assert schema["properties"]["a"] == {"type": "string"}


def test_an_optional_enum_gets_null_among_its_values() -> None:
    schema = rewrite(obj({"unit": {"type": "string", "enum": ["c", "f"]}}))
    assert schema["properties"]["unit"] == {"type": ["string", "null"], "enum": ["c", "f", None]}


@pytest.mark.parametrize(
    "prop",
    [
        {"type": ["string", "null"]},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"type": ["string", "null"], "enum": ["c", None]},
        {"type": "null"},
    ],
    ids=["type-list", "anyOf", "enum", "null-type"],
)
def test_an_already_nullable_optional_property_is_left_as_it_is(prop: dict[str, Any]) -> None:
    assert rewrite(obj({"a": prop}))["properties"]["a"] == prop


def test_an_optional_type_list_gets_null_appended() -> None:
    schema = rewrite(obj({"a": {"type": ["string", "integer"]}}))
    assert schema["properties"]["a"] == {"type": ["string", "integer", "null"]}


def test_array_items_that_are_objects_are_rewritten() -> None:
    schema = rewrite(obj({"rows": {"type": "array", "items": obj({"k": {"type": "string"}})}}))
    assert schema["properties"]["rows"]["items"] == {
        "type": "object",
        "properties": {"k": {"type": ["string", "null"]}},
        "required": ["k"],
        "additionalProperties": False,
    }


def test_objects_inside_anyof_branches_are_rewritten() -> None:
    schema = rewrite(obj({"v": {"anyOf": [obj({"k": {"type": "string"}}), {"type": "string"}]}}))
    branch = schema["properties"]["v"]["anyOf"][0]
    assert branch["required"] == ["k"]
    assert branch["additionalProperties"] is False


def test_an_object_without_type_but_with_properties_is_treated_as_an_object() -> None:
    schema = rewrite({"properties": {"a": {"type": "string"}}})
    assert schema["required"] == ["a"]
    assert schema["additionalProperties"] is False


def test_an_existing_additional_properties_false_is_kept_without_a_problem() -> None:
    schema = rewrite(obj({"a": {"type": "string"}}, required=["a"], additionalProperties=False))
    assert schema["additionalProperties"] is False


def test_a_property_named_like_a_rejected_keyword_is_not_reported() -> None:
    strict, problems = strict_spec(
        spec(obj({"format": {"type": "string"}, "pattern": {"type": "string"}}))
    )
    assert problems == []
    assert strict.input_schema["required"] == ["format", "pattern"]


class Place(BaseModel):
    name: str
    zip: str | None = None


def test_a_pydantic_tool_rewrites_to_a_schema_strict_mode_accepts() -> None:
    def find(city: str, near: Place, unit: str = "c", limit: int | None = 5) -> str:
        """Find places."""
        return city

    strict, problems = strict_spec(tool_from_function(find).spec())
    assert problems == []
    assert strict_violations("find", strict.input_schema) == []
    properties = strict.input_schema["properties"]
    assert properties["unit"]["type"] == ["string", "null"]
    assert {"type": "null"} in properties["limit"]["anyOf"]
    assert strict.input_schema["required"] == ["city", "near", "unit", "limit"]
    place = strict.input_schema["$defs"]["Place"]
    assert place["required"] == ["name", "zip"]
    assert {"type": "null"} in place["properties"]["zip"]["anyOf"]


def test_strict_specs_rewrites_each_spec_and_gathers_all_problems() -> None:
    specs = [
        spec(obj({"a": {"type": "string", "maxLength": 3}}), name="one"),
        spec(obj({"b": {"type": "integer", "minimum": 0}}), name="two"),
    ]
    out, problems = strict_specs(specs)
    assert [s.name for s in out] == ["one", "two"]
    assert all(s.strict is True for s in out)
    assert [(p.tool, p.path) for p in problems] == [
        ("one", "$.properties.a.maxLength"),
        ("two", "$.properties.b.minimum"),
    ]


# ---------------------------------------------------------------------------------------------
# what strict mode refuses


@pytest.mark.parametrize("keyword", REJECTED_KEYWORDS)
def test_each_rejected_keyword_is_reported_with_the_tool_and_path(keyword: str) -> None:
    strict, problems = strict_spec(spec(obj({"code": {"type": "string", keyword: 3}})))
    assert problems == [
        StrictProblem(
            "lookup", f"$.properties.code.{keyword}", f"`{keyword}` is refused in strict mode"
        )
    ]
    text = str(problems[0])
    assert "lookup" in text
    assert keyword in text
    assert f"$.properties.code.{keyword}" in text
    # reported, not silently removed: the caller decides
    assert strict.input_schema["properties"]["code"][keyword] == 3


def test_protocol_md_s_list_of_refused_keywords_is_covered() -> None:
    listed = {"minLength", "maxLength", "pattern", "format", "minimum", "maximum"}
    listed |= {"multipleOf", "minItems", "maxItems"}
    assert listed <= set(REJECTED_KEYWORDS)


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        (
            obj({"near": obj({"zip": {"type": "string", "pattern": "^[0-9]+$"}})}),
            "$.properties.near.properties.zip.pattern",
        ),
        (
            obj({"tags": {"type": "array", "items": {"type": "string", "minLength": 1}}}),
            "$.properties.tags.items.minLength",
        ),
        (obj({"tags": {"type": "array", "maxItems": 3}}), "$.properties.tags.maxItems"),
        (
            obj({"v": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]}}),
            "$.properties.v.anyOf[0].format",
        ),
        (
            {**obj({}), "$defs": {"Item": obj({"n": {"type": "integer", "maximum": 9}})}},
            "$.$defs.Item.properties.n.maximum",
        ),
    ],
    ids=["nested-object", "array-items", "array", "anyOf", "$defs"],
)
def test_a_rejected_keyword_deep_inside_is_reported_at_its_path(
    schema: dict[str, Any], path: str
) -> None:
    _, problems = strict_spec(spec(schema))
    assert [p.path for p in problems] == [path]
    assert strict_violations("lookup", schema) != []
    assert path in [p.path for p in strict_violations("lookup", schema)]


@pytest.mark.parametrize(
    "extra", [True, {"type": "string"}], ids=["additionalProperties-true", "typed-map"]
)
def test_a_free_form_object_is_reported_and_closed(extra: Any) -> None:
    strict, problems = strict_spec(spec(obj({"meta": obj({}, additionalProperties=extra)})))
    assert [p.path for p in problems] == ["$.properties.meta.additionalProperties"]
    assert "free-form" in problems[0].problem
    assert strict.input_schema["properties"]["meta"]["additionalProperties"] is False


def test_a_dict_parameter_of_a_python_tool_is_reported_as_free_form() -> None:
    def tag(labels: dict[str, str]) -> str:
        """Tag things."""
        return ""

    _, problems = strict_spec(tool_from_function(tag).spec())
    assert [p.path for p in problems] == ["$.properties.labels.additionalProperties"]


def test_a_bare_object_property_is_reported_as_free_form() -> None:
    _, problems = strict_spec(spec(obj({"options": {"type": "object"}})))
    assert len(problems) == 1
    assert problems[0].path.startswith("$.properties.options")


# ---------------------------------------------------------------------------------------------
# strict_violations: a schema sent with strict: true that is not in strict form


def test_a_non_strict_schema_has_its_missing_required_and_additional_properties_reported() -> None:
    schema = obj({"city": {"type": "string"}, "unit": {"type": "string"}}, required=["city"])
    problems = strict_violations("get_weather", schema)
    assert [p.path for p in problems] == ["$.required", "$.additionalProperties"]
    assert all(p.tool == "get_weather" for p in problems)
    assert "unit" in problems[0].problem
    assert "city" not in problems[0].problem


def test_a_nested_object_not_in_strict_form_is_reported_at_its_path() -> None:
    inner = obj({"lat": {"type": "number"}}, required=["lat"])
    schema = obj({"near": inner}, required=["near"], additionalProperties=False)
    problems = strict_violations("t", schema)
    assert [p.path for p in problems] == ["$.properties.near.additionalProperties"]


def test_objects_in_items_and_defs_and_anyof_are_inspected() -> None:
    loose = obj({"k": {"type": "string"}})
    schema = {
        **obj({"a": {"type": "array", "items": loose}, "b": {"anyOf": [loose]}}),
        "required": ["a", "b"],
        "additionalProperties": False,
        "$defs": {"L": loose},
    }
    paths = {p.path for p in strict_violations("t", schema)}
    assert paths == {
        "$.properties.a.items.required",
        "$.properties.a.items.additionalProperties",
        "$.properties.b.anyOf[0].required",
        "$.properties.b.anyOf[0].additionalProperties",
        "$.$defs.L.required",
        "$.$defs.L.additionalProperties",
    }


def test_the_weather_tool_in_strict_form_is_clean() -> None:
    (weather,) = weather_toolset().specs()
    strict, problems = strict_spec(weather)
    assert problems == []
    assert strict_violations(weather.name, strict.input_schema) == []


@pytest.mark.parametrize("schema", [None, "a string", 3, [], {"type": "string"}])
def test_something_that_is_not_an_object_schema_has_no_object_violations(schema: Any) -> None:
    assert strict_violations("t", schema) == []


@pytest.mark.parametrize("required", [None, True, "city"], ids=["null", "true", "string"])
def test_a_malformed_required_is_reported_not_a_crash(required: Any) -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": required,
        "additionalProperties": False,
    }
    assert [p.path for p in strict_violations("t", schema)] == ["$.required"]


# a property: whatever schema (without refused keywords or free-form objects) goes in, the
# rewrite has no problems and strict_violations finds nothing in what comes out

names = st.text(alphabet="abcdefgh_", min_size=1, max_size=5)
leaf_schemas = st.one_of(
    st.sampled_from(["string", "integer", "number", "boolean"]).map(lambda t: {"type": t}),
    st.lists(st.text(max_size=3), min_size=1, max_size=3, unique=True).map(
        lambda e: {"type": "string", "enum": e}
    ),
    st.lists(st.integers(), min_size=1, max_size=3, unique=True).map(lambda e: {"enum": e}),
    st.just({"$ref": "#/$defs/X"}),
)


def _object(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        properties = draw(st.dictionaries(names, children, min_size=1, max_size=3))
        required = draw(st.lists(st.sampled_from(sorted(properties)), unique=True))
        out = {"type": "object", "properties": properties, "required": required}
        if draw(st.booleans()):
            out["additionalProperties"] = False
        return out

    return build()


schemas = st.recursive(
    leaf_schemas,
    lambda inner: (
        _object(inner)
        | inner.map(lambda s: {"type": "array", "items": s})
        | st.lists(inner, min_size=1, max_size=2).map(lambda b: {"anyOf": b})
    ),
    max_leaves=8,
)


@given(_object(schemas))
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_rewritten_schema_is_in_strict_form(schema: dict[str, Any]) -> None:
    strict, problems = strict_spec(spec(schema))
    assert problems == []
    assert strict_violations("t", strict.input_schema) == []
    # and rewriting again changes nothing
    again, _ = strict_spec(strict)
    assert again.input_schema == strict.input_schema


# ---------------------------------------------------------------------------------------------
# a strict `null` reaching a tool


def convert(
    amount: float,
    unit: Annotated[str, Field(description="c or f")] = "c",
    digits: int | None = 1,
) -> str:
    """Convert a temperature."""
    return f"{amount} {unit} {digits}"


TOOLS = ToolSet("t", [tool_from_function(convert)])


def use(**arguments: Any) -> ToolUseBlock:
    return ToolUseBlock(id="call_1", name="convert", input=arguments)


def test_the_strict_schema_asks_for_every_parameter_with_nulls_allowed() -> None:
    strict, _ = strict_spec(TOOLS.specs()[0])
    assert strict.input_schema["required"] == ["amount", "unit", "digits"]
    assert strict.input_schema["properties"]["unit"]["type"] == ["string", "null"]


def test_in_strict_mode_a_null_for_an_optional_parameter_means_its_default() -> None:
    run = run_call(TOOLS, use(amount=21, unit=None, digits=None), strict=True)
    assert run.result.is_error is False
    assert run.result.content == "21.0 c 1"
    assert run.error_kind is None


def test_in_strict_mode_a_value_given_is_used() -> None:
    run = run_call(TOOLS, use(amount=21, unit="f", digits=None), strict=True)
    assert run.result.content == "21.0 f 1"


def test_without_strict_a_null_for_a_str_parameter_is_a_validation_error_result() -> None:
    run = run_call(TOOLS, use(amount=21, unit=None), strict=False)
    assert run.result.is_error is True
    assert run.error_kind == "invalid_arguments"
    assert run.result.content.startswith("invalid arguments for convert: unit:")
    assert "(got null)" in run.result.content


def test_in_strict_mode_a_null_for_a_required_parameter_is_still_an_error() -> None:
    run = run_call(TOOLS, use(amount=None, unit=None, digits=None), strict=True)
    assert run.result.is_error is True
    assert run.error_kind == "invalid_arguments"
    assert "amount" in run.result.content


def test_without_strict_nulls_drops_only_nulls_of_optional_parameters() -> None:
    tool = TOOLS.get("convert")
    assert tool is not None
    assert without_strict_nulls(tool, {"amount": None, "unit": None, "digits": 2}) == {
        "amount": None,
        "digits": 2,
    }
    assert without_strict_nulls(tool, {"amount": 1, "unit": "", "digits": 0}) == {
        "amount": 1,
        "unit": "",
        "digits": 0,
    }


class Options(BaseModel):
    unit: str = "c"


class Query(BaseModel):
    city: str
    options: Options = Options()


def search(query: Query) -> str:
    """Search."""
    return f"{query.city} {query.options.unit}"


def test_in_strict_mode_a_null_for_a_nested_optional_field_means_its_default() -> None:
    tools = ToolSet("s", [tool_from_function(search)])
    strict, _ = strict_spec(tools.specs()[0])
    assert strict.input_schema["$defs"]["Options"]["properties"]["unit"]["type"] == [
        "string",
        "null",
    ]
    call = ToolUseBlock(id="c1", name="search", input={"city": "杭州", "options": {"unit": None}})
    run = run_call(tools, call, strict=True)
    assert run.result.is_error is False, run.result.content
    assert run.result.content == "杭州 c"
