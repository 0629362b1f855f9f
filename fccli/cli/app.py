"""The typer app. Commands are registered from their own modules, which import only typer at the top."""

from __future__ import annotations

import typer

from fccli import __version__
from fccli.cli import providers, run, tools


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fc {__version__}")
        raise typer.Exit()


app = typer.Typer(
    name="fc",
    help="Make LLM tool calling visible: run the round trip, and read every request and response as JSON.",
    no_args_is_help=True,
    add_completion=False,
    # Plain click help and errors: Rich-formatted help costs ~70 ms on every `fc --help`.
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Print fc's version."
    ),
) -> None:
    """fc: the model only states an intent; the program executes."""


app.command("run")(run.run)
app.command("providers")(providers.providers)
app.command("tools")(tools.tools)

# Reading traces. Imported here, beside their registrations, so the change stays in one place.
from fccli.cli import convert, diff, show  # noqa: E402

app.command("show")(show.show)
app.command("diff")(diff.diff)
app.command("convert")(convert.convert)

# Linting histories and traces.
from fccli.cli import check  # noqa: E402

app.command("check")(check.check)

# Re-sending: a trace's step with edited results, a request file as it is.
from fccli.cli import curl, replay, send  # noqa: E402

app.command("replay")(replay.replay)
app.command("curl")(curl.curl)
app.command("send")(send.send)

# Sending traces elsewhere (OpenTelemetry backends).
from fccli.cli import export  # noqa: E402

app.add_typer(export.app, name="export")

# Local servers: an agent's requests recorded on their way, and traces played back.
from fccli.cli import proxy, serve  # noqa: E402

app.command("proxy")(proxy.proxy)
app.command("serve")(serve.serve)
