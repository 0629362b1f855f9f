"""The typer app, built for the command being run.

Every command lives in its own module (which imports only typer at the top). Building the click
command of all of them, with their 150 options, costs more than a third of `fc --help` and a
tenth of `fc show`; a command needs only its own. So `app_for(args)` registers just the command
the arguments name, and when they name none (`fc`, `fc --help`, `fc shw`, `fc --help run`) it
lists every command by name and short help from `COMMANDS` below, which imports nothing: those
arguments end in a help page or a usage error, never in a command's code. `full_app()` is every
command, built for real (the help tests walk it).
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module
from typing import Any

import typer

from fccli import __version__
from fccli.i18n import N_

# name: (module, attribute, help). In the order `fc --help` lists them. An attribute named `app`
# is a group of its own (a typer app: `fc export otel`).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "run": (
        "fccli.commands.run",
        "run",
        N_(
            "Ask with tool definitions, execute the calls the model asks for, hand the results "
            "back, repeat."
        ),
    ),
    "providers": (
        "fccli.commands.providers",
        "providers",
        N_(
            "List the providers: wire format, default model, base URL, key variable (set or"
            " not), capabilities."
        ),
    ),
    "tools": (
        "fccli.commands.tools",
        "tools",
        N_("Print the tool definitions as they would be sent (the JSON the model reads)."),
    ),
    # Reading traces.
    "show": (
        "fccli.commands.show",
        "show",
        N_(
            "Print a trace as a transcript: each step's calls, ids, arguments, results and stop"
            " reason."
        ),
    ),
    "diff": (
        "fccli.commands.diff",
        "diff",
        N_("Compare two request or response files; formats are detected from the content."),
    ),
    "convert": (
        "fccli.commands.convert",
        "convert",
        N_(
            "Translate a request, response or messages array; what the target cannot hold goes"
            " to stderr."
        ),
    ),
    # Linting histories and traces.
    "check": (
        "fccli.commands.check",
        "check",
        N_(
            "Find the mistakes providers answer with HTTP 400 (and the harness mistakes they "
            "never see), before anything is sent. Exit 1 on an error (or a warning with "
            "--strict), 0 otherwise, 2 for a file that cannot be read."
        ),
    ),
    # Re-sending: a trace's step with edited results, a request file as it is.
    "replay": (
        "fccli.commands.replay",
        "replay",
        N_(
            "Re-send a step of a trace with edited tool results and continue from there: the "
            "model answers from whatever it is handed. Writes a new trace; the old one is never "
            "touched."
        ),
    ),
    "curl": (
        "fccli.commands.curl",
        "curl",
        N_(
            'Print a curl command that posts FILE as it is, with the key as "$ENV_VAR", never its'
            " value."
        ),
    ),
    "send": (
        "fccli.commands.send",
        "send",
        N_(
            "Post FILE's bytes exactly, and print the raw response body (a stream as it arrives,"
            " when the file asks for one). HTTP errors: the provider's sentence on stderr, exit 3."
        ),
    ),
    # Local servers: an agent's requests recorded on their way, and traces played back.
    "proxy": (
        "fccli.commands.proxy",
        "proxy",
        N_("Forward an agent's requests to a provider unchanged, recording each as a trace step."),
    ),
    "serve": (
        "fccli.commands.serve",
        "serve",
        N_(
            "Answer each request with the recorded response of the step it equals (volatile "
            'fields normalised; README, "Play a trace back"); a request matching no step gets '
            "HTTP 400 in the provider's error shape saying which step came closest and what "
            "differs. Ctrl-C stops."
        ),
    ),
    # Sending traces elsewhere (OpenTelemetry backends).
    "export": (
        "fccli.commands.export",
        "app",
        N_("Send traces elsewhere: `fc export otel` for OpenTelemetry backends."),
    ),
}

# The options of `fc` itself, before a command's name: which take a value, which show help.
_ROOT_VALUED = ("--lang",)
_ROOT_HELP = ("-h", "--help")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fc {__version__}")
        raise typer.Exit()


def _main(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help=N_("Print fc's version.")
    ),
) -> None:
    """fc: the model only states an intent; the program executes."""


def _root() -> typer.Typer:
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
    app.callback()(_main)
    return app


def _register(app: typer.Typer, name: str) -> None:
    module, attribute, help = COMMANDS[name]
    target = getattr(import_module(module), attribute)
    if isinstance(target, typer.Typer):
        app.add_typer(target, name=name, help=help)
    else:
        app.command(name, help=help)(target)


def invoked(args: Sequence[str]) -> str | None:
    """The command `fc ARGS` runs, when it will run one: the first argument that is not one of
    `fc`'s own options, if it names a command. None when a help page comes first (`fc --help
    run` is fc's help) or the arguments name no command."""
    skip = options = False
    for arg in args:
        if skip:
            skip = False
        elif options:  # after `--`, the command's name, whatever it looks like
            return arg if arg in COMMANDS else None
        elif arg == "--":
            options = True
        elif arg in _ROOT_HELP:
            return None
        elif arg in _ROOT_VALUED:
            skip = True
        elif not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def app_for(args: Sequence[str]) -> Any:
    """The click command of `fc` for these arguments: the named command built for real, or,
    for a help page or a usage error, every command as a name and a short help."""
    from typer.main import get_command

    name = invoked(args)
    app = _root()
    if name is not None:
        _register(app, name)
        return get_command(app)
    group: Any = get_command(app)  # a group: the app has a callback
    from typer.core import TyperCommand

    for each, (_module, _attribute, help) in COMMANDS.items():
        # Listed, never run: arguments that reach a command's code name it (`invoked`).
        group.add_command(TyperCommand(each, help=help, callback=_unbuilt, add_help_option=False))
    return group


def _unbuilt() -> None:
    raise RuntimeError(
        "a command listed by name was run without being built (fccli/commands/app.py)"
    )


def full_app() -> typer.Typer:
    """Every command, built for real."""
    app = _root()
    for name in COMMANDS:
        _register(app, name)
    return app
