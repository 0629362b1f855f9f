"""`--lang en|zh` on every command, and help pages and click's usage errors in the chosen language.

The language is chosen in `entry.main()` before typer parses anything (click shows --help as soon
as it meets it), so here the option is only accepted and listed. Help texts are marked `N_` where
they are defined (before any language is known) and translated as the page is written. Under
English, click writes every all-ASCII text itself; fc only wraps the others by display width.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from itertools import pairwise
from typing import Any

import typer
from typer.core import TyperOption

from fccli.i18n import LANGUAGES, N_, Msg, _, gettext, language, localized
from fccli.render.linebreak import break_offsets, cells

LANG_HELP = N_(
    "The language fc speaks in: en or zh (default: $FC_LANG, else the locale, else en). "
    "Trace files and --json are the same in both."
)

# click's own words (typer vendors click with plain English literals): the help option, the
# usage line, the headings, the notes after a help text and the usage errors. Said through the
# catalog by the translating context below; under English click writes them itself.
HELP_OPTION_HELP = N_("Show this message and exit.")
USAGE = N_("Usage: ")
HEADINGS = (N_("Arguments"), N_("Options"), N_("Commands"))
EXTRAS = (N_("default: {default}"), N_("required"), N_("env var: {var}"), N_("; "))
# click's usage errors, as click words them (`{name}`: what click fills in). Matched whole, in
# this order; `{message}` is itself one of these, or fc's own words.
CLICK_ERRORS = (
    N_("Invalid value for {name}: {message}"),
    N_("Invalid value: {message}"),
    N_("Missing argument {name}."),
    N_("Missing option {name}."),
    N_("Missing parameter {name}."),
    N_("Missing command."),
    N_("No such option: {name} (Possible options: {options})"),
    N_("No such option: {name}"),
    N_("No such command {name}. Did you mean {names}?"),
    N_("No such command {name}."),
    N_("Got unexpected extra argument(s) ({arguments})"),
    N_("Option {name} requires an argument."),
    N_("Option {name} requires {count} arguments."),
    N_("Option {name} does not take a value."),
    N_("{value} is not a valid boolean. Recognized values: {values}"),
    N_("{value} is not a valid int."),
    N_("{value} is not a valid int range."),
    N_("{value} is not a valid float."),
    N_("{value} is not a valid float range."),
    N_("{value} is not a valid {type}."),
    N_("{value} is not in the range {range}."),
)

_filled: dict[str, Msg] = {}


def help_text(message: Msg) -> str:
    """Keep a help text with values in it (`Msg("... {faults}.", faults=...)`) as a plain str:
    click keeps only a copy of it (`inspect.cleandoc`); the help page finds the Msg again."""
    _filled[str(message)] = message
    return str(message)


def language_in(args: Sequence[str]) -> str | None:
    """Return the value of the last `--lang X` / `--lang=X` before a `--`, or None.

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
    """Give `command` and every command under it `--lang`, help pages wrapped by display width
    and, under a language other than English, help pages and usage errors written in it."""
    lang = TyperOption(
        param_decls=["--lang"],
        type=str,  # its value was checked before parsing (language_in)
        expose_value=False,  # chosen before parsing (entry.main); only accepted here
        is_eager=True,
        metavar="[en|zh]",
        help=LANG_HELP,
    )
    command.params.append(lang)
    command.context_class = WideContext if language() == "en" else TranslatingContext
    for sub in getattr(command, "commands", {}).values():
        sub.short_help = sub.short_help or sub.help  # listed whole, wrapped: never cut
        prepared(sub)
    return command


# --- the help page ---------------------------------------------------------------------------

# click's formatter, as typer's public Context names it.
_HelpFormatter: Any = typer.Context.formatter_class


# typer's mark of a required argument in a usage line: `{QUESTION}`.
_REQUIRED = re.compile(r"\{([^\s{}]+)\}")


class WideFormatter(_HelpFormatter):  # type: ignore[misc]
    """Write click's help page, wrapping by display width where a text is not all ASCII (click
    counts a Chinese character as one column); ASCII text is click's own."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        args = _REQUIRED.sub(r"\1", args)  # `QUESTION` as CLI.md writes it, not `{QUESTION}`
        if f"{prefix or ''}{prog}{args}".isascii():
            return super().write_usage(prog, args, prefix)  # type: ignore[no-any-return]
        prefix = "Usage: " if prefix is None else prefix
        head = f"{prefix:>{self.current_indent}}{prog} "
        width = self.width - self.current_indent
        if width >= cells(head) + 20:
            lines = wrapped(args, width, head, " " * cells(head))
        else:
            indent = " " * (max(self.current_indent, cells(prefix)) + 4)
            lines = [head.rstrip(), *wrapped(args, width, indent, indent)]
        self.write("\n".join(lines) + "\n")

    def write_text(self, text: str) -> None:
        if text.isascii():
            return super().write_text(text)  # type: ignore[no-any-return]
        indent = " " * self.current_indent
        self.write("\n".join(wrapped_paragraphs(text, self.width, indent)) + "\n")

    def write_dl(
        self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
    ) -> None:
        rows = list(rows)
        if all(first.isascii() and second.isascii() for first, second in rows):
            return super().write_dl(rows, col_max, col_spacing)  # type: ignore[no-any-return]
        first_col = min(max(cells(row[0]) for row in rows), col_max) + col_spacing
        indent = " " * self.current_indent
        for first, second in rows:
            self.write(f"{indent}{first}")
            if not second:
                self.write("\n")
                continue
            if cells(first) <= first_col - col_spacing:
                self.write(" " * (first_col - cells(first)))
            else:
                self.write("\n" + " " * (first_col + self.current_indent))
            text_width = max(self.width - first_col - 2, 10)
            lines = wrapped_paragraphs(second, text_width, "") or [""]
            self.write(lines[0] + "\n")
            for line in lines[1:]:
                self.write(" " * (first_col + self.current_indent) + line + "\n")


class TranslatingFormatter(WideFormatter):
    """Write the help page in the chosen language: click's own words through the catalog."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        super().write_usage(prog, args, gettext(USAGE) if prefix is None else prefix)

    def write_heading(self, heading: str) -> None:
        said = _("{heading}:", heading=gettext(heading))
        self.write(f"{'':>{self.current_indent}}{said}\n")

    def write_dl(
        self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
    ) -> None:
        rows = [(first, _translated_extras(second)) for first, second in rows]
        super().write_dl(rows, col_max, col_spacing)


class WideContext(typer.Context):
    formatter_class = WideFormatter


class TranslatingContext(WideContext):
    formatter_class = TranslatingFormatter

    def get_help(self) -> str:
        _translate(self.command, self)
        return super().get_help()

    def __exit__(self, exc_type: Any, exc_value: Any, tb: Any) -> Any:
        _say_in_language(exc_value)
        return super().__exit__(exc_type, exc_value, tb)


# --- wrapping by display width ---------------------------------------------------------------


def wrapped(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    """Fill `text` into lines of at most `width` columns after the indent `first` (then `rest`,
    as wide), breaking where Chinese and Latin allow (`linebreak`)."""
    text = text.expandtabs().replace("\n", " ").strip()
    starts = [0, *break_offsets(text, max(width - cells(first), 1)), len(text)]
    pieces = [text[start:end].rstrip() for start, end in pairwise(starts)]
    return [(rest if index else first) + piece for index, piece in enumerate(pieces)]


def wrapped_paragraphs(text: str, width: int, indent: str) -> list[str]:
    """Wrap as click's `wrap_text(preserve_paragraphs=True)`, by display width: paragraphs are
    separated by blank lines, a paragraph after a `\\b` line is kept as it is."""
    lines: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip("\n")):
        if lines:
            lines.append("")
        raw = paragraph.splitlines()
        if raw and raw[0].strip() == "\b":
            lines.extend(indent + line for line in raw[1:])
            continue
        extra = " " * (cells(raw[0]) - cells(raw[0].lstrip())) if raw else ""
        lines.extend(
            wrapped(" ".join(line.strip() for line in raw), width, indent + extra, indent + extra)
        )
    return lines


# --- translating -----------------------------------------------------------------------------


def said(text: str) -> str:
    """Say a help text in the chosen language (a `help_text` one with its values)."""
    message = _filled.get(text)
    if message is not None:
        return message.localized()
    return gettext(text)


def _translate(command: Any, ctx: Any) -> None:
    """Translate the texts of `command`'s help page in place (once): its help, its parameters'
    help (the help option's too) and, for a group, its commands' short help."""
    if getattr(command, "_fc_translated", False):
        return
    command._fc_translated = True
    if command.help:
        command.help = said(command.help)
    for param in command.get_params(ctx):
        if getattr(param, "help", None):
            param.help = said(param.help)
    for sub in getattr(command, "commands", {}).values():
        sub.short_help = said(sub.short_help or sub.help or "")


def _translated_extras(help: str) -> str:
    """Translate the words of `... [default: 8; x>=1]`, what click adds after a help text."""
    body, sep, extras = help.rpartition("  [") if help.endswith("]") else ("", "", "")
    if not sep:
        if help.startswith("[") and help.endswith("]"):  # a help of extras only
            body, extras = "", help[1:]
        else:
            return help
    items = []
    for item in extras[:-1].split("; "):
        name, colon, value = item.partition(": ")
        if item == "required":
            item = _("required")
        elif colon and name == "default":
            item = _("default: {default}", default=value)
        elif colon and name == "env var":
            item = _("env var: {var}", var=value)
        items.append(item)  # a range (x>=1) is said the same in every language
    extra = "[" + _("; ").join(items) + "]"
    return f"{body}  {extra}" if body else extra


def _kinds(error: object) -> set[str]:
    """Name the classes of `error`: click's exception classes are not public, so fc (as typer
    itself) tells them by name."""
    return {kind.__name__ for kind in type(error).__mro__}


def _say_in_language(error: Any) -> None:
    """Show a usage error of click on its way out (it passes every context it was raised in)
    in the chosen language instead of click's English."""
    kinds = _kinds(error)
    if "UsageError" not in kinds or "NoArgsIsHelpError" in kinds:
        return
    if "show" in vars(error):  # an inner context did it already
        return

    def show(file: Any = None) -> None:
        file = file or typer.get_text_stream("stderr")
        ctx = error.ctx
        color = None
        if ctx is not None:
            color = ctx.color
            hint = ""
            if ctx.command.get_help_option(ctx) is not None:
                command = f"{ctx.command_path} {ctx.help_option_names[0]}"
                hint = _("Try '{command}' for help.", command=command) + "\n"
            typer.echo(f"{ctx.get_usage()}\n{hint}", file=file, color=color)
        typer.echo(_("Error: {message}", message=click_error(error)), file=file, color=color)

    error.show = show  # this error only: click calls show()


def click_error(error: Any) -> str:
    """Say what a usage error of click says, in the chosen language."""
    if isinstance(error, typer.BadParameter) and "MissingParameter" not in _kinds(error):
        inner = error.message
        if isinstance(inner, Msg) or inner in _filled:  # fc's own words, said as fc says them
            english = error.format_message()
            head = english[: len(english) - len(inner)]
            name = head.removeprefix("Invalid value for ").removesuffix(": ")
            if head == "Invalid value: ":
                return _("Invalid value: {message}", message=localized(inner))
            return _("Invalid value for {name}: {message}", name=name, message=localized(inner))
    return click_words(error.format_message())


def click_words(english: str) -> str:
    """Say click's English sentence (`CLICK_ERRORS`) in the chosen language; other text as it
    is."""
    for msgid, pattern in _patterns():
        found = pattern.fullmatch(english)
        if found is None:
            continue
        values = found.groupdict()
        if "message" in values:
            values["message"] = click_words(values["message"])
        return gettext(msgid).format(**values)
    return english


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Compile `CLICK_ERRORS` into patterns, each `{name}` a group."""
    found = []
    for msgid in CLICK_ERRORS:
        parts = re.split(r"\{(\w+)\}", msgid)
        regex = "".join(
            re.escape(part) if index % 2 == 0 else f"(?P<{part}>.+?)"
            for index, part in enumerate(parts)
        )
        found.append((msgid, re.compile(regex, re.DOTALL)))
    return found
