"""`fc proxy` from its options to a running server: the target resolved, the port bound, the
line for the agent printed, then served until Ctrl-C."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fccli.core.errors import UsageError
from fccli.i18n import Msg
from fccli.proxy.app import MAX_REQUEST_BYTES, ProxyApp
from fccli.proxy.journal import ChildJournal
from fccli.proxy.settings import Settings
from fccli.proxy.target import Target, resolve
from fccli.render.console import make_console
from fccli.render.proxy_view import ProxyView
from fccli.serve import launch
from fccli.serve.guard import Guard
from fccli.trace.names import TRACES_ROOT

if TYPE_CHECKING:
    from rich.console import Console


@dataclass
class ProxyOptions:
    """`fc proxy`'s options as given."""

    to: str
    port: int = 8787
    host: str = "127.0.0.1"
    out: Path | None = None
    base_url: str | None = None
    strict_check: bool = False
    max_record_bytes: int = 16 * 1024 * 1024
    max_request_bytes: int = MAX_REQUEST_BYTES
    allow_origins: tuple[str, ...] = ()
    timeout: float = 600.0
    idle_seconds: float = 900.0


def default_out(now: datetime | None = None) -> Path:
    """Name the folder of a proxy's traces by when it started: `traces/proxy-YYYYMMDD-HHMMSS`."""
    return TRACES_ROOT / f"proxy-{(now or datetime.now()).strftime('%Y%m%d-%H%M%S')}"


def build(options: ProxyOptions, console: Console | None = None) -> tuple[ProxyApp, Path]:
    """Build the app for `options` with its journal in a thread (tests); return it and where
    its traces go. Nothing is bound or printed yet. `console`: a test's, else stdout."""
    target, settings, view = _parts(options, console)
    return ProxyApp(target, settings, view, **_limits(options)), settings.out


def _limits(options: ProxyOptions) -> dict[str, Any]:
    return {
        "guard": Guard(options.host, options.allow_origins),
        "max_request_bytes": options.max_request_bytes,
    }


def _parts(options: ProxyOptions, console: Console | None) -> tuple[Target, Settings, ProxyView]:
    target = resolve(options.to, options.base_url)
    out = options.out or default_out()
    if out.exists() and not out.is_dir():
        raise UsageError(Msg("--out {path} exists and is not a directory", path=str(out)))
    view = ProxyView(console or make_console(), target.name)
    settings = Settings(
        out=out,
        strict_check=options.strict_check,
        max_record_bytes=options.max_record_bytes,
        timeout=options.timeout,
        idle_seconds=options.idle_seconds,
    )
    return target, settings, view


def serve(options: ProxyOptions) -> None:
    """Run `fc proxy`, its journal in a child process (journal.py) started once the port is
    bound."""
    target, settings, view = _parts(options, None)
    limits = _limits(options)
    bound = launch.bind(options.host, options.port)
    journal = ChildJournal(target, settings, view.journal_lost)
    app = ProxyApp(target, settings, view, journal, **limits)
    view.banner(bound.url, target.agent_lines(bound.url), target.shown, str(settings.out))
    warning = launch.exposure_warning(options.host)
    if warning is not None:
        view.warn(warning)
    launch.run(app, bound, on_close=app.close)
