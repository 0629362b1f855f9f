"""fc's JSON files written in pieces (fccli/core/jsonio.py `encoded_pieces`): the same bytes as
the one JSON style of fc's files, whatever the value, and a big string is escaped a slice at a
time instead of whole (a 20 MB tool result must not be copied whole once more)."""

from __future__ import annotations

import math
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fccli.core.errors import InputFileError
from fccli.core.jsonio import encode, encoded_pieces, parse_json

TEXT = st.text(
    st.characters(codec=None, exclude_categories=()) | st.sampled_from('\x00\x7f\x9b\ud800\n"\\中')
)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | TEXT
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)


@given(VALUES, st.integers(min_value=1, max_value=6))
def test_the_pieces_are_the_files_bytes_with_big_strings_set_apart(value: object, big: int) -> None:
    assert b"".join(encoded_pieces(value, big=big)) == encode(value)


def test_special_floats_and_odd_keys_come_out_as_json_writes_them() -> None:
    value = {"nan": math.nan, "inf": [math.inf, -math.inf, 1e300, -0.0], 1: True, None: "x" * 9}
    assert b"".join(encoded_pieces(value, big=4)) == encode(value)


def test_a_big_string_is_never_escaped_whole() -> None:
    result = "晴" + "x" * 8_000_000  # 16 MB in Python (two bytes a character)
    tracemalloc.start()
    try:
        for _ in encoded_pieces({"role": "tool", "content": [result]}):
            pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 12_000_000, f"{peak / 1e6:.1f} MB"  # one escaped copy alone is 16 MB


def test_a_body_read_from_its_file_goes_out_in_pieces_of_the_same_bytes(tmp_path) -> None:
    from fccli.core.body import PIECE, FileBody
    from fccli.providers.transport import _pieces

    path = tmp_path / "2-request.deepseek.json"
    path.write_bytes(encode({"content": "晴" + "x" * (PIECE * 2)}))
    body = FileBody(path)
    pieces = list(_pieces(body))
    assert len(pieces) == 3 and all(len(p) <= PIECE for p in pieces)
    assert b"".join(pieces) == bytes(body) == path.read_bytes()
    assert len(body) == path.stat().st_size


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"a": "\x1b"}', "not valid JSON: Invalid control character at line 1, column 8"),
        ('{"a": "open', "not valid JSON: Unterminated string starting at line 1, column 7"),
    ],
)
def test_a_syntax_error_names_its_place_once(text: str, said: str) -> None:
    with pytest.raises(InputFileError) as caught:
        parse_json(text, "f.json")
    assert said in str(caught.value)
    assert " at at " not in str(caught.value)
