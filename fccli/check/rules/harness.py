"""Mistakes of the harness that no provider refuses, seen in what they leave behind.

FC131: a result that speaks of another call's argument and not of its own: the results were
paired with the calls by position after they came back in another order (the course's
pitfall 3, "北京 gets 上海's weather"). Nothing refuses it; the model believes the pairing.

FC132: JSON mode asked for, but the prompt never says "json": DeepSeek (and OpenAI, for
json_object) want the word there, or refuse the request or answer endless whitespace.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fccli.check.findings import Finding, finding
from fccli.check.history import Call, History
from fccli.check.rules.common import call_label
from fccli.i18n import Msg


def _values(call: Call) -> set[str]:
    args = call.arguments if isinstance(call.arguments, dict) else {}
    return {v for v in args.values() if isinstance(v, str) and v.strip()}


def results_swapped(h: History) -> Iterator[Finding]:
    for _, f in _swapped(h, 0, []):
        yield f


def swapped_window(h: History, start: int) -> tuple[list[tuple[int, Finding]], int]:
    """Return the findings about messages from `start` on, each with its message; and where the next
    request, repeating these messages, must start again: at the first message with a call that
    has no result yet."""
    unanswered: list[int] = []
    found = list(_swapped(h, start, unanswered))
    return found, min(unanswered, default=len(h.turns))


def _swapped(h: History, start: int, unanswered: list[int]) -> Iterator[tuple[int, Finding]]:
    for turn in h.turns[start:]:
        if len(turn.calls) < 2:
            continue
        ids = [c.id for c in turn.calls]
        for call in turn.calls:
            if call.id is None or ids.count(call.id) > 1:
                continue  # FC106's mistake: which result is whose cannot be told
            own = _values(call)
            result = h.result_of(call)
            if result is None:
                unanswered.append(turn.index)
            if result is None or not own or not isinstance(result.content, str):
                continue
            if any(v in result.content for v in own):
                continue
            others = [
                (other, v)
                for other in turn.calls
                if other is not call
                for v in sorted(_values(other) - own)
                if v in result.content
            ]
            if others:
                other, value = others[0]
                yield (
                    turn.index,
                    finding(
                        "FC131",
                        h.format,
                        result.path,
                        Msg(
                            "the result handed back for {call} speaks of {value!r}, an argument "
                            "of {other}, and not of its own: were the results paired by position "
                            "instead of by id? The model will believe the pairing",
                            call=call_label(call),
                            value=value,
                            other=call_label(other),
                        ),
                    ),
                )


def json_mode_without_the_word(h: History) -> Iterator[Finding]:
    places = h.layout.places
    if places.json_mode is None:
        return
    kind = _json_mode(h.doc.get(places.json_mode.removeprefix("$.")))
    if kind is None or kind not in h.layout.json_word_modes:
        return
    texts = [t.text for t in h.turns if isinstance(t.text, str)]
    system = h.doc.get(places.system.removeprefix("$.")) if places.system else None
    if isinstance(system, str):
        texts.append(system)
    if any("json" in t.casefold() for t in texts):
        return
    yield finding(
        "FC132",
        h.format,
        places.json_mode,
        Msg(
            "JSON mode ({kind}) is asked for, but neither the system prompt nor a user message "
            'says "json": DeepSeek wants the word in the prompt (OpenAI too, for json_object), '
            "and say what the JSON should look like",
            kind=kind,
        ),
    )


def _json_mode(value: Any) -> str | None:
    if isinstance(value, dict) and value.get("type") in ("json_object", "json_schema"):
        return str(value["type"])
    return None


RULES = (results_swapped, json_mode_without_the_word)
