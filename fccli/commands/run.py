"""`fc run QUESTION`: the tool-call round trip, written as a trace."""

from __future__ import annotations

from fccli.commands.parameters import takes_options
from fccli.i18n import N_
from fccli.options.declared import RUN, Settings

HELP = N_(
    "Ask with tool definitions, execute the calls the model asks for, hand the results "
    "back, repeat."
)
RANK = 10  # its place in `fc --help`


@takes_options(RUN)
def run(settings: Settings) -> None:
    """Ask with tool definitions, execute the calls the model asks for, hand the results back, repeat."""
    # imported when it runs: `--help` loads none of it (start-up)
    from fccli.commands.ask import ask_at_terminal
    from fccli.commands.otlp import exported_on_close, prepare
    from fccli.commands.watch import watch
    from fccli.run.prepare import prepare_run

    live = prepare(settings.otlp, settings.otlp_content)
    prepared = prepare_run(settings, asker=ask_at_terminal)
    with exported_on_close(live, prepared.trace.path):
        watch(prepared, json_output=settings.json_output)
