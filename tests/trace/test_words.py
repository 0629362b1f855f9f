"""fc's words read back from a trace under --lang zh (fccli/trace/words.py): a msgid matched by
one scan, as a lazy regular expression would match it, in time linear in the note however it is
crafted."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fccli.i18n import set_language
from fccli.trace import words


@pytest.fixture
def zh():
    set_language("zh")
    yield
    set_language("en")


def _regex(pieces: list[str], slots: list[str]) -> re.Pattern[str]:
    """The pattern the msgid used to be matched with: each placeholder `(.+?)`."""
    parts, seen = [re.escape(pieces[0])], set()
    for name, piece in zip(slots, pieces[1:], strict=True):
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        parts.append(re.escape(piece))
    return re.compile("".join(parts), re.DOTALL)


def _crafted(pieces: list[str]) -> str:
    """A 1.5 KB note holding a msgid's inner pieces over and over but never its end: every way
    to place them fails, which a backtracking match tries one by one."""
    inner = "".join("x" + piece for piece in pieces[1:-1])
    return (pieces[0] + inner * 400)[:1500] + "zz"


def test_crafted_notes_are_read_back_in_bounded_time(zh) -> None:
    patterns = [p for p in words._patterns() if len(p[4]) >= 4 and p[3][-1]][:6]
    assert len(patterns) == 6
    started = time.monotonic()
    for _, _, _, pieces, _, _, _ in patterns:
        assert isinstance(words.translated(_crafted(pieces)), str)
    # a backtracking match took 10 s on one of these alone
    assert time.monotonic() - started < 5


SHAPES = [
    (["step ", ": ", ""], ["step", "message"]),
    (["", " is a ", " and ", " a ", ", in different steps"], ["a", "a_kind", "b", "b_kind"]),
    (["", "", " ("], ["reason", "wire"]),
    (["call ", " of ", " and ", " again"], ["who", "name", "who"]),
]


@given(
    shape=st.sampled_from(SHAPES),
    parts=st.lists(st.sampled_from(["x", "step ", ": ", " a ", " and ", " (", ")", "of", " "])),
)
def test_one_scan_matches_as_the_lazy_regular_expression(shape, parts) -> None:
    pieces, slots = shape
    text = "".join(parts)
    found = _regex(pieces, slots).fullmatch(text)
    expected = None if found is None else {name: found.group(name) for name in slots}
    assert words._fullmatch(text, pieces, slots) == expected
