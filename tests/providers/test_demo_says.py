"""`says` finds a word as the regex it replaced did (the demo's reading must not move)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from fccli.providers.demo.reading import has_cjk, says


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


def test_a_city_s_english_name_is_found_as_by_a_search_of_every_name() -> None:
    """demo_reading._places searches only the names a text can hold ignoring case; re's
    IGNORECASE also takes İ ı ſ K for ASCII letters, which the first look must not miss."""
    import re

    from fccli.core import cities
    from fccli.providers.demo.reading import _places

    def every_name(text: str) -> list[str]:
        found = []
        for city in cities.cities():
            positions = [text.find(city["zh"])]
            for name in (city["en"], *city.get("aliases", [])):
                m = re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE)
                positions.append(m.start() if m else -1)
            if any(p >= 0 for p in positions):
                found.append((min(p for p in positions if p >= 0), city["en"]))
        return [name for _, name in sorted(found)]

    for text in [
        "Weather in SHANGHAI and beijing?",
        "ſhanghai, Beİjing, Harbın, \u212aunming",
        "XIAN or Xi'an, not Xianyang; 杭州今天",
        "hangzhoux",
        "",
    ]:
        assert [c["en"] for c in _places(text)] == every_name(text), text
