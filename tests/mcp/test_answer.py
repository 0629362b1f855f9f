"""What the model is handed of a CallToolResult: text parts in order; an image, audio or
resource named in its place; structuredContent only without text; isError as an error result.
The results are made with the SDK's own types, dumped as they go on the wire."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("mcp")

from fccli.mcp.client import answer_from


def wire(result: Any) -> dict[str, Any]:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def test_every_kind_of_content_has_its_place_in_the_text() -> None:
    import mcp_types as t

    result = t.CallToolResult(
        content=[
            t.TextContent(text="the sky over 杭州"),
            t.ImageContent(data="iVBORw0KGgo=", mime_type="image/png"),
            t.EmbeddedResource(
                resource=t.TextResourceContents(uri="weather://cities", text="杭州, 北京")
            ),
            t.ResourceLink(uri="weather://archive", name="archive"),
        ],
        structured_content={"ignored": "there is text"},
    )
    answer = answer_from("snapshot", wire(result))
    assert answer.is_error is False
    assert answer.content.split("\n") == [
        "the sky over 杭州",
        "[image image/png, 12 characters of base64: kept in the trace, not handed to the model]",
        "杭州, 北京",
        "[resource weather://archive]",
    ]


def test_structured_content_alone_goes_as_json_and_is_error_makes_an_error_result() -> None:
    import mcp_types as t

    only = t.CallToolResult(content=[], structured_content={"temp_c": 21})
    assert answer_from("get_weather", wire(only)).content == '{"temp_c": 21}'
    failed = answer_from("get_alerts", wire(t.CallToolResult(content=[], is_error=True)))
    assert failed.is_error and failed.kind == "tool_error"
    assert failed.content == "get_alerts failed (the server said no more)"
