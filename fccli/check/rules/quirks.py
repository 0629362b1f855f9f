"""Rules one provider adds (PROTOCOL.md, "DeepSeek specifics"), read from what its format
declares (reasoning field, thinking's tool choices, signatures, its layout's own problems).

FC112 DeepSeek thinking mode: a tool-calling assistant turn without `reasoning_content` ·
FC113 DeepSeek: a tool message whose content is not a string · FC114 a tool_choice thinking
mode refuses (DeepSeek: only auto or none; Anthropic: no forced tool with thinking on) · FC121
a thinking block (or Gemini's call turn) sent back without the signature it came with · and
what a format finds in its own layout (Responses: FC123, FC124).
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
    field = h.layout.reasoning_field
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
    """Return how DeepSeek's server (serde) names a JSON value that is not the string it wanted."""
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
    for result in h.results():
        if not isinstance(result.content, str):
            content = result.content
            yield finding(
                "FC113",
                h.format,
                result.content_path,
                Msg(
                    "this tool message's content is {kind}, not a string: DeepSeek reads only "
                    "text here (put the result's JSON in a string)",
                    kind=describe(content),
                ),
                n=result.message,
                found=_serde_kind(content),
            )


def thinking_tool_choice(h: History) -> Iterator[Finding]:
    if not h.thinking or h.choice is None:
        return
    kind, name = h.choice
    allowed = h.layout.thinking_tool_choices
    if allowed is None:
        return
    if kind in allowed:
        return
    asked = name if kind == "tool" else kind
    yield finding(
        "FC114",
        h.format,
        h.layout.places.tool_choice,
        Msg(
            "tool_choice {asked!r} forces a call, which thinking mode refuses (only {allowed}): "
            "turn thinking off to force a tool, or nudge in the question",
            asked=asked,
            allowed=Joined(allowed, " or "),
        ),
    )


def thinking_signature(h: History) -> Iterator[Finding]:
    yield from _unsigned_calls(h)
    if not h.layout.signed_thinking:
        return
    for turn in h.turns:
        for k, path in turn.unsigned_thinking if turn.role == "assistant" else ():
            yield finding(
                "FC121",
                h.format,
                path,
                Msg(
                    "this thinking block has no signature: Anthropic takes its thinking back "
                    "only exactly as it came, signature included (reasoning from another "
                    "provider, such as DeepSeek's, cannot go to Anthropic as a thinking block)"
                ),
                n=turn.index,
                k=k,
            )


def layout_problems(h: History) -> Iterator[Finding]:
    """Return the mistakes only the format's own layout can have, found by the format."""
    for problem in h.layout.layout_problems(h.doc, h.root, h.calls(), h.thinking):
        yield finding(problem.rule, h.format, problem.path, problem.message, **problem.values)


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
    layout_problems,
)
