"""FC119: an answer given with no tool call although tools were offered (a warning).

The course's opening story: a harness that takes a tool request for the final answer, or a
model that answers without asking, yields an answer that states facts no tool gave: made up.
Nothing refuses it, so it is a warning, said once, at the first such answer: after a call, the
answers rest on results.
"""

from __future__ import annotations

from collections.abc import Iterator

from fccli.check.findings import Finding, finding
from fccli.check.history import History
from fccli.i18n import Msg


def may_answer_unasked(h: History) -> bool:
    """Tools are offered, and tool_choice does not forbid calling them."""
    return bool(h.tools) and not (h.choice is not None and h.choice[0] == "none")


def made_up_message(h: History) -> Msg:
    names = ", ".join(t.name if isinstance(t.name, str) and t.name else "?" for t in h.tools)
    if len(h.tools) == 1:
        return Msg(
            "an answer with no tool call, although {names} was offered: if it states facts a "
            "tool would give, the model made them up; check the stop reason and the calls "
            "before trusting it",
            names=names,
        )
    return Msg(
        "an answer with no tool call, although {names} were offered: if it states facts a "
        "tool would give, the model made them up; check the stop reason and the calls before "
        "trusting it",
        names=names,
    )


def answer_without_call(h: History) -> Iterator[Finding]:
    if not may_answer_unasked(h):
        return
    for turn in h.turns:
        if turn.calls:
            return
        if turn.role == "assistant" and turn.text.strip():
            yield finding("FC119", h.format, turn.path, made_up_message(h))
            return


RULES = (answer_without_call,)
