"""What `fc proxy` prints: where to point the agent, then each conversation's steps as `fc run`
shows its own (the run view, one per trace, its steps labelled with the trace's name), and one
line for each request it forwards without recording, or cannot forward."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from fccli.i18n import _, localized

if TYPE_CHECKING:
    from fccli.run.events import Event


class ProxyView:
    def __init__(self, console: Console, provider: str) -> None:
        self.console = console
        self.provider = provider

    def banner(self, local: str, lines: list[str], upstream: str, out: str) -> None:
        c = self.console
        c.print(
            _(
                "[bold]fc proxy[/] on {local} → {upstream}",
                local=escape(local),
                upstream=escape(upstream),
            )
        )
        c.print(_("point your agent here:"))
        for line in lines:
            c.print(f"  [bold]export {escape(line)}[/]")
        c.print(
            _(
                "[dim]traces go under {out}; Ctrl-C stops (open traces: interrupted)[/]",
                out=escape(out),
            )
        )

    def warn(self, text: str) -> None:
        self.console.print(_("[yellow]warning:[/] {text}", text=escape(localized(text))))

    def opened(self, conversation: Any) -> None:
        self.console.print()
        self.console.print(_("[bold]new trace[/] {path}", path=escape(str(conversation.path))))

    def event(self, conversation: Any, event: Event) -> None:
        """Show `event` as `fc run` does. Its view is made for it: without spinners (several
        conversations share the terminal), the run view keeps nothing from one step to the
        next, and thousands of conversations waiting keep no view."""
        from fccli.render.run_view import RunView  # the journal's process shows steps

        layout, stop_field = conversation.layout
        view = RunView(self.console, self.provider, conversation.fmt, layout, stop_field)
        view.waits = False
        view.label = conversation.path.name
        view(event)

    def closed(self, conversation: Any) -> None:
        if conversation.writer is None:
            return
        manifest = conversation.writer.manifest
        self.console.print(
            _(
                "[dim]trace {path}: {status}, {steps} step(s)[/]",
                path=escape(str(conversation.path)),
                status=escape(str(manifest.status)),
                steps=len(manifest.steps),
            )
        )

    def failed(self, conversation: Any, step: int, why: str) -> None:
        """`why` may be a Msg (fccli/i18n): said in the chosen language."""
        self.console.print(
            _(
                "[red]{trace} step {step}:[/] {why}",
                trace=escape(conversation.path.name),
                step=step,
                why=escape(localized(why)),
            ),
            soft_wrap=True,
        )
        self.closed(conversation)

    def passed(self, method: str, path: str, status: int | None, why: str) -> None:
        """A request forwarded and not recorded."""
        answer = f" → {status}" if status is not None else ""
        self.console.print(
            _(
                "[dim]{request}: forwarded, not recorded ({why})[/]",
                request=escape(f"{method} {path}".strip()) + answer,
                why=escape(localized(why)),
            )
        )

    def refused(self, method: str, path: str, status: int, why: str) -> None:
        """A request fc answered itself: the upstream could not be reached, or a check blocked it."""
        self.console.print(
            f"[red]{escape(method)} {escape(path)} → {status}:[/] {escape(localized(why))}"
        )

    def idle(self, conversation: Any, why: str) -> None:
        self.console.print(
            _(
                "[dim]trace {path}: interrupted, {why}[/]",
                path=escape(str(conversation.path)),
                why=escape(localized(why)),
            )
        )

    def stopped(self, closed: list[Any]) -> None:
        c = self.console
        c.print()
        if not closed:
            c.print(_("[dim]fc proxy stopped; no trace was open[/]"))
            return
        c.print(
            _("fc proxy stopped; {count} open trace(s) closed as interrupted:", count=len(closed))
        )
        for conversation in closed:
            c.print(f"  {escape(str(conversation.path))}")

    def waiting_for_journal(self) -> None:
        self.console.print(
            _(
                "[dim]fc proxy: writing the traces still queued… (Ctrl-C again stops now; "
                "their last steps would be missing)[/]"
            )
        )

    def journal_lost(self) -> None:
        self.console.print(
            _(
                "[red]fc proxy: its journal process ended:[/] requests are still forwarded, "
                "no longer recorded"
            )
        )

    def unrecorded(self, count: int) -> None:
        self.console.print(
            _(
                "[yellow]warning:[/] fc proxy forwarded {count} request(s) without recording "
                "them: its journal had fallen behind (was this terminal paused, or its output "
                "not read?)",
                count=count,
            )
        )

    def journal_unfinished(self) -> None:
        self.console.print(
            _(
                "[yellow]warning:[/] fc proxy stopped before it had written every trace: "
                "the last steps may be missing"
            )
        )

    def bug(self, kind: str, error: str, *, recording: bool = False) -> None:
        """An exception in fc proxy (`kind`, its text): a bug, said in one line. `recording`:
        it happened in the journal, after the forwarding (the client got its answer)."""
        if recording:
            line = _(
                "[red]internal error:[/] {kind}: {error} (a bug in fc proxy's journal; the "
                "request was forwarded, its trace may miss this step)",
                kind=escape(kind),
                error=escape(error),
            )
        else:
            line = _(
                "[red]internal error:[/] {kind}: {error} (a bug in fc proxy; the client got HTTP 500)",
                kind=escape(kind),
                error=escape(error),
            )
        self.console.print(line)
