"""What every provider is: a named endpoint that takes a wire request body and returns one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class ProviderInfo:
    name: str
    wire_format: str
    """The name of the wire format, also the trace files' suffix."""
    default_model: str
    base_url: str | None
    key_env: str | None
    """The environment variable holding the key (never the key itself)."""


class Provider(Protocol):
    info: ProviderInfo

    def send(self, body: bytes, *, step: int) -> bytes:
        """Post the wire request body, exactly these bytes, and return the response body's bytes."""
        ...
