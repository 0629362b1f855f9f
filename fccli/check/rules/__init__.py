"""The rules, a module per concern; each rule is a function from a History to findings.

A rule reads the wire document of its own format where the mistake is format-specific, through
the History view (history.py), and says nothing for a format it does not apply to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from fccli.check.findings import Finding
from fccli.check.history import History
from fccli.check.rules import answers, arguments, harness, ids, pairing, quirks, tools

RuleFunction = Callable[[History], Iterable[Finding]]

ALL: tuple[RuleFunction, ...] = (
    *pairing.RULES,
    *ids.RULES,
    *arguments.RULES,
    *quirks.RULES,
    *tools.RULES,
    *answers.RULES,
    *harness.RULES,
)

PER_TURN: frozenset[RuleFunction] = frozenset(
    {
        ids.anthropic_id_pattern,
        arguments.arguments_shape,
        quirks.reasoning_passed_back,
        quirks.tool_content_is_text,
        quirks.thinking_signature,
    }
)
"""Rules whose finding about a message reads only that message and what the request says
besides its messages (format, tools, tool_choice, thinking): the next request of a trace, which
repeats the messages in the same context, repeats these findings, and only its new messages are
read (fccli/check/lint.py). A rule that looks at other messages must not be listed."""

CONTEXT_ONLY: frozenset[RuleFunction] = frozenset(
    {quirks.thinking_tool_choice, tools.strict_form, tools.tool_names}
)
"""Rules that read no message at all, only what the request says besides them."""

Window = Callable[[History, int], tuple[list[tuple[int, Finding]], int]]
"""A rule read from message `start` on: its findings about those messages, each with the
message it is about, and the cut: the first message whose findings a message added after the
last may still change. The next request of a trace, which repeats these messages in the same
context, keeps the findings before the cut and reads again from there."""

WINDOWED: Mapping[RuleFunction, Window] = {
    pairing.blocks_pairing: pairing.blocks_window,
    pairing.chat_pairing: pairing.chat_window,
    ids.duplicate_ids: ids.duplicates_window,
    arguments.answered_as_fine: arguments.answered_window,
    harness.results_swapped: harness.swapped_window,
}
"""The rules that read other messages than the one they speak of, read in windows. A rule in
neither PER_TURN, CONTEXT_ONLY nor here reads the whole history at every step: right, and slow
on a long trace."""
