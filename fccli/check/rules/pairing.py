"""Calls and results paired by id, in the place each format wants them (its `placement`).

`next_message` (internal, Anthropic, Gemini): the results of one assistant turn lead the ONE
user message right after it. `own_messages` (chat): one `role: "tool"` message per result, all
right after the assistant message that made the calls. `after_call` (Responses): a result
anywhere after the call with its id.

FC101 a call with no result · FC102 a result with no call · FC103 results of one turn split
over several user messages · FC104 results not leading their user message · FC105 chat tool
messages not right after their assistant message · FC116 results out of call order (a warning:
servers that pair by position attach them to the wrong call).
"""

from __future__ import annotations

from collections.abc import Iterator

from fccli.check.findings import Finding, finding
from fccli.check.history import Call, History, Result, Turn
from fccli.check.rules.common import call_label, ids_of
from fccli.i18n import Msg


def _run(turns: list[Turn], start: int, role: str) -> list[Turn]:
    """Return the messages of `role` from `start` on, up to the first of another role."""
    end = start
    while end < len(turns) and turns[end].role == role:
        end += 1
    return turns[start:end]


def _no_result(h: History, turn: Turn, lost: list[Call], where: Msg) -> Finding:
    labels = ", ".join(call_label(c) for c in lost)
    if len(lost) == 1:
        message = Msg(
            "call {calls} has no result: every call needs its result, with the same id, {where}",
            calls=labels,
            where=where,
        )
    else:
        message = Msg(
            "calls {calls} have no result: every call needs its result, with the same id, {where}",
            calls=labels,
            where=where,
        )
    return finding(
        "FC101",
        h.format,
        turn.path,
        message,
        n=turn.index,
        ids=ids_of(lost),
    )


def _out_of_order(
    h: History, turn: Turn, calls: list[Call], answered: list[str | None]
) -> Iterator[Finding]:
    asked = [c.id for c in calls if c.id in answered]
    given = [i for i in answered if i in asked]
    if given != asked and sorted(map(str, given)) == sorted(map(str, asked)):
        yield finding(
            "FC116",
            h.format,
            turn.path,
            Msg(
                "the results come in another order ({given}) than the calls ({asked}): pairing "
                "by id is right, but a server that pairs by position gives each result to the "
                "wrong call; keep them in call order",
                given=", ".join(map(str, given)),
                asked=", ".join(map(str, asked)),
            ),
        )


def blocks_pairing(h: History) -> Iterator[Finding]:
    for _, f in _blocks(h, 0):
        yield f


def blocks_window(h: History, start: int) -> tuple[list[tuple[int, Finding]], int]:
    """Return the findings about messages from `start` on, each with its message; and where the next
    request, repeating these messages, must start again: at the last assistant message, whose
    results a new message may still join (those before have their results settled)."""
    found = list(_blocks(h, start))
    last = next(
        (i for i in range(len(h.turns) - 1, start - 1, -1) if h.turns[i].role == "assistant"), start
    )
    return found, last


def _blocks(h: History, start: int) -> Iterator[tuple[int, Finding]]:
    if h.layout.placement != "next_message":
        return
    turns = h.turns
    handled: set[tuple[int, str]] = (
        set()
    )  # (message, id) of results reported from their call's side
    for a in range(start, len(turns)):
        turn = turns[a]
        if turn.role != "assistant" or not turn.calls:
            continue
        users = _run(turns, a + 1, "user")
        first = [r.call_id for r in users[0].results] if users else []
        later: dict[str | None, Result] = {}
        for user in users[1:]:
            for result in user.results:
                later.setdefault(result.call_id, result)
        missing = [c for c in turn.calls if c.id is not None and c.id not in first]
        moved = [c for c in missing if c.id in later]
        lost = [c for c in missing if c.id not in later]
        for c in moved:
            handled.add((later[c.id].message, str(c.id)))
        if moved and any(c.id in first for c in turn.calls):
            where = later[moved[0].id]
            yield (
                a,
                finding(
                    "FC103",
                    h.format,
                    where.path,
                    Msg(
                        "the results of message {a}'s calls are split: {ids} answered in message "
                        "{where}, apart from the others in message {next}; all results of one turn "
                        "go in ONE user message",
                        a=a,
                        ids=ids_of(moved),
                        where=where.message,
                        next=a + 1,
                    ),
                    ids=ids_of(moved),
                ),
            )
        elif moved:
            where = later[moved[0].id]
            yield (
                a,
                finding(
                    "FC104",
                    h.format,
                    users[0].path,
                    Msg(
                        "message {next} stands between the calls of message {a} and their results "
                        "in message {where}: the results must lead the user message right after "
                        "the calls",
                        next=a + 1,
                        a=a,
                        where=where.message,
                    ),
                    n=a,
                    ids=ids_of(moved),
                ),
            )
        if lost:
            yield a, _no_result(h, turn, lost, Msg("in the user message right after it"))
        if users:
            for f in _out_of_order(h, users[0], turn.calls, first):
                yield a, f

    for u in range(start, len(turns)):
        turn = turns[u]
        before = turns[u - 1] if u > 0 and turns[u - 1].role == "assistant" else None
        asked = {c.id for c in before.calls} if before is not None else set()
        for result in turn.results:
            if result.call_id is None or result.call_id in asked:
                continue
            if (u, result.call_id) in handled:
                continue
            yield (
                u,
                finding(
                    "FC102",
                    h.format,
                    result.path,
                    Msg(
                        "the result for {id} answers no call in the message before it: a result "
                        "goes right after the assistant message holding the call with its id",
                        id=result.call_id,
                    ),
                    n=u,
                    k=result.position,
                    ids=result.call_id,
                ),
            )
        for f in _leading(h, turn):
            yield u, f


def _leading(h: History, turn: Turn) -> Iterator[Finding]:
    """FC104: in a message with results, something else comes before a result."""
    first_other = next((k for k, kind in enumerate(turn.kinds) if kind != "result"), None)
    if first_other is None:
        return
    late = [r for r in turn.results if r.position > first_other]
    if late:
        yield finding(
            "FC104",
            h.format,
            late[0].path,
            Msg(
                "a {kind} block comes before this tool_result: the results must lead the user "
                "message (all of them first, then any text)",
                kind=turn.kinds[first_other],
            ),
            n=max(turn.index - 1, 0),
            ids=", ".join(str(r.call_id) for r in late),
        )


def chat_pairing(h: History) -> Iterator[Finding]:
    for _, f in _chat(h, 0, []):
        yield f


def chat_window(h: History, start: int) -> tuple[list[tuple[int, Finding]], int]:
    """Return the findings about messages from `start` on, each with its message; and where the next
    request, repeating these messages, must start again: at the first assistant message whose
    findings a new message may change (its tool messages run to the end, or a call of it has
    no result yet)."""
    unsettled: list[int] = []
    found = list(_chat(h, start, unsettled))
    return found, min(unsettled, default=len(h.turns))


def _chat(h: History, start: int, unsettled: list[int]) -> Iterator[tuple[int, Finding]]:
    if h.layout.placement != "own_messages":
        return
    turns = h.turns
    for a in range(start, len(turns)):
        turn = turns[a]
        if turn.role != "assistant" or not turn.calls:
            continue
        run = _run(turns, a + 1, "tool")
        answered = [t.results[0].call_id for t in run]
        missing = [c for c in turn.calls if c.id is not None and c.id not in answered]
        after = a + 1 + len(run)
        # The first tool message after the run answering each missing call (looked up).
        stray: dict[str, Turn] = {}
        for c in missing:
            later = h.ids.result_after(c.id, after - 1)
            if later is not None:
                stray[str(c.id)] = turns[later.message]
        for c in missing:
            if c.id in stray:
                between = turns[a + 1 + len(run)]
                yield (
                    a,
                    finding(
                        "FC105",
                        h.format,
                        stray[c.id].path,
                        Msg(
                            "the result of call {call}, made in message {a}, is in message "
                            "{found}, but a {role} message (message {between}) stands between: "
                            "tool messages come right after their assistant message",
                            call=call_label(c),
                            a=a,
                            found=stray[c.id].index,
                            role=between.role,
                            between=between.index,
                        ),
                        ids=ids_of(missing),
                    ),
                )
        lost = [c for c in missing if c.id not in stray]
        if after >= len(turns) or lost:
            unsettled.append(a)
        if lost:
            yield (
                a,
                _no_result(h, turn, lost, Msg('in a role:"tool" message right after this message')),
            )
        if run:
            for f in _out_of_order(h, run[0], turn.calls, answered):
                yield a, f

    for t in range(start, len(turns)):
        turn = turns[t]
        if turn.role != "tool" or turn.results[0].call_id is None:
            continue
        call_id = turn.results[0].call_id
        first = h.ids.first_calls.get(call_id)
        if first is not None and first.message < t:
            continue  # answered out of place: said from the call's side (FC105)
        yield (
            t,
            finding(
                "FC102",
                h.format,
                turn.path,
                Msg(
                    "this tool message answers {id}, but no assistant message before it made a "
                    "call with that id: a tool message follows the assistant message holding its "
                    "call",
                    id=call_id,
                ),
            ),
        )


def items_pairing(h: History) -> Iterator[Finding]:
    """Every call needs a result with its id later in the history, and every result a call
    before it; where they stand otherwise is free."""
    if h.layout.placement != "after_call":
        return
    turns = h.turns
    for a, turn in enumerate(turns):
        for call in turn.calls:
            if call.id is not None and h.result_of(call) is None:
                yield _no_result(h, turn, [call], Msg("in a function_call_output item after it"))
        if turn.role == "assistant" and turn.calls and a + 1 < len(turns):
            after = turns[a + 1]
            yield from _out_of_order(h, after, turn.calls, [r.call_id for r in after.results])
    made: set[str | None] = set()
    for turn in h.turns:
        made.update(c.id for c in turn.calls)
        for result in turn.results:
            if result.call_id is not None and result.call_id not in made:
                yield finding(
                    "FC102",
                    h.format,
                    result.path,
                    Msg(
                        "this function_call_output answers {id}, but no function_call before it "
                        "has that call_id: an output follows the call it answers",
                        id=result.call_id,
                    ),
                    ids=result.call_id,
                )


RULES = (blocks_pairing, chat_pairing, items_pairing)
