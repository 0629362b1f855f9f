"""Running a prepared round trip under the run view (or --json): what `fc run` and `fc replay`
both do once everything is checked. Imported by the commands when they run, never at startup."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from fccli.core.errors import FcError
from fccli.cost.trace import price_trace
from fccli.i18n import Msg
from fccli.render.console import make_console
from fccli.render.run_view import RunView, print_json_summary

if TYPE_CHECKING:
    from rich.console import Console

    from fccli.run.events import RunResult
    from fccli.run.prepare import PreparedRun

Execute = Callable[..., "RunResult"]


def watch(
    prepared: PreparedRun,
    *,
    json_output: bool,
    execute: Execute | None = None,
    before: Callable[[Console], None] | None = None,
    step_origin: Callable[[int], str] | None = None,
) -> tuple[RunResult, Console | None]:
    """Run it, showing each step as it happens (or, with --json, the summary at the end); the
    console it printed on is returned for what the command adds after (None with --json).
    `execute` stands in for `prepared.execute`; `before` prints ahead of the first step; `step_origin` says, for a replay, which step of the
    old trace a new step stands for (the new trace numbers its files from 1)."""
    console = None if json_output else make_console()
    view = (
        None
        if console is None
        else RunView(
            console,
            prepared.provider_name,
            prepared.wire.name,
            prepared.wire.results_layout,
            prepared.wire.stop_field,
            # a key a server echoes, cut in pieces as they arrive
            mask=getattr(prepared.provider, "mask", None),
            step_origin=step_origin,
        )
    )
    if view is not None:
        view.tools_spinner = not getattr(prepared, "asks", False)
        if before is not None:
            before(view.console)
        view.notes(prepared.notes)
    try:
        result = (execute or prepared.execute)(view, stream_deltas=view is not None and view.live)
    except FcError as e:
        if view is not None:
            view.close()
        if view is None:  # a script reading --json still learns the status and where it stopped
            print_json_summary(prepared.trace)
        # One more line at most: errors are one or two lines (CLI.md).
        kept = Msg("the trace keeps what it had: {path}", path=str(prepared.trace.path))
        # i18n: two messages said one after the other
        raise e.at(
            hint=kept if e.hint is None else Msg("{first}; {then}", first=e.hint, then=kept)
        ) from e
    except BaseException:
        if view is not None:
            view.close()
        raise
    if view is None:
        print_json_summary(prepared.trace)
    else:
        view.close()
        view.finished(result, prepared.trace.path, price_trace(prepared.trace.manifest))
    return result, console
