"""What a request means, as the pytest plugin matches it to a recorded step, and the report
of one that matches none.

A request is read into fc's internal form by its format's codec (docs/testing.md says what
counts): key order, whitespace, number spelling, nulls and `stream` do not count; the ids of
calls, results and output items count by their order of first appearance (ids fc or the
provider made up, and an agent's own, match as long as each result names the call it answers);
a call's arguments count as the JSON they hold. Fields of the wire request the internal form
keeps nothing of (`temperature` in some formats, `metadata`, `user`) are compared as they were
sent, under `wire_only`. What the test said to leave out is left out on both sides: the results
of tools it edited on purpose, and fields it named.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from fccli.diff.compare import DiffResult, Side
from fccli.diff.structural import Change, described_changes
from fccli.i18n import Msg, _, localized
from fccli.serve.match import normalised, plain
from fccli.wire.registry import get_format

EDITED = "(edited by the test)"
"""What an edited tool result reads as, on both sides."""
ANY_TOOL = "*"
ID_FIELDS = frozenset({"id", "tool_use_id", "item_id", "call_id", "tool_call_id"})
SHOWN_CHANGES = 12
"""Differences the report lists after the first."""


@dataclass
class Edits:
    """What the test said does not count: results of tools it edited, fields it named."""

    tools: set[str] = field(default_factory=set)
    """Names of tools whose results the test changed on purpose (`*`: every tool)."""
    ignored: set[str] = field(default_factory=set)
    """Top-level request fields left out (`metadata`, `user`: ids an agent makes per run)."""


def meaning(fmt: str, body: dict[str, Any], edits: Edits) -> dict[str, Any]:
    """Read a wire request of `fmt` into what is compared (the module's docstring says what)."""
    wire = normalised(body)
    try:
        codec = get_format(fmt)
        request = codec.from_wire_request(body)
        rebuilt = codec.to_wire_request(request)
    except Exception:  # not a request the codec reads: compared as fc serve compares it
        return {k: v for k, v in wire.items() if k not in edits.ignored}
    out: dict[str, Any] = plain(request.model_dump(mode="json", exclude_none=True))
    out.pop("stream", None)
    ids: dict[str, str] = {}
    names: dict[str, str] = {}
    for message in out.get("messages", []):
        for block in message.get("content", []):
            _block(block, ids, names, edits)
    only = {
        k: v
        for k, v in wire.items()
        if k not in rebuilt and k not in out and k not in edits.ignored
    }
    if only:
        out["wire_only"] = only
    return {k: v for k, v in out.items() if k not in edits.ignored}


def _block(block: dict[str, Any], ids: dict[str, str], names: dict[str, str], edits: Edits) -> None:
    kind = block.get("type")
    block.pop("raw_arguments", None)  # the arguments as sent: `input` holds what they say
    if kind == "tool_use" and isinstance(block.get("id"), str):
        names[block["id"]] = str(block.get("name"))
    if kind == "tool_result":
        name = names.get(str(block.get("tool_use_id")), "")
        if ANY_TOOL in edits.tools or name in edits.tools:
            block["content"] = EDITED
            block.pop("is_error", None)
    _renumber(block, ids, kind)


def _renumber(value: Any, ids: dict[str, str], kind: Any) -> None:
    """Put each id's order of first appearance in its place (a call's input and a result's
    content are the tool's own data, left as they are)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ID_FIELDS and isinstance(item, str):
                value[key] = ids.setdefault(item, f"#{len(ids) + 1}")
            elif not (key == "input" and kind == "tool_use"):
                _renumber(item, ids, None)
    elif isinstance(value, list):
        for item in value:
            _renumber(item, ids, None)


@dataclass
class Mismatch:
    """A request the agent sent that no recorded step means, and the step that came closest."""

    number: int
    """The request's place among those the agent sent (from 1)."""
    shown: str
    """`POST /v1/chat/completions`."""
    fmt: str
    sent: dict[str, Any]
    """What the request means (meaning())."""
    closest: str | None = None
    """The closest step's label (a Msg)."""
    recorded: dict[str, Any] | None = None
    """What the closest step's request means."""
    said: str = ""
    """fc serve's words, where no step came close (no step of the format)."""


def report(miss: Mismatch) -> str:
    """Say a mismatch as plain text: the request and its closest step, the first field that
    differs, then `fc diff`'s view of every difference (recorded as A, sent as B)."""
    from fccli.render.console import make_console
    from fccli.render.diff_view import render_diff

    head = _(
        "fc: request {number} of the agent ({request}, {format}) matches no recorded step",
        number=miss.number,
        request=miss.shown,
        format=miss.fmt,
    )
    if miss.recorded is None or miss.closest is None:
        return head + "\n" + str(localized(miss.said))
    found = described_changes(miss.recorded, miss.sent)
    lines = [head]
    if found:
        lines.append(
            _(
                "{step} came closest; the first field that differs: {field}",
                step=localized(miss.closest),
                field=_place(found[0]),
            )
        )
    shown = found[: 1 + SHOWN_CHANGES]
    result = DiffResult(
        "structural",
        Side(localized(miss.closest), miss.fmt, "request", Msg("what the trace holds")),
        Side(
            _("request {number}", number=miss.number),
            miss.fmt,
            "request",
            Msg("what the agent sent"),
        ),
        shown,
        note=Msg(
            "both read into fc's internal form; ids count by their order (#1, #2...), "
            "fields only the wire has are under wire_only"
        ),
    )
    screen = io.StringIO()
    render_diff(make_console(file=screen, width=100, color_system=None), result)
    lines.append(screen.getvalue().rstrip())
    if len(found) > len(shown):
        lines.append(_("... and {more} more differences", more=len(found) - len(shown)))
    return "\n".join(lines)


def _place(change: Change) -> str:
    path = change.path.removeprefix("$.").removeprefix("$")
    return f"{path} ({localized(change.where)})" if change.where else path
