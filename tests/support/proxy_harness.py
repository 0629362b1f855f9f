"""Running `fc proxy` in the test process (uvicorn in a thread) in front of the fake provider,
and what the tests compare its traces with: the traces `fc run` writes for the same exchange."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fccli.core.models import Message, Request, TextBlock
from fccli.proxy.app import ProxyApp
from fccli.proxy.start import ProxyOptions, build
from fccli.render.console import make_console
from fccli.serve.launch import GRACE_SECONDS, InThread, bind
from fccli.tools.weather import get_weather, toolset
from fccli.wire.registry import FORMATS

QUESTION = "北京、上海今天适合跑步吗？"


@dataclass
class Running:
    app: ProxyApp
    url: str
    out: Path
    screen: io.StringIO

    @property
    def printed(self) -> str:
        self.app.flush()
        return self.screen.getvalue()

    def traces(self) -> list[Path]:
        """The trace directories so far, every file handed to the journal written."""
        self.app.flush()
        return sorted(p for p in self.out.iterdir() if p.is_dir()) if self.out.exists() else []


@contextlib.contextmanager
def proxy(
    out: Path, to: str, plain: bool = False, grace: float = GRACE_SECONDS, **options: Any
) -> Iterator[Running]:
    """`fc proxy --to TO` on a free port of 127.0.0.1, stopped (as Ctrl-C would) on leaving;
    `plain`: served by asyncio and h11, as without the `fast` extra; `grace`: the seconds
    answers still going on are given at the stop (a test of a stalled answer needs few)."""
    screen = io.StringIO()
    console = make_console(file=screen, width=200)
    app, out = build(ProxyOptions(to=to, out=out, port=0, **options), console)
    with InThread(app, bind("127.0.0.1", 0), plain=plain, grace=grace) as server:
        yield Running(app, server.url, out, screen)


def run_tool(name: str, args: dict[str, Any]) -> str:
    """The weather tool as fc runs it, its result as fc hands it back."""
    assert name == "get_weather"
    return json.dumps(get_weather(**args), ensure_ascii=False)


def wire_tools(fmt: str) -> list[dict[str, Any]]:
    """The weather tool set in a format's own form, as `fc run` sends it."""
    request = Request(
        model="m",
        messages=[Message(role="user", content=[TextBlock(text="x")])],
        tools=toolset().specs(),
    )
    tools: list[dict[str, Any]] = FORMATS[fmt].to_wire_request(request)["tools"]
    return tools


def load(path: Path) -> Any:
    return json.loads(path.read_bytes())
