"""fccli/core/controls.py: the two patterns (controls; controls and surrogates, compiled only
for a text holding a surrogate) escape exactly what the one full pattern escapes."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from fccli.core import controls
from fccli.core.controls import escape_controls, has_controls

FULL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def reference(text: str) -> str:
    return FULL.sub(lambda m: controls._escaped(m), text)


TEXTS = [
    "",
    "plain",
    "line\nbreak\tand tab",
    "\x1b[2J\x07\x7f\x9b",
    "杭州\ud800今天\x1b",
    "\udfff",
    # a surrogate in the second chunk the search encodes, after a non-ASCII first one
    "é" * controls._CHUNK + "\ud801",
]


def test_what_is_escaped_is_what_the_one_full_pattern_escapes() -> None:
    for text in TEXTS:
        assert escape_controls(text) == reference(text)
        assert has_controls(text) == (FULL.search(text) is not None)


# any character of the BMP, with the edges of both classes (and a tab, a line break) often
EDGES = st.sampled_from(
    "\ud800\udbff\udc00\udfff\ud7ff\ue000\x00\x08\x09\x0a\x0b\x1f\x20\x7e\x7f\x9f\xa0"
)
ANY = st.characters(min_codepoint=0, max_codepoint=0xFFFF, exclude_categories=())


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.one_of(ANY, EDGES)))
def test_any_text_is_escaped_as_by_the_full_pattern(text: str) -> None:
    assert escape_controls(text) == reference(text)
    assert has_controls(text) == (FULL.search(text) is not None)
