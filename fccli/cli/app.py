"""The typer app. Commands are registered from their own modules, which import only typer at the top."""

from __future__ import annotations

import typer

from fccli import __version__
from fccli.cli import providers, run, tools
from fccli.i18n import N_


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fc {__version__}")
        raise typer.Exit()


app = typer.Typer(
    name="fc",
    help=N_(
        "Make LLM tool calling visible: run the round trip, and read every request and "
        "response as JSON."
    ),
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
        False, "--version", "-V", callback=_version, is_eager=True, help=N_("Print fc's version.")
    ),
) -> None:
    """fc: the model only states an intent; the program executes."""


app.command(
    "run",
    help=N_(
        "Ask with tool definitions, execute the calls the model asks for, hand the results "
        "back, repeat."
    ),
)(run.run)
app.command(
    "providers",
    help=N_(
        "List the providers: wire format, default model, base URL, key variable (set or not),"
        " capabilities."
    ),
)(providers.providers)
app.command(
    "tools",
    help=N_("Print the tool definitions as they would be sent (the JSON the model reads)."),
)(tools.tools)

# Reading traces. Imported here, beside their registrations, so the change stays in one place.
from fccli.cli import convert, diff, show  # noqa: E402

app.command(
    "show",
    help=N_(
        "Print a trace as a transcript: each step's calls, ids, arguments, results and stop reason."
    ),
)(show.show)
app.command(
    "diff",
    help=N_("Compare two request or response files; formats are detected from the content."),
)(diff.diff)
app.command(
    "convert",
    help=N_(
        "Translate a request, response or messages array; what the target cannot hold goes to"
        " stderr."
    ),
)(convert.convert)

# Linting histories and traces.
from fccli.cli import check  # noqa: E402

app.command(
    "check",
    help=N_(
        "Find the mistakes providers answer with HTTP 400 (and the harness mistakes they "
        "never see), before anything is sent. Exit 1 on an error (or a warning with "
        "--strict), 0 otherwise, 2 for a file that cannot be read."
    ),
)(check.check)

# Re-sending: a trace's step with edited results, a request file as it is.
from fccli.cli import curl, replay, send  # noqa: E402

app.command(
    "replay",
    help=N_(
        "Re-send a step of a trace with edited tool results and continue from there: the "
        "model answers from whatever it is handed. Writes a new trace; the old one is never "
        "touched."
    ),
)(replay.replay)
app.command(
    "curl",
    help=N_(
        'Print a curl command that posts FILE as it is, with the key as "$ENV_VAR", never its'
        " value."
    ),
)(curl.curl)
app.command(
    "send",
    help=N_(
        "Post FILE's bytes exactly, and print the raw response body (a stream as it arrives, "
        "when the file asks for one). HTTP errors: the provider's sentence on stderr, exit 3."
    ),
)(send.send)

# Sending traces elsewhere (OpenTelemetry backends).
from fccli.cli import export  # noqa: E402

app.add_typer(export.app, name="export")

# Local servers: an agent's requests recorded on their way, and traces played back.
from fccli.cli import proxy, serve  # noqa: E402

app.command(
    "proxy",
    help=N_("Forward an agent's requests to a provider unchanged, recording each as a trace step."),
)(proxy.proxy)
app.command(
    "serve",
    help=N_(
        "Answer each request with the recorded response of the step it equals (volatile "
        'fields normalised; README, "Play a trace back"); a request matching no step gets '
        "HTTP 400 in the provider's error shape saying which step came closest and what "
        "differs. Ctrl-C stops."
    ),
)(serve.serve)
