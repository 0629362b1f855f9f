"""The typer app is built for the command being run (fccli/commands/app.py): the command the
arguments name, or, for a help page or a usage error, every command by name and short help.
Both must read exactly as the app with every command built."""

from __future__ import annotations

import pytest

from fccli.commands.app import COMMANDS, app_for, full_app, invoked


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["show", "x"], "show"),
        (["--lang", "zh", "run", "q"], "run"),
        (["--lang=zh", "check"], "check"),
        (["-V", "diff"], "diff"),  # eager: prints the version either way
        (["--", "replay"], "replay"),  # click takes the name after `--` too
        (["export", "otel", "--help"], "export"),
        (["run", "--help"], "run"),
        ([], None),
        (["--help"], None),
        (["-h", "show"], None),  # fc's own help comes first
        (["--help", "run"], None),
        (["shw"], None),  # a usage error, with "Did you mean 'show'?"
        (["--lang", "show"], None),  # `show` is the value of --lang here
        (["--", "--help"], None),
    ],
)
def test_the_command_the_arguments_name(args: list[str], name: str | None) -> None:
    assert invoked(args) == name


def test_the_listing_reads_as_every_command_built() -> None:
    from typer import Context
    from typer.main import get_command

    built = get_command(full_app())
    listed = app_for(["--help"])
    assert list(listed.commands) == list(built.commands) == list(COMMANDS)
    for name, command in built.commands.items():
        stub = listed.commands[name]
        assert stub.help == command.help, name
        for limit in (30, 45, 60):
            assert stub.get_short_help_str(limit) == command.get_short_help_str(limit), name
    assert listed.help == built.help
    ctx = Context(listed, info_name="fc")
    assert [p.name for p in listed.get_params(ctx)] == [
        p.name for p in built.get_params(Context(built, info_name="fc"))
    ]


def test_a_named_command_is_the_only_one_built() -> None:
    group = app_for(["show", "x"])
    assert list(group.commands) == ["show"]
    assert group.commands["show"].params  # built for real: its options are there


def test_a_listed_command_never_runs_as_a_stub(fc) -> None:
    # `fc -- run` names run after `--`: it is built, and runs (here: its usage error)
    result = fc("--", "run")
    assert result.returncode == 2
    assert "Missing argument 'QUESTION'" in result.stderr


def test_the_listing_read_from_the_text_is_what_each_command_module_declares() -> None:
    """`COMMANDS` is read from the modules' text (fc --help imports none of them): it must be
    what each module holds once imported, and every module that declares a command is listed."""
    import importlib
    import pkgutil

    import fccli.commands

    ranks = []
    for name, (module_name, attribute, help) in COMMANDS.items():
        module = importlib.import_module(module_name)
        assert help == module.HELP, name
        assert callable(getattr(module, attribute)), name
        ranks.append(module.RANK)
    assert ranks == sorted(ranks)
    declaring = {
        info.name.removesuffix("_")  # import_.py: `import` is a keyword
        for info in pkgutil.iter_modules(fccli.commands.__path__)
        if hasattr(importlib.import_module(f"fccli.commands.{info.name}"), "RANK")
    }
    assert declaring == set(COMMANDS)
