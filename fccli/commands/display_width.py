"""Measure and wrap text by terminal columns: a CJK character takes two (click counts one)."""

from __future__ import annotations

import re

# Not at the start of a line / not at the end of one (Chinese line breaking, simplified).
_CLOSING = set("，。、：；？！）》」』】…—,.:;?!)]}%")
_OPENING = set("（《「『【([{")
# Patterns, not compiled objects: `re` compiles them on first use, never for an English page
# (start-up).
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
    """Count the columns `text` takes in a terminal: two for a wide (CJK) character."""
    if text.isascii():
        return len(text)
    return len(text) + len(re.findall(_WIDE, text))


def _tokens(text: str) -> list[str]:
    """Split `text` into words, spaces and single CJK characters, glued so that a line never
    starts with a closing mark nor ends with an opening one."""
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
    """Fill `text` into lines of at most `width` columns (indents included), as click's
    TextWrapper does by length; cut a word longer than a line."""
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
    """Return the longest start of `token` that takes at most `room` columns (one character at
    least)."""
    used = 0
    for index, ch in enumerate(token):
        used += cells(ch)
        if used > room:
            return token[: max(index, 1)]
    return token


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
        joined = " ".join(line.strip() for line in raw)
        lines.extend(wrapped(joined, width, indent + extra, indent + extra))
    return lines


def shortened(text: str, limit: int) -> str:
    """Shorten a command's help for the list of commands: its first sentence if that fits in
    `limit` columns, else its start cut at a word with `...` (click's rule, by display width)."""
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
