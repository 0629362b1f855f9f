"""The one Console: colour and live display only on a terminal, and never with NO_COLOR.

On a terminal, lines wrap at its width where Latin and Chinese allow (`linebreak`: a word
longer than a line, a URL or a JSON string, is folded), and a wrapped line goes on at its own
indentation, under its beginning; an item (`→ `, `✗ `, `▶ `, `1. `) goes on under its text, after
its mark, and a labelled line (`print_after_label`, `print_labelled`) under what follows its label.
In a pipe nothing is wrapped: a line is as long as it is, for grep and for files.

Whatever it prints, control characters come out escaped (`\\x1b`): text from a server or a
file never drives the terminal, in any renderer. And a reader that goes away (`fc ... | head`)
ends the output, not the command: the run still finishes and writes its trace.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, JustifyMethod, OverflowMethod, RenderableType
from rich.containers import Lines
from rich.segment import Segment
from rich.text import Text

from fccli.core.controls import escape_controls, has_controls
from fccli.render.linebreak import break_offsets

_EMOJI_CODE = re.compile(r":\S*?:")
"""Where an emoji code (`:smile:`, `:warning-emoji:`) could stand: Rich's own pattern, looser."""


class BrokenText(Text):
    """Text that Rich wraps (in a table cell, a grid) where Latin and Chinese allow a break."""

    __slots__ = ()

    def wrap(
        self,
        console: Console,
        width: int,
        *,
        justify: JustifyMethod | None = None,
        overflow: OverflowMethod | None = None,
        tab_size: int = 8,
        no_wrap: bool | None = None,
    ) -> Lines:
        """Rich's own `Text.wrap`, with `linebreak.break_offsets` for its `divide_line`."""
        if no_wrap or self.no_wrap or overflow == "ignore":
            return super().wrap(
                console, width, justify=justify, overflow=overflow, tab_size=tab_size, no_wrap=True
            )
        justify = justify or self.justify or "default"
        overflow = overflow or self.overflow or "fold"
        lines = Lines()
        for line in self.split(allow_blank=True):
            if "\t" in line:
                line.expand_tabs(tab_size)
            pieces = line.divide(break_offsets(line.plain, width, cell_len))
            for piece in pieces:
                piece.rstrip_end(width)
            pieces.justify(console, width, justify=justify, overflow=overflow)
            for piece in pieces:
                piece.truncate(width, overflow=overflow)
            lines.extend(pieces)
        return lines


class SafeConsole(Console):
    def render_str(self, text: str, *, emoji: bool | None = None, **options: Any) -> Text:
        # Rich looks for emoji codes in every string it renders, and the first look imports its
        # table of 3,600 names (~12 M instructions, every `fc run`). A string where no code can
        # stand comes out the same without the look.
        if emoji is None and not _EMOJI_CODE.search(text):
            emoji = False
        rendered = super().render_str(text, emoji=emoji, **options)
        rendered.__class__ = BrokenText  # the same object, wrapped by its own rule
        return rendered

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            # Control segments are Rich's own (cursor moves of a live display); text is not.
            if segment.control or not has_controls(segment.text):
                yield segment
            else:
                yield Segment(escape_controls(segment.text), segment.style, segment.control)

    def on_broken_pipe(self) -> None:
        # Rich's default exits 1. A closed pipe is a normal end (as `git log | head`): print
        # nothing more, and let the command finish its work.
        self.quiet = True
        silence_stdout()


class _Console(SafeConsole):
    def print(self, *objects: Any, **options: Any) -> None:
        if self.soft_wrap and len(objects) == 1 and not options:
            plain = self._as_plain(objects[0])
            if plain is not None:
                with self:  # written as Rich writes its own output (one buffer, its locks)
                    self._buffer.append(Segment(plain))
                return
        if self.soft_wrap or len(objects) != 1 or options:
            super().print(*objects, **options)
            return
        text = objects[0]
        if isinstance(text, str):
            text = self.render_str(text)
        if not isinstance(text, Text):
            super().print(text)
            return
        for line in text.split("\n", allow_blank=True):
            plain = line.plain
            indent = len(plain) - len(plain.lstrip(" "))
            if indent >= self.width // 2:
                indent = 0
            mark = _ITEM.match(plain, indent)
            hang = indent + cell_len(mark.group()) if mark else indent
            if hang >= self.width // 2:
                hang = indent
            _print_hung(self, line[:indent], line[indent:], self.width - indent, hang)

    def _as_plain(self, renderable: Any) -> str | None:
        """What Rich would write for one line of markup (or Text) when nothing is styled,
        wrapped or live: its plain text, controls escaped, and the line's end; None when Rich
        must render it (a tab, a trailing blank, a live display, colour, a recording). Rich's
        own way takes ~0.3 ms a line: fc proxy's journal prints ten lines a request, `fc run`
        and `fc show` tens, and a pipe or a file shows them the same (tests/render/test_console_plain.py
        holds the two ways to the same bytes)."""
        if self._color_system is not None or self.record or self._render_hooks:
            return None
        text = self.render_str(renderable) if isinstance(renderable, str) else renderable
        if not isinstance(text, Text) or text.end != "\n" or text.justify not in (None, "default"):
            return None
        plain = text.plain
        if "\t" in plain or _TRAILING_BLANK.search(plain):
            return None
        return escape_controls(plain) + "\n" if has_controls(plain) else plain + "\n"


_TRAILING_BLANK = re.compile(r"\s(?:\n|\Z)")
"""Rich trims a blank at the end of a line longer than the console (`Text.rstrip_end`)."""

_ITEM = re.compile(r"(?:[→←▶✓✗✎⇄!] |\d{1,3}\. )")
"""The mark an item starts with (`→ request…`, `✗ error…`, `1. get_weather…`): its wrapped
lines go on under its text, after the mark."""


NARROWEST = 20
"""The fewest columns `print_hanging` gives a wrapped line, however deep its indent."""


def print_hanging(console: Console, start: Text, body: Text, indent: int) -> None:
    """Print `start` then `body`, the body's wrapped lines `indent` columns in (one line in a
    pipe): a note goes on under its own beginning, not at the margin."""
    line = Text.assemble(start, body)
    width = console.width
    if console.soft_wrap or cell_len(line.plain) <= width:
        console.print(line)
        return
    indent = max(min(indent, width - NARROWEST), 0)
    if start.plain and not start.plain.strip():  # a note on a line of its own: at the indent
        start = Text(" " * indent)
    room = width - cell_len(start.plain)
    if room < NARROWEST:  # no room beside a long start: the body goes under it
        console.print(start)
        start, room = Text(" " * indent), width - indent
    _print_hung(console, start, body, room, indent)


def print_labelled(console: Console, label: str | Text, body: Text) -> None:
    """Print `label` then `body`, each line of the body, and each wrapped line, under the
    body's beginning (an answer under `answer: `)."""
    start = label if isinstance(label, Text) else Text(label)
    indent = cell_len(start.plain)
    for line in body.split("\n", allow_blank=True):
        print_hanging(console, start, line, indent)
        start = Text(" " * indent)


_LABEL = re.compile(r"[^:：]{1,40}?(?:: |：)")
"""A line's label (`cost: `, `轨迹：`): what its wrapped lines go on after."""


_LATIN_WORD = re.compile(r"[^\s\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]+")
"""A run that breaks nowhere inside (Chinese breaks between any two characters)."""


def print_after_label(console: Console, line: str | Text) -> None:
    """Print one line (markup, or Text) of the form `label: text`, its wrapped lines under the
    text after the label (two columns in after a long label); a line without a label wraps at
    its own indentation."""
    text = console.render_str(line, emoji=False) if isinstance(line, str) else line
    label = _LABEL.match(text.plain)
    if label is None or "\n" in text.plain:
        console.print(text)
        return
    start, body = text.divide([label.end()])
    indent = cell_len(start.plain)
    indent = indent if indent <= console.width // 3 else 2
    if max(map(len, _LATIN_WORD.findall(body.plain)), default=0) > console.width - indent:
        console.print(text)  # a path that fits a whole line only: not cut to hang
        return
    print_hanging(console, start, body, indent)


def _print_hung(console: Console, start: Text, body: Text, room: int, indent: int) -> None:
    """Print `start` and as much of `body` as fits in `room` cells, then the rest of the body
    in lines `indent` columns in, all in one write (no other output comes between them)."""
    offsets = break_offsets(body.plain, room, cell_len)
    pieces = [body]
    if offsets:
        head, rest = body.divide(offsets[:1])
        pieces = [head, *rest.divide(break_offsets(rest.plain, console.width - indent, cell_len))]
    pad = Text(" " * indent)
    with console:
        for piece in pieces:
            piece.rstrip()
            Console.print(console, Text.assemble(start, piece))
            start = pad


def silence_stdout() -> None:
    """Point stdout at /dev/null, so nothing written later (nor the flush at exit) fails."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (a test's buffer)
        pass


def make_console(*, stderr: bool = False, **for_tests: Any) -> Console:
    """`for_tests`: a file, a width and force_terminal, to see what a terminal would show."""
    # Rich already drops colour when the output is not a terminal; NO_COLOR is honoured by it
    # too, but only when set to a non-empty value, so say it plainly here.
    no_color = "NO_COLOR" in os.environ
    console = _Console(stderr=stderr, no_color=no_color or None, highlight=False, **for_tests)
    console.soft_wrap = not console.is_terminal
    return console
