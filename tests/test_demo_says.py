"""`says` finds a word as the regex it replaced did (the demo's reading must not move)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from fccli.providers.demo_reading import has_cjk, says


def _by_regex(text: str, word: str) -> bool:
    if re.search(r"[\u4e00-\u9fff]", word) or not word[-1:].isalpha():
        return word.casefold() in text.casefold()
    pattern = rf"(?<![a-z]){re.escape(word.casefold())}(?:s|ning|ing)?(?![a-z])"
    return re.search(pattern, text.casefold()) is not None


WORDS = ["run", "rain", "refund", "order", "天气", "ID", "Straße", "e-mail", "go"]
TEXT = st.text(alphabet="runigsaefdoRNIGS -_.ß天气ID0é", max_size=24)


@given(TEXT, st.sampled_from(WORDS))
def test_says_as_the_regex_did(text: str, word: str) -> None:
    assert says(text, word) == _by_regex(text, word)


def test_says_examples() -> None:
    assert says("Should I go running?", "run")
    assert says("it rains", "rain")
    assert not says("the runtime", "run")
    assert not says("rerun it", "run")
    assert says("杭州今天天气", "天气")


@given(st.text(max_size=12))
def test_has_cjk_as_the_regex_did(text: str) -> None:
    assert has_cjk(text) == bool(re.search(r"[\u4e00-\u9fff]", text))
