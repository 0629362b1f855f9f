"""A streamable HTTP MCP server written with the SDK's MCPServer, served in a thread of the test
process: `get_weather` (the demo table), `get_alerts` (always fails: isError), `snapshot` (an
image and a text), `halves` (a text handed back in two text parts)."""

from __future__ import annotations

import base64
from typing import Any

from fccli.serve.launch import InThread, bind


def weather_app() -> Any:
    from mcp.server.mcpserver import Image, MCPServer

    from fccli.mcp.demo import get_alerts, get_weather

    server: Any = MCPServer("weather-http", version="9.9", log_level="ERROR")
    server.tool()(get_weather)
    server.tool()(get_alerts)

    @server.tool()
    def snapshot(city: str) -> list[Any]:
        """A camera picture of a city."""
        png = base64.b64decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
        )
        return [f"the sky over {city}", Image(data=png, format="png")]

    @server.tool()
    def halves(text: str, cut: int) -> list[Any]:
        """The text, cut in two text parts at `cut`."""
        return [text[:cut], text[cut:]]

    return server.streamable_http_app()


def serve() -> InThread:
    return InThread(weather_app(), bind("127.0.0.1", 0)).start()
