"""A trace's manifest.json, typed: what a run was asked, how far it came, each step's record.

Written by trace/writer.py, built in one place for `fc run` and `fc replay`
(run/prepare.py, `trace_manifest`). The JSON shape is a contract (CLI.md, "The trace
directory"; tests/trace/test_examples.py pins it byte for byte): fields are written in the order
declared here, and a field left unset is left out (`demo_fault`, a replay's `replayed_from`,
a step's `stream`...), while one set to None is written as null.

Reading is lenient (`read_manifest`): every field may be missing (an older fc, a run that died
early), one of another type is read as missing, and keys this version does not know are kept as
they are (`extra="allow"`).
"""

# No `from __future__ import annotations` here: pydantic would then compile each field's type
# from its text (start-up).

import copy
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fccli.core.models import HOLDS, built_held_first, empty_list

SCHEMA_VERSION = 1


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)  # built when first used

    def to_json_dict(self) -> dict[str, Any]:
        """Dump the JSON written: set fields in declared order, then unknown ones as read."""
        return self.model_dump(mode="json", exclude_unset=True)

    @classmethod
    def model_rebuild(cls, **options: Any) -> bool | None:
        """Build the models it holds, then this one (pydantic calls it at first use;
        fccli/core/models.py, built_held_first)."""
        return built_held_first(cls, BaseModel.model_rebuild.__func__, options)  # type: ignore[attr-defined]


class Options(_Record):
    """The run's options as the user gave them (a replay: as the replayed step asked)."""

    tools: str | None = None
    """The tool set: a built-in name or a file."""
    tools_file: Any = None
    """Where a tools file was, and its digest (only for a file; tools/loader.py)."""
    tools_offered: list[str] = Field(default_factory=empty_list)
    system: str | None = None
    stream: bool | None = None
    thinking: bool | None = None
    effort: str | None = None
    """--effort, when given (chat: reasoning_effort; Anthropic: output_config.effort)."""
    api: str | None = None
    """--api, when given (`-p deepseek --api anthropic`)."""
    tool_choice: str | None = None
    parallel_tool_calls: bool | None = None
    strict: bool | None = None
    max_steps: int | None = None
    max_tokens: int | None = None
    retries: int | None = None
    demo_fault: str | None = None
    """The demo model's mistake asked for with --demo-fault (only then written)."""
    demo_skill: str | None = None
    """--demo-skill, when given (weak: the whole question in the first string parameter)."""
    response_format: str | None = None
    """--response-format, when given (JSON mode)."""
    ask: bool | None = None
    """--ask: the person at the terminal answered for the tools without an implementation."""
    harness_bug: str | None = None
    """The harness's mistake asked for with --harness-bug (only then written)."""
    pace_ms: int | None = None
    """--pace, when given."""
    price_model: str | None = None
    """--price-model, when given: the run priced as this model (fccli/cost)."""


class Attempt(_Record):
    """One HTTP attempt (a retry after 429 or 5xx is another); the transport adds its status,
    error and timing beside these."""

    attempt: int | None = None
    waited_s: float | None = None
    """Seconds waited before it (backoff, Retry-After)."""


class ToolRunRecord(_Record):
    id: str | None = None
    name: str | None = None
    arguments: Any = None
    raw_arguments: str | None = None
    """The arguments as sent, when they were not a JSON object (only then written)."""
    duration_ms: float | None = None
    is_error: bool | None = None
    error: str | None = None
    """What the model was told went wrong."""
    error_kind: str | None = None
    """unknown_tool, invalid_arguments, tool_error, ..."""
    mcp: dict[str, Any] | None = None
    """The MCP server that ran the call and the JSON-RPC id of its tools/call (only then)."""


class StreamRecord(_Record):
    bytes: int | None = None
    pieces: int | None = None
    """Chunks as they came off the network."""
    first_byte_ms: float | None = None


class CostRecord(_Record):
    """What a step cost, as genai-prices priced its usage when it was recorded (fccli/cost)."""

    usd: float | None = None
    """US dollars; null when it has no price (`unknown` says why: never 0 for unknown)."""
    input_usd: float | None = None
    """Of it, the input's (cache reads and writes at their prices)."""
    output_usd: float | None = None
    """Of it, the output's (thinking included)."""
    cache_saved_usd: float | None = None
    """What the prompt cache saved (negative: writing to it cost more); only when the provider
    reported its cache."""
    model: str | None = None
    """The model priced as, by its id in genai-prices' table."""
    provider: str | None = None
    """That model's provider, by its id in the table."""
    hours: str | None = None
    """The hours (UTC) of the time-of-day price that applied, only when one did."""
    unknown: str | None = None
    """Why the step has no price (`price unknown for MODEL`), only then."""


class TraceCostRecord(_Record):
    """What the trace's steps cost together (fccli/cost)."""

    usd: float | None = None
    """US dollars, the priced steps summed; null when no step has a price."""
    cache_saved_usd: float | None = None
    """What the prompt cache saved over the trace, when a step reported its cache."""
    priced_as: str | None = None
    """The model name looked up in the table."""
    basis: str | None = None
    """Why the trace is priced as another model than the one that answered (the demo,
    --price-model), only then."""
    unpriced_steps: list[int] | None = None
    """The steps without a price, only if any."""
    prices: str | None = None
    """The table used: `genai-prices 0.2.3`."""


class StepRecord(_Record):
    step: int
    started_at: str | None = None
    """When its request went out (UTC, ISO 8601)."""
    stop_reason: str | None = None
    wire_stop_reason: str | None = None
    """The stop reason in the wire format's own words (chat: finish_reason)."""
    duration_ms: float | None = None
    usage: dict[str, Any] | None = None
    tool_runs: list[ToolRunRecord] = Field(default_factory=empty_list)
    stream: StreamRecord | None = None
    attempts: list[Attempt] | None = None
    masked: str | None = None
    """Said when the answer echoed a secret, which the trace file has as ***."""
    truncated: str | None = None
    """Why a JSON answer was cut short (past --max-response-mb or --timeout)."""
    harness_bug: str | None = None
    """What --harness-bug changed in this step (only then written)."""
    checks: list[str] | None = None
    """`fc proxy`: what `fc check` found in the request before it was forwarded (only if any)."""
    cost: CostRecord | None = None
    """What the step cost (only when it reported token counts)."""


class ErrorRecord(_Record):
    kind: str | None = None
    """The error's class: StreamCut, ProviderError, UsageError..."""
    message: str | None = None
    step: int | None = None
    http_status: int | None = None
    signal: str | None = None
    """The signal that interrupted the run, when it was not Ctrl-C."""
    attempts: list[Attempt] | None = None
    body_excerpt: str | None = None
    """The start of an error body that is not JSON (an HTML error page)."""


class ReplayedFrom(_Record):
    trace: str | None = None
    step: int | None = None
    file: str | None = None
    """The request file the replay started from."""
    status: str | None = None
    final_answer: str | None = None


class Manifest(_Record):
    schema_version: int = SCHEMA_VERSION
    fc_version: str | None = None
    provider: str | None = None
    wire_format: str | None = None
    model: str | None = None
    base_url: str | None = None
    question: str | None = None
    options: Options | None = None
    mcp_servers: list[dict[str, Any]] | None = None
    """The MCP servers of `fc run --mcp`, one record each (fccli/mcp/client.py: name,
    transport, server as given with secrets masked, protocol_version, server_info, session_id,
    tools, log, stderr); only then written."""
    replayed_from: ReplayedFrom | None = None
    edits: list[dict[str, Any]] | None = None
    """A replay's edits, one record each (replay/edits.py)."""
    status: str | None = None
    """running | ok | error | interrupted | max_steps"""
    error: ErrorRecord | None = None
    started_at: str | None = None
    finished_at: str | None = None
    duration_ms: float | None = None
    steps: list[StepRecord] = Field(default_factory=empty_list)
    final_answer: str | None = None
    notes: list[str] | None = None
    """What a learner should know about the run, in the order it happened (only if any)."""
    recorded_by: str | None = None
    """`fc proxy` for a trace of an agent's own requests, recorded on their way (only then)."""
    cost: TraceCostRecord | None = None
    """What the steps cost together (once a step reported token counts)."""

    def note(self, text: str) -> None:
        if self.notes is None:
            self.notes = []
        self.notes.append(text)

    def harness_bugs(self) -> dict[int, str]:
        """Map each step a `--harness-bug` changed on purpose to the bug's name."""
        return {s.step: s.harness_bug.split(":", 1)[0] for s in self.steps if s.harness_bug}


HOLDS.update(
    {
        StepRecord: (ToolRunRecord, StreamRecord, Attempt, CostRecord),
        ErrorRecord: (Attempt,),
        Manifest: (Options, ReplayedFrom, ErrorRecord, StepRecord, TraceCostRecord),
    }
)


def read_manifest(data: Any) -> Manifest:
    """Read the manifest from its JSON: a value of another type than its field's (strictly: a
    string is not a number) is left out, as if missing; so is a step without its number."""
    kept = copy.deepcopy(data) if isinstance(data, dict) else {}
    while True:
        try:
            return Manifest.model_validate(kept, strict=True)
        except ValidationError as e:
            for error in reversed(e.errors()):
                _drop(kept, error["loc"])


def _drop(data: Any, loc: tuple[int | str, ...]) -> None:
    """Remove the value at `loc`; a missing one takes the record holding it out instead."""
    holder = data
    try:
        for key in loc[:-1]:
            holder = holder[key]
    except (KeyError, IndexError, TypeError):  # a union's member named in the location
        _drop(data, loc[:-1])
        return
    key = loc[-1]
    present = (
        key in holder if isinstance(holder, dict) else isinstance(key, int) and key < len(holder)
    )
    if present:
        del holder[key]
    elif len(loc) > 1:
        _drop(data, loc[:-1])
    else:
        raise ValueError(loc)  # nothing left to take out: cannot happen for a dict
