"""Internal messages built the way a reader of CLI.md would write them, for the translator tests."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import strategies as st

from fccli.core.models import Block, Message, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}
WEATHER = ToolSpec(
    name="get_weather", description="Current weather for a city.", input_schema=WEATHER_SCHEMA
)


def user(*blocks: Block | str) -> Message:
    return Message(
        role="user", content=[TextBlock(text=b) if isinstance(b, str) else b for b in blocks]
    )


def assistant(*blocks: Block | str) -> Message:
    return Message(
        role="assistant",
        content=[TextBlock(text=b) if isinstance(b, str) else b for b in blocks],
    )


def call(call_id: str, city: str, name: str = "get_weather") -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name=name, input={"city": city})


def result(call_id: str, content: str, is_error: bool = False) -> ToolResultBlock:
    return ToolResultBlock(tool_use_id=call_id, content=content, is_error=is_error)


# hypothesis strategies for the round-trip properties of the translators

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**15), max_value=10**15)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=3)
call_ids = st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=1, max_size=24)
"""Ids as providers write them, Anthropic's pattern included: ^[a-zA-Z0-9_-]+$."""

tool_specs = st.builds(
    ToolSpec,
    name=st.text(min_size=1, max_size=12),
    description=st.text(max_size=24),
    input_schema=st.fixed_dictionaries(
        {
            "type": st.just("object"),
            "properties": st.dictionaries(
                st.text(min_size=1, max_size=6),
                st.fixed_dictionaries({"type": st.sampled_from(["string", "number", "boolean"])}),
                max_size=3,
            ),
        }
    ),
    strict=st.none() | st.booleans(),
)


def json_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value, as the keys and indices that lead there (`()`: the whole)."""
    out = [prefix]
    if isinstance(value, dict):
        for key, sub in value.items():
            out += json_paths(sub, (*prefix, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            out += json_paths(sub, (*prefix, i))
    return out
