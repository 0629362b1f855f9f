"""What the engine tells whoever watches a run: events in the order they happen, and the result.

Their own module so that a renderer depends on these shapes only, never on the engine's
providers or wire formats (ARCHITECTURE.md: render never imports wire, providers, transport).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fccli.core.models import Request, Response
from fccli.core.stream import StreamDelta
from fccli.tools.execute import ToolRun

FINAL_STOPS = ("end_turn", "stop_sequence", "refusal")


# Events, in the order they happen. A renderer may ignore any of them.


@dataclass
class StepStarted:
    step: int
    request: Request
    wire_messages: int
    """How many messages the wire body holds (chat: one per tool result)."""


@dataclass
class StreamProgress:
    """A fragment of a streamed answer, as it arrives (text, reasoning, a call's arguments)."""

    step: int
    delta: StreamDelta


@dataclass
class ResponseReceived:
    step: int
    response: Response
    duration_ms: float
    wire_stop_reason: str | None = None
    """The stop reason in the wire format's own words (chat: `finish_reason`)."""
    attempts: list[dict[str, Any]] = field(default_factory=list)
    """The HTTP attempts it took (a retry after 429 or 5xx shows here); empty offline."""
    stream: dict[str, Any] | None = None
    """For a streamed answer: bytes, pieces and time to the first byte, as in the manifest."""


@dataclass
class ToolsExecuted:
    step: int
    runs: list[ToolRun]


@dataclass
class Note:
    """Something a learner should notice (a stop reason at odds with the content, ...)."""

    step: int
    text: str


Event = StepStarted | StreamProgress | ResponseReceived | ToolsExecuted | Note


@dataclass
class RunResult:
    status: str
    """ok | error | interrupted | max_steps"""
    steps: int
    final_answer: str | None
    notes: list[str] = field(default_factory=list)
