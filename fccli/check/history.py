"""The history a rule reads: a request's turns, tools and switches, as its format reads them.

Each format reads its own layout into the view of wire/view.py, keeping every piece's JSON path
(a finding points into the file as written); here the view of one request is put together, and
a trace's next request reuses the turns of the one before that it repeats.
"""

from __future__ import annotations

import operator
from bisect import bisect_right
from typing import Any

from fccli.wire.registry import layout, refuses
from fccli.wire.view import BlocksLayout, Call, Choice, OfferedTool, Result, Turn

__all__ = ["Call", "History", "Index", "OfferedTool", "Result", "Turn", "read_history"]


class Index:
    """Calls and results by the id they carry, so that the rules look them up rather than walk
    a long history again for each call. A trace's next request extends its request before's
    index with its new turns (the lists are copied where they grow, never changed)."""

    def __init__(
        self,
        first_calls: dict[str, Call] | None = None,
        results: dict[str, list[Result]] | None = None,
    ) -> None:
        self.first_calls: dict[str, Call] = {} if first_calls is None else first_calls
        """The first call with each id."""
        self.results: dict[str, list[Result]] = {} if results is None else results
        """Every result naming each id, in the order of the history."""

    def extended(self, turns: list[Turn]) -> Index:
        first_calls, results = dict(self.first_calls), dict(self.results)
        for turn in turns:
            for call in turn.calls:
                if call.id is not None and call.id not in first_calls:
                    first_calls[call.id] = call
            for result in turn.results:
                if result.call_id is not None:
                    results[result.call_id] = [*results.get(result.call_id, ()), result]
        return Index(first_calls, results)

    def result_after(self, call_id: str | None, message: int) -> Result | None:
        """Return the first result naming `call_id` in a message after `message`."""
        if call_id is None:
            return None
        found = self.results.get(call_id, [])
        at = bisect_right(found, message, key=lambda r: r.message)
        return found[at] if at < len(found) else None


class History:
    def __init__(
        self,
        format: str,
        root: str,
        turns: list[Turn],
        tools: list[OfferedTool],
        choice: Choice | None,
        thinking: bool,
        doc: dict[str, Any],
        index: Index | None = None,
    ) -> None:
        self.format = format
        self.root = root
        """`$.messages` for a request, `$` for a bare messages array."""
        self.turns = turns
        self.tools = tools
        self.choice = choice
        """The tool_choice, None when unset or unreadable."""
        self.thinking = thinking
        """Thinking mode on, as the format's provider reads the request (DeepSeek: on by
        default)."""
        self.doc = doc
        self.index = index
        """Calls and results by id (see `ids`), made along with the turns."""
        self.layout: BlocksLayout = layout(format)

    def with_turns(self, turns: list[Turn]) -> History:
        """Return the same request read with other turns (a tail of these); the index is kept."""
        return History(
            self.format,
            self.root,
            turns,
            self.tools,
            self.choice,
            self.thinking,
            self.doc,
            self.index,
        )

    @property
    def ids(self) -> Index:
        if self.index is None:
            self.index = Index().extended(self.turns)
        return self.index

    def refuses(self, rule: str) -> bool:
        """Return whether the format's providers answer this rule's mistake with HTTP 400."""
        return refuses(self.format, rule)

    def calls(self) -> list[Call]:
        return [c for t in self.turns for c in t.calls]

    def results(self) -> list[Result]:
        return [r for t in self.turns for r in t.results]

    def result_of(self, call: Call) -> Result | None:
        """Return the first result after the call that names its id."""
        return self.ids.result_after(call.id, call.message)

    def tool_names(self) -> list[Any]:
        return [t.name for t in self.tools]


def read_history(
    doc: dict[str, Any], fmt: str, root: str | None = None, *, after: History | None = None
) -> History:
    """Return the view of `doc`. `after`: the history of the request before it in a trace, whose
    messages `doc` repeats as the very same objects (fccli/core/request_files.py): their turns are
    taken as they are, only the new messages are read."""
    wire = layout(fmt)
    key = wire.history_field
    root = root if root is not None else f"$.{key}"
    raw_messages = doc.get(key)
    if isinstance(raw_messages, str):  # Responses' short form: one user message
        raw_messages = [{"role": "user", "content": raw_messages}]
    messages = raw_messages if isinstance(raw_messages, list) else []
    turns = _repeated(after, messages, fmt, root) if wire.appends_turns else []
    new = wire.read_turns(messages, root, len(turns), turns)
    index = after.ids.extended(new) if turns and after is not None else None
    return History(
        format=fmt,
        root=root,
        turns=turns + new,
        tools=wire.offered_tools(doc),
        choice=wire.tool_choice(doc),
        thinking=wire.thinking_on(doc),
        doc=doc,
        index=index,
    )


def _repeated(after: History | None, messages: list[Any], fmt: str, root: str) -> list[Turn]:
    """Return the turns of `after` whose messages lead `messages`, the same objects."""
    if after is None or after.format != fmt or after.root != root:
        return []
    before = after.doc.get(after.layout.history_field)
    if not isinstance(before, list) or not before or len(before) > len(messages):
        return []
    if not all(map(operator.is_, before, messages)):
        return []
    return list(after.turns)
