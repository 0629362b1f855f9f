"""What the engine tells whoever watches a run: events in the order they happen, and the result.

Their own module so that a renderer depends on these shapes only, never on the engine's
providers or wire formats (ARCHITECTURE.md: render never imports wire, providers, transport).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fccli.core.models import Request, Response
from fccli.core.stream import StreamDelta
from fccli.tools.execute import ToolRun

if TYPE_CHECKING:
    from fccli.cost.price import StepPrice

# Events, in the order they happen. A renderer may ignore any of them.
# Plain classes, not dataclasses: start-up of `fc run` (docs/performance.md).


class StepStarted:
    """A request is about to go out."""

    def __init__(self, step: int, request: Request, wire_messages: int) -> None:
        self.step = step
        self.request = request
        self.wire_messages = wire_messages
        """How many messages the wire body holds (chat: one per tool result)."""


class StreamProgress:
    """A fragment of a streamed answer, as it arrives (text, reasoning, a call's arguments)."""

    def __init__(self, step: int, delta: StreamDelta) -> None:
        self.step = step
        self.delta = delta


class ResponseReceived:
    """An answer came and was read."""

    def __init__(
        self,
        step: int,
        response: Response,
        duration_ms: float,
        wire_stop_reason: str | None = None,
        attempts: list[dict[str, Any]] | None = None,
        stream: dict[str, Any] | None = None,
        cost: StepPrice | None = None,
    ) -> None:
        self.step = step
        self.response = response
        self.duration_ms = duration_ms
        self.wire_stop_reason = wire_stop_reason
        """The stop reason in the wire format's own words (chat: `finish_reason`)."""
        self.attempts: list[dict[str, Any]] = [] if attempts is None else attempts
        """The HTTP attempts it took (a retry after 429 or 5xx shows here); empty offline."""
        self.stream = stream
        """For a streamed answer: bytes, pieces and time to the first byte, as in the manifest."""
        self.cost = cost
        """What the step cost (or why it has no price); None when it reported no token counts."""


class ToolsExecuted:
    """The tools ran the calls of a step."""

    def __init__(self, step: int, runs: list[ToolRun], harness_bug: str | None = None) -> None:
        self.step = step
        self.runs = runs
        self.harness_bug = harness_bug
        """The --harness-bug in force: how the calls were validated and the results go back."""


class Note:
    """Something a learner should notice (a stop reason at odds with the content, ...)."""

    def __init__(self, step: int, text: str) -> None:
        self.step = step
        self.text = text


Event = StepStarted | StreamProgress | ResponseReceived | ToolsExecuted | Note


class RunResult:
    """How the run ended: its status, steps, final answer and notes."""

    def __init__(
        self, status: str, steps: int, final_answer: str | None, notes: list[str] | None = None
    ) -> None:
        self.status = status
        """ok | error | interrupted | max_steps"""
        self.steps = steps
        self.final_answer = final_answer
        self.notes: list[str] = [] if notes is None else notes
