"""Rules one provider adds (PROTOCOL.md, "DeepSeek specifics"), read from the provider's data
where fc keeps it as data (the chat dialect), else named here.

FC112 DeepSeek thinking mode: a tool-calling assistant turn without `reasoning_content` ·
FC113 DeepSeek: a tool message whose content is not a string · FC114 a tool_choice thinking
mode refuses (DeepSeek: only auto or none; Anthropic: no forced tool with thinking on) · FC121
Anthropic: a thinking block sent back without the signature it came with · FC123 OpenAI
Responses: a reasoning model's function_call without the reasoning item it came with · FC124 a
reasoning item with no item after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fccli.check.findings import Finding, finding
from fccli.check.history import History
from fccli.check.rules.common import call_label
from fccli.i18n import Joined, Msg
from fccli.wire.shape import describe


def reasoning_passed_back(h: History) -> Iterator[Finding]:
    field = h.wire.reasoning_field if h.wire is not None else None
    if field is None or not h.thinking:
        return
    for turn in h.turns:
        if turn.role == "assistant" and turn.calls and field not in turn.raw:
            yield finding(
                "FC112",
                h.format,
                turn.path,
                Msg(
                    "thinking mode is on and this assistant turn, which called {calls}, has no "
                    "`{field}`: its reasoning must go back with it in every later request (the "
                    "key, even empty)",
                    calls=", ".join(call_label(c) for c in turn.calls),
                    field=field,
                ),
            )


def _serde_kind(value: Any) -> str:
    """How DeepSeek's server (serde) names a JSON value that is not the string it wanted."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{str(value).lower()}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value}`"
    return "sequence" if isinstance(value, list) else "map"


def tool_content_is_text(h: History) -> Iterator[Finding]:
    # OpenAI accepts an array of text parts here; DeepSeek does not (and says so, FC113).
    if not h.refuses("FC113"):
        return
    for turn in h.turns:
        if turn.role == "tool" and not isinstance(turn.raw.get("content"), str):
            content = turn.raw.get("content")
            yield finding(
                "FC113",
                h.format,
                f"{turn.path}.content",
                Msg(
                    "this tool message's content is {kind}, not a string: DeepSeek reads only "
                    "text here (put the result's JSON in a string)",
                    kind=describe(content),
                ),
                n=turn.index,
                found=_serde_kind(content),
            )


def thinking_tool_choice(h: History) -> Iterator[Finding]:
    if not h.thinking or h.choice is None:
        return
    kind, name = h.choice
    allowed = h.wire.thinking_tool_choices if h.wire is not None else None
    if allowed is None:
        return
    if kind in allowed:
        return
    asked = name if kind == "tool" else kind
    yield finding(
        "FC114",
        h.format,
        "$.tool_choice",
        Msg(
            "tool_choice {asked!r} forces a call, which thinking mode refuses (only {allowed}): "
            "turn thinking off to force a tool, or nudge in the question",
            asked=asked,
            allowed=Joined(allowed, " or "),
        ),
    )


def thinking_signature(h: History) -> Iterator[Finding]:
    yield from _unsigned_calls(h)
    if h.wire is None or not h.wire.signed_thinking:
        return
    for turn in h.turns:
        content = turn.raw.get("content") if turn.role == "assistant" else None
        for k, block in enumerate(content if isinstance(content, list) else []):
            if (
                isinstance(block, dict)
                and block.get("type") == "thinking"
                and not isinstance(block.get("signature"), str)
            ):
                yield finding(
                    "FC121",
                    h.format,
                    f"{turn.path}.content[{k}]",
                    Msg(
                        "this thinking block has no signature: Anthropic takes its thinking back "
                        "only exactly as it came, signature included (reasoning from another "
                        "provider, such as DeepSeek's, cannot go to Anthropic as a thinking block)"
                    ),
                    n=turn.index,
                    k=k,
                )


def reasoning_items(h: History) -> Iterator[Finding]:
    """Responses, stateless (store false): a reasoning model's calls go back with the reasoning
    item they came with, right before them, and a reasoning item goes back with what follows it.
    A call without an item id (made elsewhere, converted) is not paired by the API: not said."""
    if not h.refuses("FC123"):
        return
    raw = h.doc.get(h.root.removeprefix("$."))
    items = [i if isinstance(i, dict) else {} for i in raw] if isinstance(raw, list) else []
    if not (h.thinking or any(i.get("type") == "reasoning" for i in items)):
        return  # a model that does not reason (a reasoning item in the history says it does)
    calls = {c.path: c for c in h.calls()}
    for k, item in enumerate(items):
        path = f"{h.root}[{k}]"
        kind = item.get("type")
        if kind == "reasoning":
            after = items[k + 1] if k + 1 < len(items) else {}
            if after.get("type", "message") in ("function_call_output", "message") and (
                after.get("role") != "assistant"
            ):
                rid = item.get("id")
                yield finding(
                    "FC124",
                    h.format,
                    path,
                    Msg(
                        "reasoning item {id} is not followed by the item it led to (a call or a "
                        "message): send it back together with that item, or leave both out",
                        id=rid,
                    ),
                    ids=rid,
                )
            continue
        item_id = item.get("id")
        if kind != "function_call" or not isinstance(item_id, str):
            continue
        before = k - 1
        while before >= 0 and items[before].get("type") == "function_call":
            before -= 1
        if before >= 0 and items[before].get("type") == "reasoning":
            continue
        call = calls.get(path)
        yield finding(
            "FC123",
            h.format,
            path,
            Msg(
                "function_call {id} ({call}) has no reasoning item before it: a reasoning "
                "model's calls go back with the reasoning item they came with (encrypted; with "
                "store false OpenAI keeps no copy)",
                id=item_id,
                call=call_label(call) if call else "?",
            ),
            ids=item_id,
            reasoning="rs_…",
        )


def _unsigned_calls(h: History) -> Iterator[Finding]:
    """Gemini: the signature rides on the first call's part. Gemini 3 refuses a turn without
    it; 2.x models take it: a warning, since the body does not name the model."""
    for turn in h.turns:
        call = turn.unsigned
        if call is not None:
            yield finding(
                "FC121",
                h.format,
                call.path,
                Msg(
                    "this call ({call}) is the first of its turn and carries no "
                    "thoughtSignature: Gemini 3 takes a call turn back only with the signature "
                    "it came with (Gemini 2.x accepts it without)",
                    call=call_label(call),
                ),
                severity="warning",
                name=call.name,
                position=turn.index + 1,
            )


RULES = (
    reasoning_passed_back,
    tool_content_is_text,
    thinking_tool_choice,
    thinking_signature,
    reasoning_items,
)
