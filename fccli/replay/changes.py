"""What a replay changed, as the view shows it: plain data, no provider or wire import."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ResultChange:
    """One tool result that goes out different from what the trace's run handed back."""

    id: str
    tool: str | None
    """The name of the call it answers, when the history holds that call."""
    input: dict[str, Any] | None
    before: str | None
    """None: no result had this id before (an id changed by hand)."""
    before_error: bool
    after: str
    after_error: bool
    how: list[str] = field(default_factory=list)
    """The edits that made it: set, error, ok, editor, hand-edited."""


@dataclass
class ReplayPlan:
    """Everything said before the replayed request goes out."""

    origin: str
    """The original trace's path."""
    step: int
    request_file: str
    """The file the step's request was read from."""
    provider: str
    wire_format: str
    model: str
    out: str
    """The new trace's path."""
    changes: list[ResultChange]
    original_provider: str | None = None
    """Set when --provider changed it."""
    original_answer: str | None = None
    original_status: str | None = None
