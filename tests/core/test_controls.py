"""fccli/core/controls.py and fccli/core/jsonio.py: the two patterns of each (without the
surrogates; with them, compiled only for a text holding one) escape exactly what the one full
pattern escapes."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from fccli.core import controls
from fccli.core.controls import escape_controls, has_controls
from fccli.core.jsonio import dumps, encoded_pieces

FULL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def reference(text: str) -> str:
    return FULL.sub(lambda m: controls._escaped(m), text)


def json_reference(obj: object) -> str:
    text = json.dumps(obj, ensure_ascii=False, indent=2) + "\n"
    return re.sub("[\x7f-\x9f\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)


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
        assert dumps({"t": text}) == json_reference({"t": text})
        pieces = b"".join(encoded_pieces([text, text]))
        assert pieces == json_reference([text, text]).encode("utf-8")


# any character of the BMP, with the edges of both classes (and a tab, a line break) often
EDGES = st.sampled_from(
    "\ud800\udbff\udc00\udfff\ud7ff\ue000\x00\x08\x09\x0a\x0b\x1f\x20\x7e\x7f\x9f\xa0"
)
ANY = st.characters(min_codepoint=0, max_codepoint=0xFFFF, exclude_categories=())


@given(st.text(alphabet=st.one_of(ANY, EDGES)))
def test_any_text_is_escaped_as_by_the_full_pattern(text: str) -> None:
    assert escape_controls(text) == reference(text)
    assert has_controls(text) == (FULL.search(text) is not None)
    assert dumps(text) == json_reference(text)
