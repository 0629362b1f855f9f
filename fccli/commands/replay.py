"""`fc replay TRACE`: re-send a step with edited tool results, as a new trace."""

from __future__ import annotations

from fccli.commands.parameters import takes_options
from fccli.i18n import N_
from fccli.options.declared import REPLAY, Settings

HELP = N_(
    "Re-send a step of a trace with edited tool results and continue from there: the model "
    "answers from whatever it is handed. Writes a new trace; the old one is never touched."
)
RANK = 80  # its place in `fc --help`


@takes_options(REPLAY)
def replay(settings: Settings) -> None:
    """Re-send a step of a trace with edited tool results and continue from there: the model
    answers from whatever it is handed. Writes a new trace; the old one is never touched."""
    # imported when it runs: `--help` loads none of it (start-up)
    from fccli.commands.otlp import exported_on_close, prepare
    from fccli.commands.watch import watch
    from fccli.render.replay_view import render_answers, render_plan, replayed_step_origin
    from fccli.replay.prepare import prepare_replay

    live = prepare(settings.otlp, settings.otlp_content)
    prepared = prepare_replay(settings)
    with exported_on_close(live, prepared.run.trace.path):
        result, console = watch(
            prepared.run,
            json_output=settings.json_output,
            execute=prepared.execute,
            before=lambda c: render_plan(c, prepared.plan),
            step_origin=lambda n: replayed_step_origin(prepared.plan, n),
        )
    if console is not None:
        render_answers(console, prepared.plan, result)
