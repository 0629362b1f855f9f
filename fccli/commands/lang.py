"""`--lang en|zh` on every command, and help pages and click's usage errors in the chosen language.

The language is chosen in `entry.main()` before typer parses anything (`fc run --help --lang zh`
must be Chinese, and click shows --help as soon as it meets it), so the option itself only has
to be accepted, listed and checked. Help texts are marked with `N_` where they are defined (at
import time, before any language is known) and translated as the help page is written; a help
text with a value in it (the demo's faults) is a `Msg` given to `help_text()`.

Every command gets a click context of fc's (`_contexts`). Under English it only wraps a text
that is not all ASCII by display width (a Chinese character is two columns; click counts it as
one); ASCII text is click's own, word for word. Under another language it also translates the
command's texts and click's own words ("Usage:", the section headings, `[default: …]`,
`[required]`) and says click's usage errors ("No such option: --x", "Missing argument 'X'.",
"Try 'fc run -h' for help.", "Error:") in that language. The catalog is read only then: when a
page or an error is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from fccli.i18n import LANGUAGES, N_, Msg

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
    """A help text with values in it (`Msg("... {faults}.", faults=...)`), as a plain str:
    click keeps only a copy of it (`inspect.cleandoc`); the help page finds the Msg again."""
    _filled[str(message)] = message
    return str(message)


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
    """The click command tree of the typer app, with `--lang` on every command, help pages
    wrapped by display width and, under a language other than English, help pages and usage
    errors written in it."""
    from fccli.i18n import language

    english, translating = _contexts()
    context = english if language() == "en" else translating
    for each in _tree(command):
        each.params.append(_lang_option())
        each.context_class = context
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


# --- translating -----------------------------------------------------------------------------


def said(text: str) -> str:
    """A help text in the chosen language (a `help_text` one with its values)."""
    message = _filled.get(text)
    if message is not None:
        return message.localized()
    from fccli.i18n import gettext

    return gettext(text)


def _translate(command: Any, ctx: Any) -> None:
    """The texts of `command`'s help page in the chosen language, in place (once): its help,
    its parameters' help (the help option's too) and, for a group, its commands' short help
    (shortened by display width, as click shortens the English one by length)."""
    if getattr(command, "_fc_translated", False):
        return
    command._fc_translated = True
    if command.help:
        command.help = said(command.help)
    for param in command.get_params(ctx):
        if getattr(param, "help", None):
            param.help = said(param.help)
    commands = getattr(command, "commands", None)
    if commands:
        names = [name for name, sub in commands.items() if not sub.hidden]
        limit = ctx.make_formatter().width - 6 - max(len(name) for name in names)
        for sub in commands.values():
            text = said(sub.short_help or sub.help or "")
            sub.short_help = _shortened(text, limit)


def _translated_extras(help: str) -> str:
    """`... [default: 8; x>=1]` (what click adds after a help text) with its words translated."""
    body, sep, extras = help.rpartition("  [") if help.endswith("]") else ("", "", "")
    if not sep:
        if help.startswith("[") and help.endswith("]"):  # a help of extras only
            body, extras = "", help[1:]
        else:
            return help
    from fccli.i18n import _

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


def _contexts() -> tuple[type, type]:
    """The click contexts fc's commands get: (English, translating); made once, on first use."""
    global _context_classes
    if _context_classes is not None:
        return _context_classes
    from typer._click.core import Context
    from typer._click.formatting import HelpFormatter

    from fccli.i18n import _, gettext

    class WideFormatter(HelpFormatter):
        """click's HelpFormatter, wrapping by display width where a text is not all ASCII
        (click counts a Chinese character as one column); ASCII text is click's own."""

        def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
            if f"{prefix or ''}{prog}{args}".isascii():
                return super().write_usage(prog, args, prefix)
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
                return super().write_text(text)
            indent = " " * self.current_indent
            self.write("\n".join(wrapped_paragraphs(text, self.width, indent)) + "\n")

        def write_dl(
            self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
        ) -> None:
            rows = list(rows)
            if all(first.isascii() and second.isascii() for first, second in rows):
                return super().write_dl(rows, col_max, col_spacing)
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
        """The help page in the chosen language: click's own words through the catalog."""

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

    class WideContext(Context):
        formatter_class = WideFormatter

    class TranslatingContext(WideContext):
        formatter_class = TranslatingFormatter

        def get_help(self) -> str:
            _translate(self.command, self)
            return super().get_help()

        def __exit__(self, exc_type: Any, exc_value: Any, tb: Any) -> Any:
            _said_in_language(exc_value)
            return super().__exit__(exc_type, exc_value, tb)

    _context_classes = (WideContext, TranslatingContext)
    return _context_classes


_context_classes: tuple[type, type] | None = None


def _said_in_language(error: Any) -> None:
    """A usage error of click on its way out (it passes every context it was raised in):
    shown in the chosen language instead of click's English."""
    from typer._click.exceptions import NoArgsIsHelpError, UsageError

    if not isinstance(error, UsageError) or isinstance(error, NoArgsIsHelpError):
        return
    if "show" in vars(error):  # an inner context did it already
        return

    def show(file: Any = None) -> None:
        from typer._click._compat import get_text_stderr
        from typer._click.utils import echo

        from fccli.i18n import _

        file = file or get_text_stderr()
        ctx = error.ctx
        color = None
        if ctx is not None:
            color = ctx.color
            hint = ""
            if ctx.command.get_help_option(ctx) is not None:
                command = f"{ctx.command_path} {ctx.help_option_names[0]}"
                hint = _("Try '{command}' for help.", command=command) + "\n"
            echo(f"{ctx.get_usage()}\n{hint}", file=file, color=color)
        echo(_("Error: {message}", message=click_error(error)), file=file, color=color)

    error.show = show  # type: ignore[method-assign]  # this error only: click calls show()


def click_error(error: Any) -> str:
    """What a usage error of click says, in the chosen language."""
    from typer._click.exceptions import BadParameter, MissingParameter

    if isinstance(error, BadParameter) and not isinstance(error, MissingParameter):
        inner = error.message
        if isinstance(inner, Msg) or inner in _filled:  # fc's own words, said as fc says them
            english = error.format_message()
            head = english[: len(english) - len(inner)]
            name = head.removeprefix("Invalid value for ").removesuffix(": ")
            from fccli.i18n import _, localized

            if head == "Invalid value: ":
                return _("Invalid value: {message}", message=localized(inner))
            return _("Invalid value for {name}: {message}", name=name, message=localized(inner))
    return click_words(error.format_message())


def click_words(english: str) -> str:
    """click's English sentence (`CLICK_ERRORS`) in the chosen language; other text as it is."""
    from fccli.i18n import gettext

    for msgid, pattern in _patterns():
        found = pattern.fullmatch(english)
        if found is None:
            continue
        values = found.groupdict()
        if "message" in values:
            values["message"] = click_words(values["message"])
        return gettext(msgid).format(**values)
    return english


_compiled: list[tuple[str, re.Pattern[str]]] = []


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    if not _compiled:
        for msgid in CLICK_ERRORS:
            parts = re.split(r"\{(\w+)\}", msgid)
            regex = "".join(
                re.escape(part) if index % 2 == 0 else f"(?P<{part}>.+?)"
                for index, part in enumerate(parts)
            )
            _compiled.append((msgid, re.compile(regex, re.DOTALL)))
    return _compiled


# --- display width ---------------------------------------------------------------------------

# Not at the start of a line / not at the end of one (Chinese line breaking, simplified).
_CLOSING = set("，。、：；？！）》」』】…—,.:;?!)]}%")
_OPENING = set("（《「『【([{")
# Patterns, not compiled objects: compiling these character classes costs ~10 ms, which every
# `fc --help` in English would pay at import; `re` compiles them (and caches) on first use.
_TOKEN = r"\s+|[\u1100-\uffff]|[^\s\u1100-\uffff]+"


# East Asian Wide and Fullwidth characters (what `unicodedata.east_asian_width` calls W and F),
# by block: a regular expression counts them at C speed, and a page has thousands to measure.
_WIDE = (
    "[\u1100-\u115f\u231a\u231b\u2329\u232a\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19"
    "\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\U0001f300-\U0001f64f\U0001f900-\U0001f9ff"
    "\U00020000-\U0003fffd]"
)


def cells(text: str) -> int:
    """The columns `text` takes in a terminal: two for a wide (CJK) character."""
    if text.isascii():
        return len(text)
    return len(text) + len(re.findall(_WIDE, text))


def _tokens(text: str) -> list[str]:
    """Words, spaces and single CJK characters, glued so a line never starts with a closing
    mark nor ends with an opening one."""
    found: list[str] = []
    glue_next = False
    for token in re.findall(_TOKEN, text):
        if token.isspace():
            found.append(" " * len(token.replace("\n", "")) or " ")
            glue_next = False
            continue
        if found and not found[-1].isspace() and (glue_next or token[0] in _CLOSING):
            found[-1] += token
        else:
            found.append(token)
        glue_next = token[-1] in _OPENING
    return found


def wrapped(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    """`text` filled into lines of at most `width` columns (indents included), as click's
    TextWrapper does by length; a word longer than a line is cut."""
    lines: list[str] = []
    line, used, space = first, cells(first), 0
    fresh = True  # nothing but the indent on `line` yet
    for token in _tokens(text.expandtabs()):
        if token.isspace():
            space = 0 if fresh else len(token)
            continue
        size = cells(token)
        gap = space
        if not fresh and used + gap + size > width:
            lines.append(line)
            line, used, fresh, gap = rest, cells(rest), True, 0
        space = 0
        while used + gap + size > width and size > 1:  # longer than a whole line: cut
            piece = _cut(token, max(width - used - gap, 1))
            lines.append(line + " " * gap + piece)
            token = token[len(piece) :]
            size = cells(token)
            line, used, fresh, gap = rest, cells(rest), True, 0
        line += " " * gap + token
        used += gap + size
        fresh = False
    if not fresh or not lines:
        lines.append(line)
    return lines


def _cut(token: str, room: int) -> str:
    """The longest start of `token` that takes at most `room` columns (one character at least)."""
    used = 0
    for index, ch in enumerate(token):
        used += cells(ch)
        if used > room:
            return token[: max(index, 1)]
    return token


def wrapped_paragraphs(text: str, width: int, indent: str) -> list[str]:
    """click's `wrap_text(preserve_paragraphs=True)` by display width: paragraphs are separated
    by blank lines, a paragraph after a `\\b` line is kept as it is."""
    lines: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip("\n")):
        if lines:
            lines.append("")
        raw = paragraph.splitlines()
        if raw and raw[0].strip() == "\b":
            lines.extend(indent + line for line in raw[1:])
            continue
        extra = " " * (cells(raw[0]) - cells(raw[0].lstrip())) if raw else ""
        joined = " ".join(line.strip() for line in raw)
        lines.extend(wrapped(joined, width, indent + extra, indent + extra))
    return lines


def _shortened(text: str, limit: int) -> str:
    """A command's help for the list of commands: its first sentence if that fits in `limit`
    columns, else its start cut at a word with `...` (click's rule, by display width)."""
    text = " ".join(text.split())
    if cells(text) <= limit:
        return text
    for end in ("。", ". "):
        sentence = text.partition(end)[0] + end.strip()
        if sentence != text and cells(sentence) <= limit:
            return sentence
    room = limit - 3
    kept = ""
    for token in _tokens(text):
        if cells(kept + token) > room:
            break
        kept += token
    clause = max(kept.rfind(mark) for mark in "，；：")  # a Chinese clause ends there
    if clause > 0 and cells(kept[:clause]) >= room // 2:
        kept = kept[:clause]
    return kept.rstrip(" ，、：；,;:") + "..."
