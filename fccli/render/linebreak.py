"""Where a line of mixed Chinese and Latin text may break, and the breaks that fit it in a width.

Latin text breaks at spaces only, and a word is cut only when it is longer than a line. Chinese
breaks between any two characters, and between a character and a Latin word beside it, except:
no line starts with closing punctuation (`。，、；：？！）」』》…`), none ends with opening
punctuation (`（「『《`), and a number stays with what it counts (`1 条`, `3 ms`, `3条`).
"""

from __future__ import annotations

import re

from rich.cells import cell_len, chop_cells

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

_NUMBER = re.compile(r"[-+]?[$¥€£]?\d[\d,.]*")


def _breaks_around(char: str) -> bool:
    return bool(_BREAKS_AROUND.match(char))


def _number_ends_at(text: str, end: int) -> bool:
    """Say whether the Latin run that ends at `end` is a number (`158`, `3.5`, `¥4999`)."""
    start = end
    while start and not text[start - 1].isspace() and not _breaks_around(text[start - 1]):
        start -= 1
    return bool(_NUMBER.fullmatch(text, start, end))


def may_break_before(text: str, i: int) -> bool:
    """Say whether a line may start at `text[i]` (0 < i < len(text)), dropping blanks before it."""
    after = text[i]
    if after.isspace() or after in CLOSING:
        return False
    before = text[i - 1]
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
    wide_before, wide_after = _breaks_around(before), _breaks_around(after)
    if wide_before and wide_after:
        return True
    if wide_before:
        return after.isalnum()
    if wide_after:
        return before.isalnum() and not _number_ends_at(text, i)
    return False


def break_offsets(text: str, width: int) -> list[int]:
    """Return the offsets where `text` (one line) breaks to fit in `width` cells.

    The blanks before a break stay at the end of the line before it, for the caller to strip.
    A piece that cannot break and is wider than a line is folded by cells.
    """
    found = (m.start() for m in _CANDIDATE.finditer(text, 1))
    starts = [0, *(i for i in found if may_break_before(text, i))]
    breaks: list[int] = []
    used = 0
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        piece = text[start:end]
        needed = cell_len(piece.rstrip())
        if used + needed <= width:
            used += cell_len(piece)
            continue
        if start and used:
            breaks.append(start)
        used = cell_len(piece)
        if needed > width:
            folded = chop_cells(piece, width)
            for line in folded[:-1]:
                start += len(line)
                breaks.append(start)
            used = cell_len(folded[-1])
    return breaks
