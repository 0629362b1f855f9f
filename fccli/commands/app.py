"""The typer app, built for the command being run.

A command is one module of this package that declares `HELP` (its short help, marked `N_`) and
`RANK` (its place in `fc --help`) and holds a function or a typer app named as the module.
Building the click command of all of them costs a good part of `fc --help`, and their modules
import their subsystems; a command needs only its own. So `app_for(args)` imports and registers
just the command the arguments name, and when they name none (`fc`, `fc --help`, `fc shw`,
`fc --help run`) it lists every command by name and short help from `COMMANDS`, read from the
modules' text without importing them: those arguments end in a help page or a usage error, never
in a command's code. `full_app()` is every command, built for real (the help tests walk it).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from importlib import import_module
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperCommand
from typer.main import get_command

from fccli import __version__
from fccli.i18n import N_


def _declared() -> dict[str, tuple[str, str, str]]:
    """Read every command this package declares as name: (module, attribute, help), in the
    order of their `RANK`, from the modules' text."""
    found = []
    for path in Path(__file__).parent.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        rank = text.find("\nRANK = ")
        help = text.find("\nHELP = N_(")
        if rank < 0 or help < 0:
            continue
        rank_value = int(text[rank + 8 : text.index("\n", rank + 1)].partition("#")[0])
        # N_'s parenthesised string: `("...")`, or `(\n    "..." "..."\n)`
        help_value = ast.literal_eval(text[help + 10 : text.index(")\n", help) + 1])
        # `import` is a keyword: its module is import_.py, its function import_
        name, module = path.stem.removesuffix("_"), path.stem
        found.append((rank_value, name, (f"{__package__}.{module}", module, help_value)))
    return {name: declaration for _rank, name, declaration in sorted(found)}


# name: (module, attribute, help), in the order `fc --help` lists them. An attribute that is a
# typer app is a group of its own (`fc export otel`).
COMMANDS = _declared()

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
        # Plain click help and errors: Rich-formatted help is slow on every `fc --help` (start-up).
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
    name = invoked(args)
    app = _root()
    if name is not None:
        _register(app, name)
        return get_command(app)
    group: Any = get_command(app)  # a group: the app has a callback
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
