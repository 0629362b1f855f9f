"""The demo world's cities: the table in fixtures/weather.json, by Chinese or English name.

Shared data, not a tool: the weather tool reads it to answer, the demo model to recognise
cities in a question (a real model knows city names too), `fc run` to name trace directories.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from fccli.core.paths import fixtures_dir


@cache
def cities() -> tuple[dict[str, Any], ...]:
    with open(fixtures_dir() / "weather.json", encoding="utf-8") as f:
        return tuple(json.load(f)["cities"])


def _key(name: str) -> str:
    key = name.strip().casefold().replace(" ", "").replace("'", "")
    # "杭州市" is 杭州: the city suffix is not part of the name.
    return key[:-1] if key.endswith("市") and len(key) > 2 else key


@cache
def _index() -> dict[str, tuple[dict[str, Any], str]]:
    index: dict[str, tuple[dict[str, Any], str]] = {}
    for city in cities():
        index[_key(city["zh"])] = (city, "zh")
        for name in (city["en"], *city.get("aliases", [])):
            index[_key(name)] = (city, "en")
    return index


def lookup(name: str) -> tuple[dict[str, Any], str] | None:
    """Return the table row for a Chinese or English city name, and the language it was asked in."""
    return _index().get(_key(name))
