"""What `fc run` prints while it runs: each step as it happens, then where the trace is."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from fccli.core.jsonio import dumps
from fccli.core.manifest import Manifest
from fccli.core.models import (
    FINAL_STOPS,
    ProviderBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
)
from fccli.i18n import _, localized, tidy
from fccli.render.console import print_after_label, print_labelled
from fccli.render.cost_view import cache_text, step_cost_text, trace_cost_parts
from fccli.render.history import handed_back
from fccli.render.stream_view import LiveStream
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

    from rich.status import Status  # a spinner is made only on a terminal (Console.status)

    from fccli.cost.trace import TraceCost
    from fccli.tools.execute import ToolRun

THINKING_PREVIEW = 160


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _attempts(attempts: list[dict[str, Any]]) -> str:
    said = []
    for a in attempts[:-1]:
        failure = (
            f"HTTP {a['status']}"
            if "status" in a
            else str(localized(a.get("error")) or _("failed"))
        )
        said.append(_("attempt {attempt}: {failure}", attempt=a["attempt"], failure=failure))
    last = attempts[-1]
    waited = sum(a.get("waited_s", 0) for a in attempts)
    # i18n: the separator between the items of a list ("a, b, c")
    separator = _(", ")
    return _(
        "{earlier}; attempt {attempt} answered ({waited} s spent waiting)",
        earlier=separator.join(said),
        attempt=last["attempt"],
        waited=format(waited, ".1f"),
    )


def _streamed(stream: dict[str, Any]) -> str:
    first = stream.get("first_byte_ms")
    if first is None:
        return _(
            "streamed: {bytes} bytes in {pieces} piece(s); "
            "assembled into the answer below (raw events in the .sse file)",
            bytes=stream["bytes"],
            pieces=stream["pieces"],
        )
    return _(
        "streamed: {bytes} bytes in {pieces} piece(s), the first after {first} ms; "
        "assembled into the answer below (raw events in the .sse file)",
        bytes=stream["bytes"],
        pieces=stream["pieces"],
        first=format(first, ".0f"),
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


def _executed(runs: list[ToolRun], bug: str | None) -> str:
    """What fc did with the calls, as it happened: executing nothing, or unchecked, said as such."""
    ran = sum(1 for run in runs if run.error_kind not in _NOT_RUN)
    if bug == "no-validation":
        if ran == len(runs):
            return _(
                "the model only asked; fc did NOT validate the arguments "
                "(--harness-bug no-validation) and executed them unchecked:"
            )
        return _(
            "the model only asked; fc did NOT validate the arguments "
            "(--harness-bug no-validation) and executed {ran} of {total} calls unchecked:",
            ran=ran,
            total=len(runs),
        )
    if ran == 0 and all(run.error_kind == "unknown_tool" for run in runs):
        return _(
            "the model only asked, for a tool not offered; fc has nothing to validate against "
            "and executed nothing:"
        )
    if ran == 0:
        return _("the model only asked; fc validated the arguments and executed nothing:")
    if ran == len(runs):
        return _("the model only asked; fc validated the arguments and executed:")
    return _(
        "the model only asked; fc validated the arguments and executed {ran} of {total} calls:",
        ran=ran,
        total=len(runs),
    )


def _results_back(runs: list[ToolRun], bug: str | None, wire_format: str, layout: str) -> str:
    """How the results of a step go back, as the harness (buggy or not) hands them."""
    n = len(runs)
    failed = sum(1 for run in runs if run.result.is_error)
    if bug == "drop-results":
        return _("the results are NOT handed back (--harness-bug drop-results)")
    if bug == "raise-on-error" and failed:
        return _(
            "the harness raises on the tool error (--harness-bug raise-on-error): the loop "
            "stops here, NO result goes back and the model never answers"
        )
    if bug == "report-success" and failed:
        return _(
            "the results go back paired with their calls by id, but {failed} failed call(s) "
            "reported as a success (--harness-bug report-success): the model is not told of "
            "the error",
            failed=failed,
        )
    if bug == "text-only-turn":
        return _(
            "the results go back by id, but the turn that made the calls goes back as its "
            "text only (--harness-bug text-only-turn): the results answer calls the history "
            "no longer holds"
        )
    if bug == "pack-results" and 'role:"tool"' in layout:
        return _(
            "the results go back internally in ONE user message, and in the {wire_format} "
            "format packed into ONE role:tool message as a list (--harness-bug pack-results), "
            "not {layout}",
            wire_format=wire_format,
            layout=layout,
        )
    if bug == "split-results" and n > 1:
        return _(
            "the results go back paired with their calls by id, but internally in {n} user "
            "messages, one per result (--harness-bug split-results), in the {wire_format} "
            "format as {layout}",
            n=n,
            wire_format=wire_format,
            layout=layout,
        )
    if bug == "pair-by-order" and n > 1:
        return _(
            "the results go back internally in ONE user message, paired with the calls by "
            "position, not by id (--harness-bug pair-by-order), in the {wire_format} format "
            "as {layout}",
            wire_format=wire_format,
            layout=layout,
        )
    return _(
        "the results go back paired with their calls by id: internally in ONE user "
        "message, in the {wire_format} format as {layout}",
        wire_format=wire_format,
        layout=layout,
    )


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
            self._wait(_("waiting for {provider}…", provider=self.provider))
        elif (
            isinstance(event, ResponseReceived)
            and event.response.stop_reason == "tool_use"
            and self.tools_spinner
        ):
            self._wait(_("the tools are running…"))

    def _stream(self, event: StreamProgress) -> None:
        if not self.live:
            return
        if self._live is None:
            if self._status is not None:  # the fragments replace the spinner
                self._status.stop()
                self._status = None
            self._live = LiveStream(self.console, mask=self.mask)
        self._live.add(event.delta)

    def _show(self, event: Event) -> None:
        c = self.console
        if isinstance(event, StepStarted):
            req = event.request
            results, held = handed_back(req.messages)
            if not req.messages:
                what = _("no message at all")
            elif held > 1:
                what = _(
                    "{n} tool result(s) handed back in {messages} user messages",
                    n=len(results),
                    messages=held,
                )
            elif results:
                what = _("{n} tool result(s) handed back", n=len(results))
            elif len(req.messages) == 1:
                what = _("the question")
            else:  # a history that does not end on results (--harness-bug drop-results)
                what = _("the last message from the {role}", role=req.messages[-1].role)
            tools = _(", ").join(t.name for t in req.tools) or _("none")
            c.print()
            origin = (
                _(" [dim]({origin})[/]", origin=escape(self.step_origin(event.step)))
                if self.step_origin
                else ""
            )
            label = f" [dim]{escape(self.label)}[/]" if self.label else ""
            step = _("[bold]step {step}[/]", step=event.step)
            c.rule(f"{step}{origin}{label}", align="left", style="dim")
            if event.wire_messages != len(req.messages):
                count = _(
                    "{n} message(s) ({wire} on the wire)",
                    n=len(req.messages),
                    wire=event.wire_messages,
                )
            else:
                count = _("{n} message(s)", n=len(req.messages))
            c.print(
                _(
                    "[cyan]→ request[/] to {provider} ({wire_format} format): "
                    "{count}, {what}; tools offered: {tools}",
                    provider=escape(self.provider),
                    wire_format=self.wire_format,
                    count=count,
                    what=escape(what),
                    tools=escape(tools),
                )
            )
        elif isinstance(event, ResponseReceived):
            self._response(event)
        elif isinstance(event, ToolsExecuted):
            c.print(f"  [dim]{_executed(event.runs, event.harness_bug)}[/]")
            for run in event.runs:
                said = {
                    "id": escape(run.call.id),
                    "ms": f"{run.duration_ms:.1f}",
                    "content": escape(_short(run.result.content, 300)),
                }
                if run.result.is_error:
                    line = _(
                        "[red]✗ error[/] for [magenta]{id}[/] [dim]({ms} ms)[/]: {content}", **said
                    )
                else:
                    line = _(
                        "[green]✓ result[/] for [magenta]{id}[/] [dim]({ms} ms)[/]: {content}",
                        **said,
                    )
                c.print(f"  {line}")
            said_back = _results_back(
                event.runs, event.harness_bug, self.wire_format, self.results_layout
            )
            c.print(f"  [dim]{said_back}[/]")
        elif isinstance(event, Note):
            note = escape(tidy(localized(event.text)))  # `{provider} 会返回`: no stray space
            if event.text.startswith("harness bug"):
                c.print("  " + _("[red]note:[/] {note}", note=note))
            else:
                c.print("  " + _("[yellow]note:[/] {note}", note=note))

    def _response(self, event: ResponseReceived) -> None:
        c = self.console
        resp = event.response
        usage = ""
        if resp.usage and resp.usage.input_tokens is not None:
            usage = _(
                ", {input} in / {output} out tokens",
                input=resp.usage.input_tokens,
                output=resp.usage.output_tokens,
            )
        cost = step_cost_text(event.cost)
        if cost is not None:
            usage += _(", ") + cost
        colour = "yellow" if resp.stop_reason == "tool_use" else "green"
        wire = ""
        if event.wire_stop_reason and event.wire_stop_reason != resp.stop_reason:
            wire = _(
                " [dim](on the wire: {field} {value})[/]",
                field=self.stop_field,
                value=escape(event.wire_stop_reason),
            )
        reason = f"[bold {colour}]{escape(resp.stop_reason)}[/]"
        c.print(
            _(
                "[cyan]← response[/]: stop_reason {reason}{wire} [dim]({ms} ms{usage})[/]",
                reason=reason,
                wire=wire,
                ms=format(event.duration_ms, ".0f"),
                usage=usage,
            )
        )
        cache = cache_text(resp.usage, event.cost)
        if cache is not None:
            c.print("  " + _("[dim]prompt cache: {cache}[/]", cache=escape(cache)))
        if len(event.attempts) > 1:
            attempts = escape(_attempts(event.attempts))
            c.print("  " + _("[yellow]retried:[/] {attempts}", attempts=attempts))
        if event.stream is not None:
            c.print(f"  [dim]{escape(_streamed(event.stream))}[/]")
        for block in resp.content:
            if isinstance(block, ThinkingBlock):
                thought = escape(_short(block.thinking, THINKING_PREVIEW))
                c.print("  " + _("[dim]thinking: {thinking}[/]", thinking=thought))
            elif isinstance(block, TextBlock):
                final = resp.stop_reason in FINAL_STOPS and not resp.tool_uses()
                label = _("  answer: ") if final else _("  text: ")
                print_labelled(c, label, Text(block.text, "bold" if final else ""))
            elif isinstance(block, ProviderBlock):
                summary = escape(localized(block.summary()))
                c.print("  " + _("[magenta]provider block:[/] {summary}", summary=summary))
            elif isinstance(block, ToolUseBlock):
                if block.raw_arguments is not None:
                    args = _("arguments (not a JSON object) {raw}", raw=repr(block.raw_arguments))
                else:
                    args = _(
                        "input {arguments}", arguments=json.dumps(block.input, ensure_ascii=False)
                    )
                said = _(
                    "[yellow]▶ tool call[/] [bold]{name}[/] {arguments} [dim]id[/] [magenta]{id}[/]",
                    name=escape(block.name),
                    arguments=escape(args),
                    id=escape(block.id),
                )
                c.print(f"  {said}")
        if resp.tool_uses() and resp.stop_reason != "tool_use":
            reason = escape(resp.stop_reason)
            if resp.stop_reason == "max_tokens":
                said = _(
                    "[red]not executed:[/] the stop reason is {reason}, not tool_use "
                    "(the arguments may be cut off)",
                    reason=reason,
                )
            else:
                said = _(
                    "[red]not executed:[/] the stop reason is {reason}, not tool_use",
                    reason=reason,
                )
            c.print(f"  {said}")

    def notes(self, notes: list[str]) -> None:
        for note in notes:
            print_after_label(
                self.console, _("[yellow]note:[/] {note}", note=escape(localized(note)))
            )

    def finished(self, result: RunResult, trace: Path, cost: TraceCost | None = None) -> None:
        c = self.console
        c.print()
        parts = trace_cost_parts(cost) if cost is not None else []
        if parts:
            # no emoji codes in prices and hours (`06:00-10:00` is not one)
            print_after_label(c, _("[bold]cost:[/] {cost}", cost=escape(_("; ").join(parts))))
        if result.status == "max_steps":
            c.print(f"[yellow]{escape(localized(result.notes[-1]))}[/]")
        if result.notes and result.notes[-1].startswith(
            ("ignore-stop-reason", "tool-request-as-reply")
        ):
            print_after_label(
                c,
                _(
                    "[red]answer, as the buggy harness took it:[/] {answer} "
                    "[dim](no tool ran: nothing in it was looked up)[/]",
                    answer=escape(result.final_answer or ""),
                ),
            )
        files = len([p for p in trace.iterdir() if p.suffix in (".json", ".sse")])
        print_after_label(
            c,
            _(
                "[bold]trace:[/] {path} [dim]({files} files)[/]",
                path=escape(str(trace)),
                files=files,
            ),
        )
        if (trace / "2-request.json").exists():
            print_after_label(
                c,
                _(
                    "[dim]open side by side: 1-request.json ↔ 1-request.{wire_format}.json, "
                    "then 2-request.json ↔ 2-request.{wire_format}.json[/]",
                    wire_format=self.wire_format,
                ),
            )


def print_json_summary(trace: object) -> None:
    """`fc run --json`: the manifest and the trace's path, on stdout, nothing else."""
    manifest = getattr(trace, "manifest")  # noqa: B009 - a TraceWriter, not imported here
    path = getattr(trace, "path")  # noqa: B009
    assert isinstance(manifest, Manifest)
    sys.stdout.write(dumps({"trace": str(path), **manifest.to_json_dict()}))
