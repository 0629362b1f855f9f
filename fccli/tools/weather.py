"""The built-in `weather` tool set: `get_weather(city)`, read from the demo table in fixtures/.

Always the same answers, so a trace made today matches one made next year. A city it does not
know is an error result listing the ones it knows, so the model can try again or say so.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Annotated, Any

from pydantic import Field

from fccli.paths import fixtures_dir
from fccli.tools.registry import ToolError, ToolSet, tool_from_function


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
    """The table row for a Chinese or English city name, and the language it was asked in."""
    return _index().get(_key(name))


def get_weather(
    city: Annotated[str, Field(description="城市名，例如：杭州")],
) -> dict[str, Any]:
    """查询某个城市当前的天气。返回温度（摄氏度）、天气状况和空气质量指数。"""
    found = lookup(city)
    if found is None:
        known = "、".join(f"{c['zh']} ({c['en']})" for c in cities())
        raise ToolError(f"unknown city {city!r}. Known cities: {known}")
    row, lang = found
    return {
        "city": row[lang],
        "temp_c": row["temp_c"],
        "condition": row["condition"] if lang == "zh" else row["condition_en"],
        "aqi": row["aqi"],
    }


def toolset() -> ToolSet:
    return ToolSet("weather", [tool_from_function(get_weather)])
