"""fc's own words read back from a trace, said in the chosen language.

A trace keeps fc's sentences in English (a manifest's notes, the error that stopped a run, a
harness bug's account): a trace made under `zh` is the same file as one made under `en`. When
the sentence was written it was a `Msg`; read back, it is plain text. `translated` finds the
message it came from in the catalog (its msgid with the placeholders as wildcards) and says it
in the chosen language, its parameters too when they are fc's words themselves. Text that is
not fc's (a provider's sentence, a model's answer) matches no message and stays as it is.

Nothing is loaded under English; under Chinese the catalog's patterns are compiled on the first
sentence read back, once.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from fccli.i18n import _load, language

FIELD = r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)(?:[!:][^{}]*)?\}"
"""A placeholder of a msgid (or a doubled brace). A pattern's text: re compiles it (and
caches it) when a sentence is first said under Chinese, never under English."""
LETTERS = r"[A-Za-z]"
STRONG = 12
"""Letters a msgid must have outside its placeholders to be matched on its own; one with fewer
(`{where}: {problem}`) is a frame, taken only when a parameter in it is fc's words too."""
DEPTH = 4


def translated(text: Any) -> Any:
    """Say `text` (English, as a trace keeps it) in the chosen language; anything else as it is."""
    if language() == "en" or not isinstance(text, str) or not text:
        return text
    return _translation(text, DEPTH)[0]


@cache
def _translation(text: str, depth: int) -> tuple[str, int]:
    """Say `text` in the chosen language; return it and how much of it is fc's words (0:
    none, the text is as it was).

    Of the messages it matches, the one that recognises the most wins: `step 2: X cannot be
    read; ...` is `step {step}: {message}` around a message, not a message whose file is named
    `step 2: X`."""
    catalog = _catalog()
    exact = catalog.get(text)
    if exact:
        return exact, _weight(text) or 1
    if depth == 0 or len(text) > 2000:
        return text, 0
    best: tuple[str, int] = (text, 0)
    soft = text  # a short message opening with a word (`call {who} ({name})`), as a parameter
    for needles, letters, weight, pieces, slots, msgstr, word_first in _patterns():
        if not all(n in text for n in needles):
            continue
        found = _fullmatch(text, pieces, slots)
        if found is None:
            continue
        values = {}
        inner = 0
        for name, group in found.items():
            value, known = _translation(group, depth - 1)
            values[name] = value
            inner += known
        if letters < STRONG and not inner:
            if word_first and depth < DEPTH and soft is text:
                soft = _filled(msgstr, values)  # said, but it vouches for no frame around it
            continue
        if weight + inner > best[1]:
            best = (_filled(msgstr, values), weight + inner)
    return best if best[1] else (soft, 0)


def _letters(text: str) -> int:
    return len(re.findall(LETTERS, text))


def _weight(text: str) -> int:
    """Weigh a piece of text in a match: its characters but blanks."""
    return len(text) - text.count(" ")


def _filled(msgstr: str, values: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(0) in ("{{", "}}"):
            return m.group(0)[0]
        return values.get(m.group(1), m.group(0))

    return re.sub(FIELD, one, msgstr)


@cache
def _catalog() -> dict[str, str]:
    messages: dict[Any, Any] = getattr(_load(), "_catalog", {})
    return {k: v for k, v in messages.items() if isinstance(k, str) and k and v}


def _fullmatch(text: str, pieces: list[str], slots: list[str]) -> dict[str, str] | None:
    """Match `text` against a msgid cut at its placeholders: `pieces[0]`, a value of `slots[0]`,
    `pieces[1]`... to the end; return the values, or None. Each value is the shortest that lets
    the next piece follow (what a lazy regular expression finds), found by scanning once: a
    crafted text cannot make it backtrack."""
    if not text.startswith(pieces[0]):
        return None
    at = len(pieces[0])
    values: dict[str, str] = {}
    for number, name in enumerate(slots):
        piece = pieces[number + 1]
        if number == len(slots) - 1:
            end = len(text) - len(piece)
            if end <= at or not text.endswith(piece):
                return None
        else:
            end = text.find(piece, at + 1) if piece else at + 1
            if end < 0 or end > len(text):
                return None
        value = text[at:end]
        if values.setdefault(name, value) != value:  # a placeholder said twice says one thing
            return None
        at = end + len(piece)
    return values


@cache
def _patterns() -> list[tuple[list[str], int, int, list[str], list[str], str, bool]]:
    """Cut each msgid with placeholders at them, those with the most words first.

    Each comes with the pieces of it a text must hold to be tried against it, its own letters
    and weight, its literal pieces and placeholders in order, its translation, and whether it
    opens with a word (`call {who} ({name})`, not `{where}: {problem}`)."""
    found = []
    for msgid, msgstr in _catalog().items():
        slots: list[str] = []
        pieces = [""]
        at = 0
        for m in re.finditer(FIELD, msgid):
            pieces[-1] += msgid[at : m.start()]
            at = m.end()
            if m.group(0) in ("{{", "}}"):
                pieces[-1] += m.group(0)[0]
            else:
                slots.append(m.group(1))
                pieces.append("")
        if not slots:
            continue
        pieces[-1] += msgid[at:]
        if not "".join(pieces).strip():
            continue  # `{a}{b}`: nothing to recognise it by
        needles = [piece for piece in pieces if len(piece.strip()) > 1]
        own = "".join(pieces)
        word_first = bool(re.match(r"[A-Za-z]{3,} ", pieces[0]))
        found.append((needles, _letters(own), _weight(own), pieces, slots, msgstr, word_first))
    found.sort(key=lambda f: -f[2])
    return found
