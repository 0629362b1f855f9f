"""What every provider is: a named endpoint that takes a wire request body and returns one."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fccli.core.body import Body

from collections.abc import Callable
from typing import Any, NamedTuple, Protocol


# A NamedTuple, not a dataclass: start-up.
class ProviderInfo(NamedTuple):
    name: str
    wire_format: str
    """The name of the wire format, also the trace files' suffix."""
    default_model: str
    base_url: str | None
    key_env: str | None
    """The environment variable holding the key (never the key itself)."""


class Reply:
    """What a provider answered. A plain class, not a dataclass: start-up (docs/performance.md)."""

    def __init__(
        self,
        body: bytes,
        attempts: list[dict[str, Any]] | None = None,
        stored: bytes | None = None,
        cut: str | None = None,
        interrupted: bool = False,
    ) -> None:
        self.body = body
        """The response body exactly as received."""
        self.attempts: list[dict[str, Any]] = [] if attempts is None else attempts
        """One entry per HTTP attempt (status or error, duration, wait before it), for the
        manifest."""
        self.stored = stored
        """What the trace keeps when it must differ from `body`: a key the server echoed, masked."""
        self.cut = cut
        """A stream only: why the body ended early ("the connection closed mid-stream"), or None
        when it ended cleanly. The bytes that did arrive are in `body`."""
        self.interrupted = interrupted
        """A stream only: Ctrl-C stopped it. The caller writes what came, then stops the run."""


class Provider(Protocol):
    @property
    def info(self) -> ProviderInfo: ...

    def send(self, body: Body, *, step: int) -> Reply:
        """Post the wire request body, exactly these bytes, and return the response body."""
        ...

    def mask(self, text: str) -> str:
        """Return `text` with the provider's secrets replaced by ***: for messages built from what a
        server sent (a stream's error event, a cut fragment), which no transport has masked."""
        ...

    def send_stream(self, body: Body, *, step: int, on_bytes: Callable[[bytes], None]) -> Reply:
        """Post a request that asks for a stream; hand every piece of the body to `on_bytes` as
        it arrives, and return all of it. An HTTP error before the stream starts raises
        ProviderError as `send` does; a stream that stops part-way returns with `cut` set."""
        ...
