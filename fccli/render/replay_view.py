"""What `fc replay` prints around the run view: what is replayed with which edits, and at the
end the original answer above the new one."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.text import Text

if TYPE_CHECKING:
    from fccli.replay.changes import ReplayPlan, ResultChange
    from fccli.run.events import RunResult

RESULT_PREVIEW = 300

# An edit's kind (the manifest's `edits`) as the line "✎ result for ID ... by ..." says it.
_HOW = {
    "set": "--set",
    "error": "--error",
    "ok": "--ok",
    "editor": "--edit in the editor",
    "hand-edited": "an edit by hand of the trace's files",
}


def _short(text: str, limit: int = RESULT_PREVIEW) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_plan(console: Console, plan: ReplayPlan) -> None:
    c = console
    where = (
        f"{escape(plan.provider)} ({escape(plan.wire_format)} format), model {escape(plan.model)}"
    )
    if plan.original_provider:
        where += f" [dim](the trace was made on {escape(plan.original_provider)})[/]"
    c.print(
        f"[bold]replay[/] of step {plan.step} of {escape(plan.origin)}, "
        f"read from {escape(plan.request_file)}, on {where}"
    )
    if not plan.changes:
        c.print("  [dim]no tool result changed: the step's results go out as they were[/]")
    for change in plan.changes:
        _change(c, change)
    c.print(f"  new trace: {escape(plan.out)} [dim](the original is not touched)[/]")


def _change(c: Console, change: ResultChange) -> None:
    call = ""
    if change.tool is not None:
        call = f" ({escape(change.tool)} {escape(json.dumps(change.input, ensure_ascii=False))})"
    how = (
        f" [dim]by {escape(', '.join(_HOW.get(h, h) for h in change.how))}[/]" if change.how else ""
    )
    c.print(f"  [magenta]✎[/] result for [magenta]{escape(change.id)}[/]{call}{how}")
    if change.before is None:
        c.print("      was: [dim](no result had this id)[/]")
    else:
        flag = " [red](is_error)[/]" if change.before_error else ""
        c.print(f"      was: {escape(_short(change.before))}{flag}")
    flag = " [red](is_error)[/]" if change.after_error else ""
    c.print(f"      now: {escape(_short(change.after))}{flag}")


def render_answers(console: Console, plan: ReplayPlan, result: RunResult) -> None:
    """The original final answer and the new one, one above the other."""
    c = console
    c.print()
    c.rule("[bold]the answer, before and after[/]", align="left", style="dim")
    original = plan.original_answer
    _answer(
        c,
        f"original ({plan.origin})",
        original,
        f"none: that run ended with status {plan.original_status or '?'}",
    )
    _answer(
        c,
        f"replayed ({plan.out})",
        result.final_answer,
        f"none: the replay ended with status {result.status}",
    )
    if original is not None and result.final_answer is not None:
        if original == result.final_answer:
            c.print("[dim]the same answer, word for word[/]")
        else:
            c.print("[dim]the answers differ[/]")


def _answer(c: Console, label: str, text: str | None, missing: str) -> None:
    c.print(f"[bold]{escape(label)}:[/]")
    if text is None:
        c.print(f"  [dim]({escape(missing)})[/]")
        return
    c.print(Text("  " + text.replace("\n", "\n  ")))


def replayed_step_origin(plan: ReplayPlan, step: int) -> str:
    """The new trace numbers its steps from 1: beside each, its number in the original trace."""
    if step == 1:
        return f"replays step {plan.step} of {plan.origin}"
    return f"step {plan.step + step - 1} by {plan.origin}'s count"
