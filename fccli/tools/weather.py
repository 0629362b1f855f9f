"""The built-in `weather` tool set: `get_weather(city)`, read from the demo table in fixtures/.

Always the same answers, so a trace made today matches one made next year. A city it does not
know is an error result listing the ones it knows, so the model can try again or say so.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from fccli.core.cities import cities, lookup
from fccli.i18n import _
from fccli.tools.registry import ToolError, ToolSet, tool_from_function


def get_weather(
    city: Annotated[str, Field(description="城市名，例如：杭州")],
) -> dict[str, Any]:
    """查询某个城市当前的天气。返回温度（摄氏度）、天气状况和空气质量指数。"""
    found = lookup(city)
    if found is None:
        known = "、".join(_("{zh} ({en})", zh=c["zh"], en=c["en"]) for c in cities())
        raise ToolError(_("unknown city {city!r}. Known cities: {known}", city=city, known=known))
    row, lang = found
    return {
        "city": row[lang],
        "temp_c": row["temp_c"],
        "condition": row["condition"] if lang == "zh" else row["condition_en"],
        "aqi": row["aqi"],
    }


__all__ = ["cities", "get_weather", "lookup", "toolset"]


def toolset() -> ToolSet:
    return ToolSet("weather", [tool_from_function(get_weather)])
