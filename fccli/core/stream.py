"""What a stream folder reports while a streamed answer arrives, for a live view.

Only shapes: the folders (one per wire format, in `wire/`) make them, a renderer shows them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple


# A NamedTuple, not a dataclass: start-up.
class StreamDelta(NamedTuple):
    kind: Literal["text", "thinking", "call"]
    """text or reasoning arriving, or a tool call (its head, then its argument fragments)."""
    text: str
    """The fragment as it arrived ("" for a call's head without arguments)."""
    call: int = -1
    """For kind "call": the call's position in the answer (0, 1, ...), whatever index the wire used."""
    id: str | None = None
    """For kind "call": the call's id, once known."""
    name: str | None = None
    """For kind "call": the tool's name, once known."""


OnDelta = Callable[[StreamDelta], None]
