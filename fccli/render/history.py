"""What a request's history ends on, as the run view and `fc show` both say it."""

from __future__ import annotations

from fccli.core.models import Message, ToolResultBlock


def handed_back(messages: list[Message]) -> tuple[list[ToolResultBlock], int]:
    """Return the tool results that end the history and how many user messages hold them."""
    results: list[ToolResultBlock] = []
    held = 0
    for message in reversed(messages):
        found = message.tool_results() if message.role == "user" else []
        if not found:
            break
        results[:0] = found
        held += 1
    return results, held
