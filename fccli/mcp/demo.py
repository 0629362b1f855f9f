"""`fc mcp demo`: an MCP server over stdio, built on the SDK's `MCPServer`, for offline runs.

Its tools: `get_weather` (the demo weather table, as the built-in set answers), and
`get_alerts`, which always fails (`isError: true`), to show what a tool's failure looks like
on the wire. Its resource: `weather://cities`, the cities the table knows.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError as Failed
from pydantic import Field

from fccli.core.cities import cities
from fccli.tools.registry import ToolError
from fccli.tools.weather import get_weather as weather_row

NAME = "fc-demo"


def get_weather(city: Annotated[str, Field(description="城市名，例如：杭州")]) -> dict[str, Any]:
    """查询某个城市当前的天气。返回温度（摄氏度）、天气状况和空气质量指数。"""
    try:
        return weather_row(city)
    except ToolError as e:
        raise Failed(str(e)) from None


def get_alerts(city: Annotated[str, Field(description="城市名，例如：杭州")]) -> str:
    """查询某个城市的气象预警。"""
    # The SDK's ToolError: its message reaches the model (any other exception's is withheld).
    raise Failed(f"the alert service for {city} is unreachable (this demo tool always fails)")


def known_cities() -> str:
    """The cities the demo weather table knows, in Chinese and English."""
    return json.dumps([{"zh": c["zh"], "en": c["en"]} for c in cities()], ensure_ascii=False)


def serve() -> None:
    """Serve the demo tools and resource over stdio until stdin closes."""
    from mcp.server.mcpserver import MCPServer

    from fccli import __version__

    server: Any = MCPServer(NAME, version=__version__, log_level="ERROR")
    server.tool()(get_weather)
    server.tool()(get_alerts)
    server.resource("weather://cities", mime_type="application/json")(known_cities)
    server.run("stdio")
