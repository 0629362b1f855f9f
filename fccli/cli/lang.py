"""`--lang en|zh` on every command, and help pages in the chosen language.

The language is chosen in `entry.main()` before typer parses anything (`fc run --help --lang zh`
must be Chinese, and click shows --help as soon as it meets it), so the option itself only has
to be accepted, listed and checked. Help texts are marked with `N_` where they are defined (at
import time, before any language is known) and translated as the help page is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fccli.i18n import LANGUAGES, N_

LANG_HELP = N_(
    "The language fc speaks in: en or zh (default: $FC_LANG, else the locale, else en). "
    "Trace files and --json are the same in both."
)


def language_in(args: Sequence[str]) -> str | None:
    """The value of the last `--lang X` / `--lang=X` before a `--`, or None.

    Raises ValueError for a value fc has no language for (or a missing value)."""
    found: str | None = None
    for index, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang":
            found = args[index + 1] if index + 1 < len(args) else ""
        elif arg.startswith("--lang="):
            found = arg.partition("=")[2]
        else:
            continue
        if found not in LANGUAGES:
            raise ValueError(found)
    return found


def prepared(command: Any) -> Any:
    """The click command tree of the typer app, with `--lang` on every command and, under a
    language other than English, help pages written in it."""
    from fccli.i18n import language

    translate = language() != "en"
    for each in _tree(command):
        each.params.append(_lang_option())
        if translate:
            each.context_class = _translating_context()
    return command


def _tree(command: Any) -> list[Any]:
    found = [command]
    for sub in getattr(command, "commands", {}).values():
        found.extend(_tree(sub))
    return found


def _lang_option() -> Any:
    from typer.core import TyperOption

    return TyperOption(
        param_decls=["--lang"],
        type=str,  # its value was checked before parsing (language_in)
        expose_value=False,  # chosen before parsing (entry.main); only accepted here
        is_eager=True,
        metavar="[en|zh]",
        help=LANG_HELP,
    )


def _translating_context() -> type:
    from typer._click.core import Context
    from typer._click.formatting import HelpFormatter

    from fccli.i18n import gettext

    class TranslatingFormatter(HelpFormatter):
        def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
            super().write_usage(prog, args, gettext("Usage: ") if prefix is None else prefix)

        def write_heading(self, heading: str) -> None:
            super().write_heading(gettext(heading))

        def write_text(self, text: str) -> None:
            super().write_text(gettext(text))

        def write_dl(
            self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
        ) -> None:
            super().write_dl([(first, gettext(second)) for first, second in rows], col_max)

    class TranslatingContext(Context):
        formatter_class = TranslatingFormatter

    return TranslatingContext
