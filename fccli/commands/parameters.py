"""The typer parameters of a command, made from the options declared for it (fccli/options)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import typer

from fccli.commands.help_format import help_text
from fccli.options import declared
from fccli.options.declared import Option, Settings


class DeclaredCommand:
    """A command's body, called with its settings; typer reads the parameters from
    `__signature__`, made from the declarations when the command is built."""

    def __init__(self, command: str, body: Callable[[Settings], None]) -> None:
        self.command = command
        self.body = body
        self.__name__ = body.__name__
        self.__qualname__ = body.__qualname__
        self.__module__ = body.__module__
        self.__doc__ = body.__doc__
        self.__annotations__: dict[str, Any] = {}

    @property
    def __signature__(self) -> inspect.Signature:
        return inspect.Signature([parameter(o) for o in declared.options_of(self.command)])

    def __call__(self, **values: Any) -> None:
        self.body(declared.settings_for(self.command)(**values))


def takes_options(command: str) -> Callable[[Callable[[Settings], None]], DeclaredCommand]:
    """Make `body` the typer command `command`, taking the options declared for it."""

    def declare(body: Callable[[Settings], None]) -> DeclaredCommand:
        return DeclaredCommand(command, body)

    return declare


def parameter(option: Option) -> inspect.Parameter:
    """Make the typer parameter of `option`: its flags, type, default and help."""
    help = option.help if isinstance(option.help, str) else help_text(option.help())
    metavar = option.metavar or ("|".join(option.choices) if option.choices else None)
    info: Any
    if option.argument:
        info = typer.Argument(option.default, metavar=metavar, help=help)
    else:
        info = typer.Option(
            option.default,
            *option.flags,
            metavar=metavar,
            min=option.min,
            max=option.max,
            envvar=option.envvar,
            help=help,
        )
    annotation = option.type if option.default is not None else option.type | None
    return inspect.Parameter(
        option.name, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=annotation
    )
