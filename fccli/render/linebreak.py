"""Where a line of mixed Chinese and Latin text may break, and the breaks that fit it in a width.

Latin text breaks at spaces only, and a word is cut only when it is longer than a line. Chinese
breaks between any two characters, and between a character and a Latin word beside it, except:
no line starts with closing punctuation (`。，、；：？！）」』》…`), none ends with opening
punctuation (`（「『《`), and a number stays with what it counts (`1 条`, `3 ms`, `3条`,
`06:00-10:00 时段`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

OPENING = frozenset("（「『《〈【〔〖｛［“‘([{")
"""No line ends with one of these: it belongs to what follows."""

CLOSING = frozenset("。，、；：？！）」』》〉】〕〗｝］”’…‥・·﹐﹑﹒﹔﹕﹖﹗,.;:!?)]}%")
"""No line starts with one of these: it belongs to what comes before."""

_AROUND = (
    "[\u1100-\u115f\u2e80-\u303f\u3040-\u30ff\u3100-\u31ff\u3200-\u33ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60"
    "\uffe0-\uffe6\U00020000-\U0003ffff“‘”’…]"
)
"""Chinese, Japanese and Korean characters, their punctuation and curly quotes: a line may
break on either side of each."""
_BREAKS_AROUND = re.compile(_AROUND)
_CANDIDATE = re.compile(rf"(?:(?<=\s)|(?<={_AROUND})|(?={_AROUND}))(?=\S)")
"""Where a break may be: before a word, or beside a character of `_AROUND`."""

_NUMBER = re.compile(r"[-+]?[$¥€£]?\d[\d,.]*(?::\d+)*(?:[-–~]\d[\d,.]*(?::\d+)*)?")
"""A number, a time or a range of them (`158`, `¥4999`, `06:00-10:00`): kept with its word."""

# East Asian Wide and Fullwidth characters (what `unicodedata.east_asian_width` calls W and F),
# by block: a regular expression counts them at C speed, and a page has thousands to measure.
_WIDE = re.compile(
    "[\u1100-\u115f\u231a\u231b\u2329\u232a\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19"
    "\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\U0001f300-\U0001f64f\U0001f900-\U0001f9ff"
    "\U00020000-\U0003fffd]"
)


def cells(text: str) -> int:
    """Count the columns `text` takes in a terminal: two for a wide (CJK) character.

    Rich's `cell_len` also knows zero-width and more emoji; this one needs no Rich (help pages).
    """
    if text.isascii():
        return len(text)
    return len(text) + len(_WIDE.findall(text))


def _number_ends_at(text: str, end: int) -> bool:
    """Say whether the Latin run that ends at `end` is a number (`158`, `3.5`, `¥4999`); one
    that ends a clause (`21,` in `"temp_c": 21, "aqi": 38`) counts nothing after it."""
    if text[end - 1] in ",;":
        return False
    start = end
    while start and not text[start - 1].isspace() and not _BREAKS_AROUND.match(text[start - 1]):
        start -= 1
    return bool(_NUMBER.fullmatch(text, start, end))


def may_break_before(text: str, i: int) -> bool:
    """Say whether a line may start at `text[i]` (0 < i < len(text)), dropping blanks before it."""
    after, before = text[i], text[i - 1]
    # After a blank, a Latin mark starts a word (`./traces`, `.env`), not a closing.
    if after.isspace() or (after in CLOSING and not (after.isascii() and before.isspace())):
        return False
    if before.isspace():
        end = i - 1
        while end and text[end - 1].isspace():
            end -= 1
        if not end or text[end - 1] in OPENING:
            return False
        # A number stays with the word it counts, unless that word is a number too (`1 2 3`).
        return not (_number_ends_at(text, end) and not _NUMBER.match(text, i))
    if before in OPENING:
        return False
    wide_before, wide_after = _BREAKS_AROUND.match(before), _BREAKS_AROUND.match(after)
    if wide_before and wide_after:
        return True
    if wide_before:  # a word, `$FC_LANG`, or what a bracket opens (`：{"city": …}`)
        return after.isalnum() or after == "$" or after in OPENING
    if wide_after:
        return before.isalnum() and (after in OPENING or not _number_ends_at(text, i))
    return False


def break_offsets(text: str, width: int, measure: Callable[[str], int] = cells) -> list[int]:
    """Return the offsets where `text` (one line) breaks to fit in `width` cells (by `measure`).

    The blanks before a break stay at the end of the line before it, for the caller to strip.
    A piece that cannot break and is wider than a line is folded by cells.
    """
    found = (m.start() for m in _CANDIDATE.finditer(text, 1))
    starts = [0, *(i for i in found if may_break_before(text, i))]
    breaks: list[int] = []
    used = 0
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        piece = text[start:end]
        needed = measure(piece.rstrip())
        if used + needed <= width:
            used += measure(piece)
            continue
        if start and used:
            breaks.append(start)
        while measure(piece.rstrip()) > width and len(piece) > 1:
            line = _longest_start(piece, width, measure)
            start += len(line)
            breaks.append(start)
            piece = piece[len(line) :]
        used = measure(piece)
    return breaks


def _longest_start(text: str, width: int, measure: Callable[[str], int]) -> str:
    """Return the longest start of `text` that fits in `width` cells (one character at least)."""
    used = 0
    for index, char in enumerate(text):
        used += measure(char)
        if used > width:
            return text[: max(index, 1)]
    return text


def wrapped(line: str, width: int, indent: int) -> str:
    """Return `line` broken to `width` cells where its language allows, each further line
    `indent` spaces in (a line that fits comes back as it is)."""
    if width <= 0 or cells(line) <= width:
        return line
    indent = max(min(indent, width // 2), 0)
    first_breaks = break_offsets(line, width)
    if not first_breaks:
        return line
    head, rest = line[: first_breaks[0]].rstrip(), line[first_breaks[0] :].lstrip()
    out = [head]
    room = width - indent
    while rest:
        breaks = break_offsets(rest, room)
        piece, rest = (rest[: breaks[0]], rest[breaks[0] :].lstrip()) if breaks else (rest, "")
        out.append(" " * indent + piece.rstrip())
    return "\n".join(out)


def terminal_width(stream: object) -> int:
    """Return the width of the terminal `stream` writes to, or 0 when it is not one (a pipe or
    a file keeps its lines whole)."""
    import os

    isatty = getattr(stream, "isatty", None)
    if isatty is None or not isatty():
        return 0
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit():
        return int(columns)
    try:
        return os.get_terminal_size(stream.fileno()).columns  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return 80
