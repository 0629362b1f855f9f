"""What `fc proxy` was asked to do, read by the app, the journal and its handler alike."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class Settings:
    out: Path
    """Where the traces go."""
    strict_check: bool = False
    max_record_bytes: int = 16 * 1024 * 1024
    """A request or answer body above this is forwarded and not recorded."""
    timeout: float = 600.0
    """Seconds an answer may take before fc gives up on it."""
    idle_seconds: float = 900.0
    """A conversation whose agent sends no next request for this long is closed (an agent
    that stopped, a tool call never answered); a request after that starts a new trace."""
