"""What `fc replay` prints around the run view: what is replayed with which edits, and at the
end the original answer above the new one."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from fccli.i18n import _, language

if TYPE_CHECKING:
    from fccli.replay.changes import ReplayPlan, ResultChange
    from fccli.run.events import RunResult

RESULT_PREVIEW = 300


def _how(kind: str) -> str:
    """An edit's kind (the manifest's `edits`) as the line "✎ result for ID ... by ..." says it."""
    if kind in ("set", "error", "ok"):
        return f"--{kind}"
    if kind == "editor":
        return _("--edit in the editor")
    if kind == "hand-edited":
        return _("an edit by hand of the trace's files")
    return kind


def _short(text: str, limit: int = RESULT_PREVIEW) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_plan(console: Console, plan: ReplayPlan) -> None:
    c = console
    where = _(
        "{provider} ({format} format), model {model}",
        provider=escape(plan.provider),
        format=escape(plan.wire_format),
        model=escape(plan.model),
    )
    if plan.original_provider:
        where += _(
            " [dim](the trace was made on {provider})[/]",
            provider=escape(plan.original_provider),
        )
    c.print(
        _(
            "[bold]replay[/] of step {step} of {origin}, read from {file}, on {where}",
            step=plan.step,
            origin=escape(plan.origin),
            file=escape(plan.request_file),
            where=where,
        )
    )
    if not plan.changes:
        c.print(_("  [dim]no tool result changed: the step's results go out as they were[/]"))
    for change in plan.changes:
        _change(c, change)
    c.print(_("  new trace: {out} [dim](the original is not touched)[/]", out=escape(plan.out)))


def _change(c: Console, change: ResultChange) -> None:
    call = ""
    if change.tool is not None:
        call = _(
            " ({tool} {input})",
            tool=escape(change.tool),
            input=escape(json.dumps(change.input, ensure_ascii=False)),
        )
    how = (
        _(
            " [dim]by {how}[/]",
            how=escape(("、" if language() == "zh" else ", ").join(_how(h) for h in change.how)),
        )
        if change.how
        else ""
    )
    c.print(
        _(
            "  [magenta]✎[/] result for [magenta]{id}[/]{call}{how}",
            id=escape(change.id),
            call=call,
            how=how,
        )
    )
    if change.before is None:
        c.print(_("      was: [dim](no result had this id)[/]"))
    else:
        flag = " [red](is_error)[/]" if change.before_error else ""
        c.print(_("      was: {text}{flag}", text=escape(_short(change.before)), flag=flag))
    flag = " [red](is_error)[/]" if change.after_error else ""
    c.print(_("      now: {text}{flag}", text=escape(_short(change.after)), flag=flag))


def render_answers(console: Console, plan: ReplayPlan, result: RunResult) -> None:
    """The original final answer and the new one, one above the other."""
    c = console
    c.print()
    c.rule(_("[bold]the answer, before and after[/]"), align="left", style="dim")
    original = plan.original_answer
    _answer(
        c,
        _("original ({trace}):", trace=plan.origin),
        original,
        _(
            "none: that run ended with status {status}",
            status=plan.original_status or "?",
        ),
    )
    _answer(
        c,
        _("replayed ({trace}):", trace=plan.out),
        result.final_answer,
        _("none: the replay ended with status {status}", status=result.status),
    )
    if original is not None and result.final_answer is not None:
        if original == result.final_answer:
            c.print(_("[dim]the same answer, word for word[/]"))
        else:
            c.print(_("[dim]the answers differ[/]"))


def _answer(c: Console, label: str, text: str | None, missing: str) -> None:
    c.print(f"[bold]{escape(label)}[/]")
    if text is None:
        c.print("  " + _("[dim]({missing})[/]", missing=escape(missing)))
        return
    c.print(Text("  " + text.replace("\n", "\n  ")))


def replayed_step_origin(plan: ReplayPlan, step: int) -> str:
    """The new trace numbers its steps from 1: beside each, its number in the original trace."""
    if step == 1:
        return _("replays step {step} of {trace}", step=plan.step, trace=plan.origin)
    return _("step {step} by {trace}'s count", step=plan.step + step - 1, trace=plan.origin)
