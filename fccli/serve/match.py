"""Which recorded step a request is, or which came closest and what differs.

A request matches a step when the two are equal after normalising what differs between two
honest senders of the same conversation (docs/reference/serve.md):

- JSON, not bytes: key order, whitespace and number spelling (`1.0`, `1`) do not count;
- `stream` and `stream_options` are left out (they say how to answer, not what);
- a field set to `null` counts as a field left out;
- a message `content` (and a `system`) of one plain text block counts as that text;
- a call's `arguments` string counts as the JSON it holds (clients re-serialise it);
- ids of calls and results (`id`, `tool_call_id`, `tool_use_id`, `call_id` in the history,
  not inside a call's arguments or a result's payload) count by their order of first
  appearance, so ids a client makes up itself still match, as long as each result names the
  call it answers.

Headers never count (no key is ever read). The step that came closest is, among the steps of
the formats answering at the request's path: the one sharing the longest prefix of the history
(whole messages from the first), then the one with the fewest differences, then the first.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fccli.core.controls import escape_controls
from fccli.core.errors import InputFileError
from fccli.core.jsonio import check_depth
from fccli.diff.paths import value_at
from fccli.diff.structural import Change, changes
from fccli.i18n import Msg
from fccli.serve.recordings import Recorded

IGNORED = ("stream", "stream_options")
"""Top-level request fields that say how to answer, not what: never compared."""
ID_KEYS = frozenset({"id", "tool_call_id", "tool_use_id", "call_id"})
PAYLOAD_KEYS = frozenset({"input", "args", "arguments", "response", "output"})
"""A call's arguments and a result's payload (Anthropic, Gemini, chat, Responses): the tool's
own data, where an `id` is an order number or the like, compared as it is."""
HISTORY_KEYS = ("messages", "contents", "input")
"""Where a format keeps the conversation (chat and Anthropic, Gemini, Responses)."""
SHOWN = 60
"""How many characters of the request's value a difference shows."""
RECORDED_SHOWN = 24
"""How many characters of a recorded value a difference shows, from its start: enough to tell
which value it is, too few to read a trace out through misses, one request after another."""


View = Callable[[str, dict[str, Any]], dict[str, Any]]
"""How a request of a format is compared: its wire form normalised (fc serve), or another form
(the pytest plugin compares fc's internal form, fccli/testing/meaning.py)."""


def wire_view(fmt: str, body: dict[str, Any]) -> dict[str, Any]:
    """Return the request as fc serve compares it, whatever its format."""
    return normalised(body)


def normalised(body: dict[str, Any]) -> dict[str, Any]:
    """The request as matching compares it (the module's docstring says what counts)."""
    out = {k: plain(v) for k, v in body.items() if k not in IGNORED and v is not None}
    if "system" in out:
        out["system"] = _one_text(out["system"])
    ids: dict[str, str] = {}
    for key in HISTORY_KEYS:
        history = out.get(key)
        if isinstance(history, list):
            out[key] = [_message(m, ids) for m in history]
    return out


def plain(value: Any) -> Any:
    """Nulls left out of objects, and whole numbers written as `1.0` read as `1`, at every depth."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _one_text(content: Any) -> Any:
    if (
        isinstance(content, list)
        and len(content) == 1
        and isinstance(content[0], dict)
        and set(content[0]) == {"type", "text"}
        and content[0]["type"] == "text"
    ):
        return content[0]["text"]
    return content


def _message(message: Any, ids: dict[str, str]) -> Any:
    if isinstance(message, dict) and "content" in message:
        message = {**message, "content": _one_text(message["content"])}
    return _history_value(message, ids)


def _history_value(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ID_KEYS and isinstance(item, str):
                out[key] = ids.setdefault(item, f"#{len(ids) + 1}")
            elif key == "arguments" and isinstance(item, str):
                out[key] = _parsed(item)
            elif key in PAYLOAD_KEYS:
                out[key] = item
            else:
                out[key] = _history_value(item, ids)
        return out
    if isinstance(value, list):
        return [_history_value(v, ids) for v in value]
    return value


def _parsed(text: str) -> Any:
    try:
        value = json.loads(text)
        check_depth(value, "arguments")
    except (ValueError, RecursionError, InputFileError):
        return text  # not JSON, or nested past what fc reads: compared as the text it is
    return plain(value)


def history_size(request: Any) -> int:
    """Count the messages of a request's history."""
    return len(_history(request)) if isinstance(request, dict) else 0


def _history(request: dict[str, Any]) -> list[Any]:
    for key in HISTORY_KEYS:
        if isinstance(request.get(key), list):
            return list(request[key])
    return []


def _canon(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@dataclass
class Candidate:
    recorded: Recorded
    key: str
    """The normalised request, as canonical JSON: equal keys are equal requests."""
    request: dict[str, Any]
    history: list[str]
    """Each message of the normalised history, as canonical JSON."""


@dataclass
class Miss:
    """No step matched: the one that came closest and what differs, in words."""

    closest: Recorded | None
    differences: list[Msg] = field(default_factory=list)
    message: str = ""
    """A Msg (fccli/i18n): the client gets it in English, the terminal in the chosen language."""


class Matcher:
    """The recorded steps by their normalised request. A request recorded more than once (two
    traces of the same question) is answered by each recording in turn, then from the first
    again: a rerun of the agent hears the same answers in the same order."""

    def __init__(self, recordings: list[Recorded], view: View = wire_view) -> None:
        self.recordings = recordings
        self.view = view
        self.candidates: list[Candidate] = []
        self.index()
        self._played: dict[tuple[str, bool], int] = {}
        self._turns = threading.Lock()

    def index(self) -> None:
        """Read every recorded request as `view` sees it (again, when what it sees has changed)."""
        candidates = []
        for recorded in self.recordings:
            request = self.view(recorded.format, recorded.request)
            candidates.append(
                Candidate(
                    recorded, _canon(request), request, [_canon(m) for m in _history(request)]
                )
            )
        self.candidates = candidates

    def find(self, formats: list[str], body: dict[str, Any], stream: bool) -> Recorded | Miss:
        """The step `body` is, among the steps of `formats` (the formats answering at the
        request's path); among equal recordings, those streamed as the request asks come first."""
        candidates = self.candidates
        pool = [c for c in candidates if c.recorded.format in formats]
        views = {f: self.view(f, body) for f in dict.fromkeys(c.recorded.format for c in pool)}
        keys = {f: _canon(view) for f, view in views.items()}
        same = [c for c in pool if c.key == keys[c.recorded.format]]
        if same:
            key = same[0].key
            able = [c.recorded for c in same if (c.recorded.stream is not None) == stream]
            able = able or [c.recorded for c in same]
            with self._turns:  # requests are matched in threads
                turn = self._played.get((key, stream), 0)
                self._played[(key, stream)] = turn + 1
            return able[turn % len(able)]
        return self._closest(pool, body, views, formats)

    def _closest(
        self,
        pool: list[Candidate],
        body: dict[str, Any],
        views: dict[str, dict[str, Any]],
        formats: list[str],
    ) -> Miss:
        if not pool:
            held = sorted({c.recorded.format for c in self.candidates})
            return Miss(
                None,
                message=Msg(
                    "no step of the served traces is in the {format} format (they hold {held} steps)",
                    format=_either(formats),
                    held=", ".join(held),
                ),
            )
        histories = {f: [_canon(m) for m in _history(v)] for f, v in views.items()}
        scored = []
        for order, c in enumerate(pool):
            history = histories[c.recorded.format]
            found = changes(c.request, views[c.recorded.format])
            pairs = enumerate(zip(c.history, history, strict=False))
            shared = next((i for i, (x, y) in pairs if x != y), min(len(c.history), len(history)))
            scored.append((-shared, len(found), order, c, found))
        *_, best, found = min(scored, key=lambda s: s[:3])
        differences = [_said(change, best.recorded.request, body) for change in found]
        more = len(differences) - 1
        said = {"step": best.recorded.label, "difference": differences[0]}
        if more > 1:
            message = Msg(
                "no recorded step matches this request; {step} came closest: {difference} "
                "(and {more} more differences)",
                **said,
                more=more,
            )
        elif more == 1:
            message = Msg(
                "no recorded step matches this request; {step} came closest: {difference} "
                "(and 1 more difference)",
                **said,
            )
        else:
            message = Msg(
                "no recorded step matches this request; {step} came closest: {difference}", **said
            )
        return Miss(best.recorded, differences, message)


def _either(names: list[str]) -> str:
    """`a or b or c`."""
    said = names[-1] if names else ""
    for name in reversed(names[:-1]):
        said = Msg("{first} or {rest}", first=name, rest=said)
    return said


def _said(change: Change, recorded: Any, received: Any) -> Msg:
    """One difference in words: its path, the start of the recorded value and the request's
    value (from a little before where a long text parts from the recorded one), shortened and
    escaped."""
    path = change.path.removeprefix("$.").removeprefix("$")
    old = _at(recorded, change.loc, change.old)
    new = _at(received, change.b_loc or change.loc, change.new)
    if change.kind == "removed":
        return Msg("{path} is missing: recorded {old}", path=path, old=shown(old, RECORDED_SHOWN))
    if change.kind == "added":
        return Msg("{path} was not recorded: got {new}", path=path, new=shown(new))
    if isinstance(old, str) and isinstance(new, str):
        new = _around_difference(old, new)
    return Msg(
        "{path} differs: recorded {old}, got {new}",
        path=path,
        old=shown(old, RECORDED_SHOWN),
        new=shown(new),
    )


def _at(doc: Any, loc: tuple[str | int, ...], normal: Any) -> Any:
    """The value at `loc` as the sender wrote it (an id as sent, not its number), where the
    path leads there in the document as sent; else the normalised value."""
    found, value = value_at(doc, loc)
    return value if found else normal


def _around_difference(old: str, new: str) -> str:
    """The request's long string cut to start a little before where it parts from the
    recorded one."""
    if len(new) <= SHOWN:
        return new
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    start = max(0, start - SHOWN // 3)
    return new if start < 10 else "…" + new[start:]


def shown(value: Any, most: int = SHOWN) -> str:
    """A value on one line for a message: a string in quotes, anything else as JSON; control
    characters escaped, cut to `most` characters."""
    if isinstance(value, str):
        text = escape_controls(value).replace("\n", "\\n").replace("\t", "\\t")
    else:
        text = escape_controls(json.dumps(value, ensure_ascii=False))
    if len(text) > most:
        text = text[: most - 1] + "…"
    return f"'{text}'" if isinstance(value, str) else text
