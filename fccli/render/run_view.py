"""What `fc run` prints while it runs: each step as it happens, then where the trace is."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.status import Status
from rich.text import Text

from fccli.core.models import FINAL_STOPS, ProviderBlock, TextBlock, ThinkingBlock, ToolUseBlock
from fccli.run.events import (
    Event,
    Note,
    ResponseReceived,
    RunResult,
    StepStarted,
    StreamProgress,
    ToolsExecuted,
)

if TYPE_CHECKING:
    from pathlib import Path

    from fccli.render.stream_view import LiveStream
    from fccli.tools.execute import ToolRun

THINKING_PREVIEW = 160


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _attempts(attempts: list[dict[str, Any]]) -> str:
    said = []
    for a in attempts[:-1]:
        failure = f"HTTP {a['status']}" if "status" in a else str(a.get("error", "failed"))
        said.append(f"attempt {a['attempt']}: {failure}")
    last = attempts[-1]
    waited = sum(a.get("waited_s", 0) for a in attempts)
    return f"{', '.join(said)}; attempt {last['attempt']} answered ({waited:.1f} s spent waiting)"


def _streamed(stream: dict[str, Any]) -> str:
    first = stream.get("first_byte_ms")
    when = f", the first after {first:.0f} ms" if first is not None else ""
    return (
        f"streamed: {stream['bytes']} bytes in {stream['pieces']} piece(s){when}; "
        "assembled into the answer below (raw events in the .sse file)"
    )


class _Elapsed:
    """The spinner's text with the seconds spent waiting, redrawn on every refresh."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.start = time.monotonic()

    def __rich__(self) -> Text:
        seconds = time.monotonic() - self.start
        return Text(f"{self.text} {seconds:.0f} s", style="dim")


# A call fc refused (no such tool, arguments that do not validate) never ran.
_NOT_RUN = ("unknown_tool", "invalid_arguments", "invalid_json")


def _executed(runs: list[ToolRun]) -> str:
    """What fc did with the calls, as it happened: executing nothing is said as such."""
    ran = sum(1 for run in runs if run.error_kind not in _NOT_RUN)
    done = "executed" if ran == len(runs) else f"executed {ran} of {len(runs)} calls"
    if ran == 0:
        done = "executed nothing"
    return f"fc validated the arguments and {done}"


class RunView:
    def __init__(
        self,
        console: Console,
        provider: str,
        wire_format: str,
        results_layout: str,
        stop_field: str = "finish_reason",
        *,
        mask: Callable[[str], str] | None = None,
        step_origin: Callable[[int], str] | None = None,
    ) -> None:
        self.console = console
        self.step_origin = step_origin
        """For a replay: where a step of the new trace stands in the old one, said beside its number."""
        self.stop_field = stop_field
        """The wire name of the stop reason's field, said beside the internal one."""
        self.mask = mask
        """Masks a secret in text shown as it streams in (its pieces, joined, may make one)."""
        self.provider = provider
        self.wire_format = wire_format
        self.results_layout = results_layout
        self._status: Status | None = None
        self._live: LiveStream | None = None
        self.tools_spinner = True
        """False when a person answers for the tools (--ask): the prompt needs the line."""
        self.waits = True
        """Spinners while waiting; False where several runs share the terminal (fc proxy)."""
        self.label = ""
        """Said beside each step's number: which trace it is, where several share the terminal."""

    @property
    def live(self) -> bool:
        """Whether streamed fragments are shown as they arrive: on a terminal only."""
        return self.console.is_terminal

    def _wait(self, text: str) -> None:
        """A spinner while nothing else moves: a terminal only (CLI.md: none in a pipe)."""
        if self.console.is_terminal and self.waits:
            self._status = self.console.status(_Elapsed(text))
            self._status.start()

    def close(self) -> None:
        """Stop the spinner and the live stream; called on every way out, errors and Ctrl-C included."""
        if self._status is not None:
            self._status.stop()
            self._status = None
        if self._live is not None:
            self._live.stop()
            self._live = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, StreamProgress):
            self._stream(event)
            return
        self.close()
        self._show(event)
        if isinstance(event, StepStarted):
            self._wait(f"waiting for {self.provider}…")
        elif (
            isinstance(event, ResponseReceived)
            and event.response.stop_reason == "tool_use"
            and self.tools_spinner
        ):
            self._wait("the tools are running…")

    def _stream(self, event: StreamProgress) -> None:
        if not self.live:
            return
        if self._live is None:
            from fccli.render.stream_view import LiveStream

            if self._status is not None:  # the fragments replace the spinner
                self._status.stop()
                self._status = None
            self._live = LiveStream(self.console, mask=self.mask)
        self._live.add(event.delta)

    def _show(self, event: Event) -> None:
        c = self.console
        if isinstance(event, StepStarted):
            req = event.request
            last = req.messages[-1]
            if last.tool_results():
                what = f"{len(last.tool_results())} tool result(s) handed back"
            elif len(req.messages) == 1:
                what = "the question"
            else:  # a history that does not end on results (--harness-bug drop-results)
                what = f"the last message from the {last.role}"
            tools = ", ".join(t.name for t in req.tools) or "none"
            c.print()
            origin = (
                f" [dim]({escape(self.step_origin(event.step))})[/]" if self.step_origin else ""
            )
            label = f" [dim]{escape(self.label)}[/]" if self.label else ""
            c.rule(f"[bold]step {event.step}[/]{origin}{label}", align="left", style="dim")
            count = f"{len(req.messages)} message(s)"
            if event.wire_messages != len(req.messages):
                count += f" ({event.wire_messages} on the wire)"
            c.print(
                f"[cyan]→ request[/] to {escape(self.provider)} ({self.wire_format} format): "
                f"{count}, {escape(what)}; tools offered: {escape(tools)}"
            )
        elif isinstance(event, ResponseReceived):
            self._response(event)
        elif isinstance(event, ToolsExecuted):
            c.print(f"  [dim]the model only asked; {_executed(event.runs)}:[/]")
            for run in event.runs:
                mark = "[red]✗ error[/]" if run.result.is_error else "[green]✓ result[/]"
                c.print(
                    f"  {mark} for [magenta]{escape(run.call.id)}[/] "
                    f"[dim]({run.duration_ms:.1f} ms)[/]: {escape(_short(run.result.content, 300))}"
                )
            c.print(
                "  [dim]the results go back paired with their calls by id: internally in ONE user "
                f"message, in the {self.wire_format} format as {self.results_layout}[/]"
            )
        elif isinstance(event, Note):
            colour = "red" if event.text.startswith("harness bug") else "yellow"
            c.print(f"  [{colour}]note:[/] {escape(event.text)}")

    def _response(self, event: ResponseReceived) -> None:
        c = self.console
        resp = event.response
        usage = ""
        if resp.usage and resp.usage.input_tokens is not None:
            usage = f", {resp.usage.input_tokens} in / {resp.usage.output_tokens} out tokens"
        colour = "yellow" if resp.stop_reason == "tool_use" else "green"
        wire = ""
        if event.wire_stop_reason and event.wire_stop_reason != resp.stop_reason:
            wire = f" [dim](on the wire: {self.stop_field} {escape(event.wire_stop_reason)})[/]"
        c.print(
            f"[cyan]← response[/]: stop_reason [bold {colour}]{escape(resp.stop_reason)}[/]{wire} "
            f"[dim]({event.duration_ms:.0f} ms{usage})[/]"
        )
        cache = resp.usage.cache_line() if resp.usage else None
        if cache is not None:
            c.print(f"  [dim]prompt cache: {escape(cache)}[/]")
        if len(event.attempts) > 1:
            c.print(f"  [yellow]retried:[/] {escape(_attempts(event.attempts))}")
        if event.stream is not None:
            c.print(f"  [dim]{escape(_streamed(event.stream))}[/]")
        for block in resp.content:
            if isinstance(block, ThinkingBlock):
                c.print(f"  [dim]thinking: {escape(_short(block.thinking, THINKING_PREVIEW))}[/]")
            elif isinstance(block, TextBlock):
                final = resp.stop_reason in FINAL_STOPS and not resp.tool_uses()
                label = "answer" if final else "text"
                indented = block.text.replace("\n", "\n" + " " * (len(label) + 4))
                c.print(
                    Text.assemble(f"  {label}: ", (indented, "bold" if label == "answer" else ""))
                )
            elif isinstance(block, ProviderBlock):
                c.print(f"  [magenta]provider block:[/] {escape(block.summary())}")
            elif isinstance(block, ToolUseBlock):
                if block.raw_arguments is not None:
                    args = f"arguments (not a JSON object) {block.raw_arguments!r}"
                else:
                    args = "input " + json.dumps(block.input, ensure_ascii=False)
                c.print(
                    f"  [yellow]▶ tool call[/] [bold]{escape(block.name)}[/] {escape(args)} "
                    f"[dim]id[/] [magenta]{escape(block.id)}[/]"
                )
        if resp.tool_uses() and resp.stop_reason != "tool_use":
            c.print(
                f"  [red]not executed:[/] the stop reason is {escape(resp.stop_reason)}, not tool_use"
                + (" (the arguments may be cut off)" if resp.stop_reason == "max_tokens" else "")
            )

    def notes(self, notes: list[str]) -> None:
        for note in notes:
            self.console.print(f"[yellow]note:[/] {escape(note)}")

    def finished(self, result: RunResult, trace: Path) -> None:
        c = self.console
        c.print()
        if result.status == "max_steps":
            c.print(f"[yellow]{escape(result.notes[-1])}[/]")
        if result.notes and result.notes[-1].startswith("ignore-stop-reason"):
            c.print(
                f"[red]answer, as the buggy harness took it:[/] {escape(result.final_answer or '')} "
                "[dim](no tool ran: nothing in it was looked up)[/]"
            )
        files = len([p for p in trace.iterdir() if p.suffix in (".json", ".sse")])
        c.print(f"[bold]trace:[/] {escape(str(trace))} [dim]({files} files)[/]")
        if (trace / "2-request.json").exists():
            c.print(
                f"[dim]open side by side: 1-request.json ↔ 1-request.{self.wire_format}.json, "
                f"then 2-request.json ↔ 2-request.{self.wire_format}.json[/]"
            )


def print_json_summary(trace: object) -> None:
    """`fc run --json`: the manifest and the trace's path, on stdout, nothing else."""
    import sys

    from fccli.core.jsonio import dumps
    from fccli.core.manifest import Manifest

    manifest = getattr(trace, "manifest")  # noqa: B009 - a TraceWriter, not imported here
    path = getattr(trace, "path")  # noqa: B009
    assert isinstance(manifest, Manifest)
    sys.stdout.write(dumps({"trace": str(path), **manifest.to_json_dict()}))
