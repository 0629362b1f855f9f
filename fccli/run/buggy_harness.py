"""What `--harness-bug KIND` does to the round trip: each function is one classic mistake.

The engine calls these at the one place each mistake happens in a real harness, and records in
the trace's manifest, on the step it changed, what it did (`fc show` prints it in red). The
mistakes are the program's, so the model sees them as a provider would: DeepSeek's 400 for a
turn without its reasoning, an answer built on results paired by position.
"""

from __future__ import annotations

import json
from typing import Any

from fccli.core.models import Block, Message, ProviderBlock, ThinkingBlock, ToolResultBlock
from fccli.i18n import Joined, Msg
from fccli.tools.execute import ToolRun


def hand_back(bug: str | None, runs: list[ToolRun]) -> tuple[list[Message], Msg | None]:
    """Build the user message(s) that hand the results back; say what the bug changed (or None)."""
    results = [r.result for r in runs]
    if bug == "drop-results":
        ids = Joined([r.call.id for r in runs], ", ")
        return [], Msg("drop-results: the results of {ids} were not handed back", ids=ids)
    if bug == "split-results" and len(results) > 1:
        note = Msg("split-results: {n} results sent as {n} user messages, not one", n=len(results))
        return [Message(role="user", content=[r]) for r in results], note
    if bug == "pair-by-order" and len(results) > 1:
        # The results came back in another order and were matched to the calls by position:
        # each id now carries the next call's result.
        moved = [*results[1:], results[0]]
        paired = [
            ToolResultBlock(tool_use_id=r.tool_use_id, content=m.content, is_error=m.is_error)
            for r, m in zip(results, moved, strict=True)
        ]
        swaps = [
            Msg(
                "{id} ({arguments}) got the result of {other} ({other_arguments})",
                id=run.call.id,
                arguments=_label(run),
                other=other.call.id,
                other_arguments=_label(other),
            )
            for run, other in zip(runs, [*runs[1:], runs[0]], strict=True)
        ]
        joined = swaps[0]
        for swap in swaps[1:]:
            joined = Msg("{first}; {then}", first=joined, then=swap)
        return [Message(role="user", content=list(paired))], Msg(
            "pair-by-order: {swaps}", swaps=joined
        )
    return [Message(role="user", content=list(results))], None


def _label(run: ToolRun) -> str:
    return json.dumps(run.call.input, ensure_ascii=False)


def without_reasoning(step: int, message: Message) -> tuple[Message, Msg]:
    """Drop the reasoning of an assistant turn (drop-reasoning); say what was dropped.

    Reasoning is a thinking block, or a provider's own reasoning item kept verbatim, as OpenAI
    Responses' `reasoning`."""
    kept = [b for b in message.content if not _is_reasoning(b)]
    if len(kept) == len(message.content):
        return message, Msg(
            "drop-reasoning: step {step} had no reasoning to drop (the turn is carried back whole)",
            step=step,
        )
    return Message(role=message.role, content=kept), Msg(
        "drop-reasoning: step {step}'s reasoning was not carried back", step=step
    )


def _is_reasoning(block: Block) -> bool:
    return isinstance(block, ThinkingBlock) or (
        isinstance(block, ProviderBlock) and block.kind() == "reasoning"
    )


def drop_wire_reasoning(body: dict[str, Any], field: str = "reasoning_content") -> int:
    """Drop `field` from the wire body's assistant turns (drop-reasoning); return how many lost it.

    The translator sends the key even empty (DeepSeek's rule); a harness that forgets it does
    not."""
    dropped = 0
    for message in body.get("messages", []):
        if isinstance(message, dict) and message.get("role") == "assistant" and field in message:
            del message[field]
            dropped += 1
    return dropped
