"""`fc show`: a trace, or one request or response file, as a transcript a person reads.

Per step: the tools offered (numbered, so a call can be matched against the offer), the
request in a line, the response's stop reason as a badge with duration and tokens, its thinking
(shortened unless asked), text and tool calls, and under each call its result (found by id in
the next request, errors in red) with the tool run's duration from the manifest. Ids get a
colour each, the same wherever they appear, so a call and its result pair up by eye.

Takes core objects and the trace reader's data; no wire format, provider or transport here.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from fccli.core.controls import escape_controls
from fccli.core.models import (
    FINAL_STOPS,
    Message,
    ProviderBlock,
    Request,
    Response,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from fccli.cost.money import usd
from fccli.cost.trace import decimal_of, price_trace
from fccli.i18n import _, localized
from fccli.options.manifest import as_typed
from fccli.render.console import (
    SafeConsole,
    print_after_label,
    print_hanging,
    print_labelled,
)
from fccli.render.cost_view import cache_text, step_cost_text, trace_cost_parts
from fccli.render.history import handed_back
from fccli.trace.mcp_log import Exchange
from fccli.trace.mcp_log import message as mcp_message
from fccli.trace.words import translated

if TYPE_CHECKING:
    from fccli.core.manifest import Options
    from fccli.cost.price import StepPrice
    from fccli.cost.trace import TraceCost
    from fccli.trace.reader import Document, Step, Trace

THINKING_PREVIEW = 120
FOLD_CHARS = 600
FOLD_LINES = 12
FOLD_KEEP_CHARS = 300
FOLD_KEEP_LINES = 6
INLINE_JSON = 70
"""Arguments whose one-line JSON is at most this long stay on one line."""
ID_COLOURS = (
    "magenta",
    "cyan",
    "green",
    "blue",
    "bright_magenta",
    "bright_cyan",
    "bright_green",
    "bright_blue",
    "yellow",
    "bright_red",
)
STOP_STYLES = {"tool_use": "black on yellow", "end_turn": "black on green"}


def recording_console(width: int = 100) -> Console:
    """A console that prints nothing and keeps everything, with colour, for `--html`."""
    return SafeConsole(
        file=io.StringIO(), record=True, width=width, force_terminal=True, color_system="truecolor"
    )


def one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def duration(ms: Any) -> str:
    if not isinstance(ms, (int, float)):
        return "?"
    return f"{ms:.1f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


class _Ids:
    """One colour per id, by order of first appearance, the same everywhere."""

    def __init__(self) -> None:
        self.colours: dict[str, str] = {}

    def text(self, value: str) -> Text:
        if value not in self.colours:
            self.colours[value] = ID_COLOURS[len(self.colours) % len(ID_COLOURS)]
        return Text(value, style=self.colours[value])


class _View:
    def __init__(self, console: Console, *, thinking: bool, full: bool) -> None:
        self.c = console
        self.thinking = thinking
        self.full = full
        self.ids = _Ids()
        self.mcp: dict[str, Exchange] = {}
        """The calls MCP servers ran, by call id: their chain is shown under each."""

    def line(self, *parts: str | Text | tuple[str, str], indent: int = 0) -> None:
        self.c.print(Text.assemble(" " * indent, *parts))

    def labelled(self, *parts: str | Text | tuple[str, str]) -> None:
        """A line that starts with a label (`cost: `), wrapped under what follows the label."""
        print_after_label(self.c, Text.assemble(*parts))

    def block(self, text: str, indent: int, style: str = "") -> None:
        """Text that may run over several lines, each line indented."""
        pad = " " * indent
        self.c.print(Text(pad + text.replace("\n", "\n" + pad), style=style))

    # ---- pieces shared by the trace and the single-file views

    def tools(self, tools: Sequence[ToolSpec], same_as: int | None) -> None:
        if not tools:
            self.line((_("tools offered: none"), "dim"))
            return
        if same_as is not None:
            n = len(tools)
            self.line((_("tools offered: the same {n} as step {step}", n=n, step=same_as), "dim"))
            return
        self.line(_("tools offered ({n}):", n=len(tools)))
        for k, tool in enumerate(tools, 1):
            description = (
                one_line(tool.description, 200) if tool.description else _("(no description)")
            )
            self.line(f"{k}. ", (signature(tool), "bold"), ("  " + description, "dim"), indent=2)

    def assistant(
        self,
        blocks: Sequence[Any],
        tools: Sequence[ToolSpec] | None,
        stop_reason: str | None,
        results: dict[str, ToolResultBlock] | None,
        runs: dict[str, dict[str, Any]],
        *,
        answered_later: bool,
    ) -> None:
        """An assistant turn: thinking, text, and each call with its result under it.

        `tools` None: the offer is not known (a response file alone); `results` None: the
        results are not known either, so none is looked for."""
        final = stop_reason in FINAL_STOPS and not any(isinstance(b, ToolUseBlock) for b in blocks)
        names = None if tools is None else [t.name for t in tools]
        for block in blocks:
            if isinstance(block, ThinkingBlock):
                self._thinking(block.thinking)
            elif isinstance(block, TextBlock):
                label = _("answer: ") if final else _("text: ")
                print_labelled(self.c, "  " + label, Text(block.text, "bold" if final else ""))
            elif isinstance(block, ProviderBlock):
                self.line((_("provider block: "), "magenta"), localized(block.summary()), indent=2)
            elif isinstance(block, ToolUseBlock):
                self._call(block, names)
                if results is not None:
                    self._result(block, results, runs, stop_reason, answered_later)

    def _thinking(self, text: str) -> None:
        label = _("thinking: ")
        if self.thinking or (len(text) <= THINKING_PREVIEW and "\n" not in text):
            self.block(label + text.replace("\n", "\n" + " " * cell_len(label)), 2, "dim")
            return
        shown = one_line(text, THINKING_PREVIEW)
        self.line(
            (label + shown, "dim"),
            (_(" ({n} chars; --thinking shows all)", n=len(text)), "dim italic"),
            indent=2,
        )

    def _call(self, call: ToolUseBlock, names: list[str] | None) -> None:
        if names is None:
            offered = Text("")
        elif call.name in names:
            offered = Text(_(" (tool {n})", n=names.index(call.name) + 1), style="dim")
        else:
            offered = Text(_(" (not offered!)"), style="bold red")
        self.line(
            (_("▶ call "), "yellow"),
            (call.name, "bold"),
            offered,
            (_("  id "), "dim"),
            self.ids.text(call.id),
            indent=2,
        )
        if call.raw_arguments is not None:
            self.line(
                (_("arguments, not a JSON object: "), "red"), repr(call.raw_arguments), indent=6
            )
            return
        self.block(arguments_text(call.input), 6)

    def _result(
        self,
        call: ToolUseBlock,
        results: dict[str, ToolResultBlock],
        runs: dict[str, dict[str, Any]],
        stop_reason: str | None,
        answered_later: bool,
    ) -> None:
        result = results.get(call.id)
        run = runs.get(call.id, {})
        took = f"{duration(run.get('duration_ms'))}" if "duration_ms" in run else ""
        kind = run.get("error_kind")
        kind = kind if isinstance(kind, str) else None  # a hand-edited manifest may hold anything
        detail = _(", ").join(x for x in (kind, took) if x)
        detail = _(" ({detail})", detail=detail) if detail else ""
        exchange = self.mcp.get(call.id)
        if exchange is not None:
            self._mcp(exchange)
        if result is not None:
            if result.is_error:
                head = Text(_("✗ error result"), style="bold red")
            elif run.get("is_error") is True:  # the tool failed; the harness said otherwise
                head = Text(_("✗ failed, handed back as a success"), style="bold red")
            else:
                head = Text(_("✓ result"), style="green")
            self.line(head, _(" for "), self.ids.text(call.id), (detail + _(":"), "dim"), indent=4)
            self.block(self.fold(result.content), 6, "red" if result.is_error else "")
            if (
                run.get("is_error") is True
                and not result.is_error
                and isinstance(run.get("error"), str)
            ):
                self.line((_("the tool's error: "), "red"), self.fold(run["error"]), indent=6)
            return
        if run:
            # Executed, but no later request handed the result back (the run stopped first).
            said = _("✗ executed, failed") if run.get("is_error") else _("✓ executed")
            self.line(
                (said, "red" if run.get("is_error") else "green"),
                (detail, "dim"),
                (_("; the result was never handed back: the run stopped first"), "yellow"),
                indent=4,
            )
            if run.get("is_error") and isinstance(run.get("error"), str):
                self.block(self.fold(run["error"]), 6, "red")
            return
        if stop_reason != "tool_use":
            self.line(
                (_("not executed: "), "bold red"),
                _("the stop reason is {stop_reason}, not tool_use", stop_reason=stop_reason),
                indent=4,
            )
        elif not answered_later:
            self.line(
                (_("no result: the run stopped before this call was answered"), "red"), indent=4
            )
        else:
            self.line((_("no result for this id in the next request"), "bold red"), indent=4)

    def _mcp(self, exchange: Exchange) -> None:
        """Show the JSON-RPC that served a call: its tools/call and what the server answered."""
        self.line(
            (_("⇄ MCP {server}: ", server=exchange.server), "cyan"),
            _("tools/call id {id}", id=json.dumps(exchange.request_id)),
            (_(" ({file} #{n})", file=exchange.file, n=exchange.request.get("n")), "dim"),
            indent=4,
        )
        error, result = exchange.error(), exchange.result()
        if exchange.response is None:
            said = Text(_("← no answer"), style="red")
        elif error is not None:
            said = Text(
                _(
                    "← JSON-RPC error {code}: {message}",
                    code=error.get("code"),
                    message=str(error.get("message")),
                ),
                style="red",
            )
        elif result is not None:
            kinds = [b.get("type") for b in result.get("content") or [] if isinstance(b, dict)]
            parts = _(", ").join(str(k) for k in kinds) or _("no content")
            said = Text.assemble(
                (
                    _(
                        "← CallToolResult isError {flag}",
                        flag=json.dumps(result.get("isError", False)),
                    ),
                    "red" if exchange.is_error else "green",
                ),
                (_(", content: {parts}", parts=parts), ""),
                (_(", structuredContent") if "structuredContent" in result else "", ""),
            )
        else:
            said = Text(_("← an answer that is neither a result nor an error"), style="red")
        n = exchange.response.get("n") if exchange.response is not None else None
        self.line(said, (_(" (#{n})", n=n), "dim") if n is not None else "", indent=6)

    def fold(self, text: str) -> str:
        lines = text.split("\n")
        if self.full or (len(text) <= FOLD_CHARS and len(lines) <= FOLD_LINES):
            return text
        kept = "\n".join(lines[:FOLD_KEEP_LINES])[:FOLD_KEEP_CHARS]
        if len(lines) > 1:
            said = _(
                "[folded: {chars:,} chars, {lines:,} lines in all; --full shows everything]",
                chars=len(text),
                lines=len(lines),
            )
        else:
            said = _(
                "[folded: {chars:,} chars, 1 line in all; --full shows everything]",
                chars=len(text),
            )
        return f"{kept}…\n{said}"

    def stop(
        self, response: Response, wire_stop: Any, extra: list[str], price: StepPrice | None = None
    ) -> None:
        style = STOP_STYLES.get(response.stop_reason, "black on red")
        parts: list[str | Text | tuple[str, str]] = [
            (_("← response "), "cyan"),
            (f" {response.stop_reason} ", f"bold {style}"),
        ]
        if isinstance(wire_stop, str) and wire_stop != response.stop_reason:
            parts.append((_(" (on the wire: {stop_reason})", stop_reason=wire_stop), "dim"))
        usage = response.usage
        if usage is not None and usage.input_tokens is not None:
            tokens = _(
                "{input} in / {output} out tokens",
                input=usage.input_tokens,
                output=usage.output_tokens,
            )
            if usage.reasoning_tokens:
                tokens += _(" ({n} reasoning)", n=usage.reasoning_tokens)
            extra = [*extra, tokens]
        cost = step_cost_text(price)
        if cost is not None:
            extra = [*extra, cost]
        cache = cache_text(usage, price)
        if cache is not None:
            extra = [*extra, _("prompt cache: {cache}", cache=cache)]
        if extra:
            parts.append((" · " + " · ".join(extra), "dim"))
        self.line(*parts)


def signature(tool: ToolSpec) -> str:
    """`get_weather(city: string, unit?: "c" | "f")` from the tool's schema."""
    schema = tool.input_schema
    props = schema.get("properties")
    required = schema.get("required")
    required = required if isinstance(required, list) else []
    params = []
    for name, prop in (props if isinstance(props, dict) else {}).items():
        params.append(f"{name}{'' if name in required else '?'}: {_type_of(prop)}")
    return f"{tool.name}({', '.join(params)})"


def _type_of(prop: Any) -> str:
    if not isinstance(prop, dict):
        return "any"
    if isinstance(prop.get("enum"), list):
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in prop["enum"])
    kind = prop.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array" and isinstance(prop.get("items"), dict):
        return f"{_type_of(prop['items'])}[]"
    return str(kind) if kind else "any"


def arguments_text(value: Any) -> str:
    line = json.dumps(value, ensure_ascii=False)
    return line if len(line) <= INLINE_JSON else json.dumps(value, ensure_ascii=False, indent=2)


# ---------------------------------------------------------------------------------------------
# a trace


def render_trace(
    console: Console,
    trace: Trace,
    *,
    step: int | None = None,
    thinking: bool = False,
    full: bool = False,
    price_model: str | None = None,
) -> None:
    view = _View(console, thinking=thinking, full=full)
    view.mcp = trace.mcp_exchanges()
    _trace_header(view, trace)
    cost = price_trace(trace.record, price_model)
    results, runs = trace.results(), trace.runs()
    error = trace.record.error.to_json_dict() if trace.record.error is not None else None
    said_where = False  # the reason the run stopped, said under its step (then not again)
    previous_tools: tuple[int, list[Any]] | None = None
    last_asked = max((later.number for later in trace.steps if later.request), default=0)
    for s in trace.steps:
        tools_json = [t.to_json_dict() for t in s.request.tools] if s.request else []
        same_as = (
            previous_tools[0]
            if previous_tools is not None and previous_tools[1] == tools_json
            else None
        )
        if s.request is not None and (previous_tools is None or same_as is None):
            previous_tools = (s.number, tools_json)
        if step is not None and s.number != step:
            continue
        if step is not None:
            same_as = None
        answered_later = last_asked > s.number  # a later step's request carries the results
        _step(view, s, same_as, results, runs, answered_later, cost.steps.get(s.number))
        if error is not None and error.get("step") == s.number:
            _stopped_here(view, error, s, interrupted=trace.record.status == "interrupted")
            said_where = True
    if not trace.steps and trace.mcp_logs():
        _mcp_traffic(view, trace)  # fc mcp record: no model, only the servers' JSON-RPC
    elif step is None:
        _trace_footer(view, trace, said_where, cost)


def _mcp_traffic(view: _View, trace: Trace) -> None:
    """List each JSON-RPC message of a trace with no steps, one line each, in order."""
    for log in trace.mcp_logs():
        view.c.print()
        view.c.rule(Text(log.file, style="bold"), align="left", style="dim")
        for entry in log.entries:
            n = _("#{n} ", n=entry.get("n"))
            if "event" in entry:
                details = {k: v for k, v in entry.items() if k not in ("n", "at", "event")}
                view.line((n, "dim"), (str(entry["event"]), "yellow"), " ", json.dumps(details))
                continue
            body = mcp_message(entry)
            arrow = "→ " if entry.get("dir") == "sent" else "← "
            if not body:
                view.line((n, "dim"), arrow, (_("not JSON-RPC: "), "red"), repr(entry.get("raw")))
                continue
            method = body.get("method")
            what = str(method) if method else ("error" if "error" in body else "result")
            params = body.get("params")
            params = params if isinstance(params, dict) else {}
            if method == "tools/call":
                what += f" {params.get('name')} {json.dumps(params.get('arguments'), ensure_ascii=False)}"
            result = body.get("result")
            if isinstance(result, dict) and "isError" in result:
                what += f" isError {json.dumps(result['isError'])}"
            ident = _(" (id {id})", id=json.dumps(body["id"])) if "id" in body else ""
            view.line((n, "dim"), (arrow, "cyan"), (what, "bold"), (ident, "dim"))


def _trace_header(view: _View, trace: Trace) -> None:
    # Rich's Text drops BEL, BS, VT, FF and CR before fc's console could escape them: what the
    # manifest says is escaped here, as the console escapes every other control character.
    m = trace.record
    view.line((_("trace "), "bold"), (escape_controls(str(trace.path)), "bold"))
    facts = [
        _(
            "{provider} ({format} format)",
            provider=m.provider or "?",
            format=trace.wire_format or "?",
        ),
        _("model {model}", model=m.model or "?"),
        _("status {status}", status=status_text(m.status)),
        steps_text(len(trace.steps)),
    ]
    if m.duration_ms is not None:
        facts.append(duration(m.duration_ms))
    view.line((escape_controls(" · ".join(facts)), "dim"))
    if m.question is not None:
        view.labelled(_("question: "), (escape_controls(m.question), "bold"))
    options = _options(m.options)
    if options:
        view.line((_("options: ") + " ".join(options), "dim"))
    for server in m.mcp_servers or []:
        info = server.get("server_info")
        info = info if isinstance(info, dict) else {}
        view.labelled(
            (_("MCP server "), "cyan"),
            (escape_controls(str(server.get("name"))), "bold"),
            (
                escape_controls(
                    _(
                        ": {given} ({transport}, protocol {version}, {info}); its JSON-RPC: {log}",
                        given=str(server.get("server")),
                        transport=str(server.get("transport")),
                        version=str(server.get("protocol_version")),
                        info=" ".join(str(v) for v in (info.get("name"), info.get("version")) if v),
                        log=str(server.get("log")),
                    )
                ),
                "dim",
            ),
        )


def status_text(status: str | None) -> str:
    """A run's status (the manifest's `status`) in the chosen language: `ok` is `ok` in English."""
    if status == "ok":
        return _("ok")
    if status == "error":
        return _("error")
    if status == "interrupted":
        return _("interrupted")
    if status == "max_steps":
        return _("max_steps")
    return status or "?"


def steps_text(n: int) -> str:
    """`1 step`, `2 steps`."""
    return _("1 step") if n == 1 else _("{n} steps", n=n)


def _options(options: Options | None) -> list[str]:
    """The run's options that differ from the defaults, as they were typed."""
    if options is None:
        return []
    return as_typed(options, lambda text: json.dumps(one_line(text, 40), ensure_ascii=False))


def _step(
    view: _View,
    s: Step,
    same_as: int | None,
    results: dict[str, ToolResultBlock],
    runs: dict[str, dict[str, Any]],
    answered_later: bool,
    price: StepPrice | None = None,
) -> None:
    record = s.record or {}
    view.c.print()
    view.c.rule(Text(_("step {step}", step=s.number), style="bold"), align="left", style="dim")
    request = s.request
    if request is not None:
        if s.number == 1 and request.system:
            view.line(_("system: "), (request.system, "italic"))
        view.tools(request.tools, same_as)
        count = messages_text(len(request.messages))
        if s.wire_messages is not None and s.wire_messages != len(request.messages):
            count += _(" ({n} on the wire)", n=s.wire_messages)
        view.line(
            (_("→ request"), "cyan"),
            _(": {count}, {what}", count=count, what=_what_is_new(request)),
        )
    for note in s.notes:
        view.line(("! ", "yellow"), (localized(note), "yellow"))
    bug = record.get("harness_bug")
    if isinstance(bug, str):
        # Said where it happened: this step's request, or how its answer was handled.
        view.line((_("✗ harness bug "), "bold red"), (translated(bug), "red"))
    extra = step_facts(record)
    response = s.response
    if response is None:
        view.line((_("← no response"), "red"), (" · " + " · ".join(extra), "dim") if extra else "")
        return
    view.stop(response, record.get("wire_stop_reason"), extra, price)
    tools = request.tools if request else None  # unknown: no call is said to be "not offered"
    view.assistant(
        response.content,
        tools,
        response.stop_reason,
        results,
        runs,
        answered_later=answered_later,
    )


def step_facts(record: dict[str, Any]) -> list[str]:
    """What the manifest says of a step's exchange: its duration, retries, streamed bytes."""
    extra = [duration(record["duration_ms"])] if "duration_ms" in record else []
    attempts = attempts_text(record.get("attempts"))
    if attempts:
        extra.append(attempts)
    stream = record.get("stream")
    if isinstance(stream, dict) and isinstance(stream.get("bytes"), int):
        extra.append(
            _(
                "streamed {bytes:,} bytes in {pieces} pieces",
                bytes=stream["bytes"],
                pieces=stream.get("pieces", "?"),
            )
        )
    return extra


def messages_text(n: int) -> str:
    """`1 message`, `3 messages`."""
    return _("1 message") if n == 1 else _("{n} messages", n=n)


def _what_is_new(request: Request) -> str:
    if not request.messages:
        return _("no messages")
    last = request.messages[-1]
    results, held = handed_back(request.messages)
    if results:
        errors = sum(r.is_error for r in results)
        if held > 1:
            said = _(
                "{n} tool results handed back in {messages} user messages",
                n=len(results),
                messages=held,
            )
        elif len(results) > 1:
            said = _("{n} tool results handed back", n=len(results))
        else:
            said = _("1 tool result handed back")
        if errors:
            said += _(" (1 is an error)") if errors == 1 else _(" ({n} are errors)", n=errors)
        return said
    if len(request.messages) == 1:
        return _("the question")
    if last.role == "assistant":
        return _("the last message from the assistant")
    return _("the last message from the user")


def attempts_text(attempts: Any) -> str | None:
    """`2 attempts: 429 then 200` from the manifest's attempt records; None for one attempt."""
    if isinstance(attempts, int):
        return _("{n} attempts", n=attempts) if attempts > 1 else None
    if not isinstance(attempts, list) or len(attempts) < 2:
        return None
    said = []
    for a in attempts:
        if not isinstance(a, dict):
            said.append("?")
        elif a.get("status") is not None:
            said.append(str(a["status"]))
        elif isinstance(a.get("error"), str):
            said.append(a["error"].split(":")[0])
        else:
            said.append("?")
    return _("{n} attempts: {statuses}", n=len(attempts), statuses=_(" then ").join(said))


def stop_reason(error: dict[str, Any]) -> str:
    """The manifest's error message without what the transcript says around it: the engine
    writes `step 2: HTTP 503...` and `interrupted at step 2 while...`; under step 2 (or after
    `interrupted at step 2`) that is said already."""
    message = " ".join(str(error.get("message") or "").split())
    if not message.startswith(("step ", "interrupted at step ")):
        return message  # nothing to take off: no pattern compiled (a trace that ended well)
    return re.sub(r"^(step \d+: |interrupted at step \d+\b ?)", "", message)


def _how(error: dict[str, Any]) -> str:
    """Ctrl-C, or the signal that stopped the run (SIGTERM, SIGHUP)."""
    name = error.get("signal")
    return name if isinstance(name, str) and name else "Ctrl-C"


_BODY = "\u2063body\u2063"
"""Where the error body was in a stop reason, while the reason is said (an invisible mark)."""


def _stopped_here(view: _View, error: dict[str, Any], s: Step, *, interrupted: bool) -> None:
    reason = stop_reason(error)
    if interrupted:
        how = _how(error)
        reason = translated(reason)
        view.line(
            (_("✗ interrupted here ({how})", how=how), "bold red"), (f" {reason}" if reason else "")
        )
        return
    body = s.error_body
    if body and f": {body}" in reason:
        # The provider's sentence is in the note above, from the error body itself: the
        # message is said whole (it is known whole, `the demo model answered HTTP 400: {x}`),
        # a mark in the body's place, then the mark taken out.
        said = translated(reason.replace(f": {body}", f": {_BODY}", 1))
        for cut in (f": {_BODY}", f"：{_BODY}"):
            if cut in said:
                said = said.replace(cut, "", 1)
                break
        else:
            said = translated(reason.replace(f": {body}", "", 1))
        reason = said + _(" (its error body is above)")
    else:
        reason = translated(reason)
    kind = error.get("kind", "error")
    view.line((_("✗ stopped here: "), "bold red"), (f"{kind}: {reason}", "red"))
    attempts = attempts_text(error.get("attempts"))
    if attempts:
        view.line((attempts, "dim"), indent=2)
    excerpt = error.get("body_excerpt")
    if isinstance(excerpt, str) and excerpt.strip():
        view.line((_("the provider sent: "), "dim"), one_line(excerpt, 200), indent=2)


def _trace_footer(view: _View, trace: Trace, said_where: bool, cost: TraceCost) -> None:
    m = trace.record
    status = m.status
    error = m.error.to_json_dict() if m.error is not None else {}
    view.c.print()
    last = trace.steps[-1].number if trace.steps else 0
    where = error["step"] if isinstance(error.get("step"), int) else last
    reason = translated(stop_reason(error))
    response = trace.steps[-1].response if trace.steps else None
    parts = trace_cost_parts(cost)
    if parts:
        view.labelled((_("cost: "), "bold"), _("; ").join(parts))
    if status == "ok" and response is not None and response.stop_reason == "tool_use":
        view.labelled(
            (_("done: "), "bold red"),
            _(
                "the harness took the tool request of step {step} as the answer; "
                "its {n} call(s) were never executed",
                step=last,
                n=len(response.tool_uses()),
            ),
        )
    elif status == "ok" and "tool-request-as-reply" in m.harness_bugs().values():
        view.labelled(
            (_("done: "), "bold red"),
            _(
                "the model answered at step {step}, but no tool ran: the harness carried the "
                "tool request on as a reply, so nothing in the answer was looked up",
                step=last,
            ),
        )
    elif status == "ok":
        view.labelled(
            (_("done: "), "bold green"), _("the model answered at step {step}", step=last)
        )
    elif status == "max_steps":
        limit = m.options.max_steps if m.options and m.options.max_steps is not None else last
        view.labelled(
            (_("stopped: "), "bold yellow"),
            _(
                "--max-steps {limit} reached before the model answered; "
                "the last tool results were not handed back",
                limit=limit,
            ),
        )
    elif status == "interrupted":
        said = _("; the trace keeps what it had") if said_where or not reason else f" {reason}"
        view.labelled(
            (_("interrupted at step {step} ({how})", step=where, how=_how(error)), "bold red"), said
        )
    elif status == "error":
        if said_where:
            # Said in full under the step; here only what and where.
            what = str(error.get("kind", "error"))
            if isinstance(error.get("http_status"), int):
                what += _(", ") + f"HTTP {error['http_status']}"
            view.labelled(
                (_("stopped at step {step}", step=where), "bold red"),
                _(" ({what}): the reason is under step {step}", what=what, step=where),
            )
        else:
            view.labelled(
                (_("stopped at step {step}: ", step=where), "bold red"), (reason or "?", "red")
            )
    else:
        view.labelled(
            (_("not finished: "), "bold yellow"),
            _(
                "status {status}: fc was stopped without closing the trace, or is still running",
                status=status if status is not None else "?",  # a manifest without one
            ),
        )
    for note in m.notes or []:
        view.labelled((_("note: "), "yellow"), translated(note))


# ---------------------------------------------------------------------------------------------
# one file


def render_document(console: Console, doc: Document, *, thinking: bool, full: bool) -> None:
    view = _View(console, thinking=thinking, full=full)
    view.line(
        (doc.name, "bold"),
        document_text(doc),
        (_(" ({reason})", reason=localized(doc.reason)), "dim"),
    )
    internal = doc.internal
    if isinstance(internal, Response):
        facts = [
            _("id {id}", id=internal.id) if internal.id else "",
            _("model {model}", model=internal.model) if internal.model else "",
        ]
        if any(facts):
            view.line((" · ".join(f for f in facts if f), "dim"))
        view.stop(internal, None, [])
        view.assistant(internal.content, None, internal.stop_reason, None, {}, answered_later=False)
        return
    if isinstance(internal, Request):
        # A body that names no model (Gemini's names it in the URL) shows none.
        facts = [_("model {model}", model=internal.model)] if internal.model else []
        facts.append(_("{n} messages", n=len(internal.messages)))
        for key in (
            "tool_choice",
            "parallel_tool_calls",
            "max_tokens",
            "thinking",
            "effort",
            "stream",
        ):
            value = getattr(internal, key)
            if value is not None:
                shown = value.to_json_dict() if hasattr(value, "to_json_dict") else value
                facts.append(f"{key} {json.dumps(shown, ensure_ascii=False)}")
        view.line((" · ".join(facts), "dim"))
        if internal.system:
            view.line(_("system: "), (internal.system, "italic"))
        view.tools(internal.tools, None)
        _conversation(view, internal.messages, internal.tools, "$.messages")
    elif isinstance(internal, list):
        if doc.system:
            view.line(_("system: "), (doc.system, "italic"))
        _conversation(view, internal, None, "$")


def kind_text(kind: str) -> str:
    """`request`, `response` or `messages array` (Document.what), in the chosen language."""
    if kind == "request":
        return _("request")
    if kind == "response":
        return _("response")
    return _("messages array")


def document_text(doc: Document) -> str:
    """`: a deepseek request`, `: an internal messages array`."""
    what = kind_text(doc.kind)
    if doc.format[:1] in tuple("aeiou"):
        return _(": an {format} {what}", format=doc.format, what=what)
    return _(": a {format} {what}", format=doc.format, what=what)


def _conversation(
    view: _View, messages: list[Message], tools: list[ToolSpec] | None, base: str
) -> None:
    """A history: each call with its result under it; results shown once, under their call."""
    results = {r.tool_use_id: r for m in messages for r in m.tool_results()}
    called: set[str] = set()
    for i, message in enumerate(messages):
        if message.role == "assistant":
            view.line(("assistant", "bold cyan"), (f"  {base}[{i}]", "dim"))
            later = any(m.tool_results() for m in messages[i + 1 :])
            stop = "tool_use" if message.tool_uses() else None
            view.assistant(message.content, tools, stop, results, {}, answered_later=later)
            called |= {c.id for c in message.tool_uses()}
            continue
        texts = [b for b in message.content if isinstance(b, TextBlock)]
        orphans = [b for b in message.tool_results() if b.tool_use_id not in called]
        if not texts and not orphans:
            continue  # its results were shown under their calls
        view.line(("user", "bold cyan"), (f"  {base}[{i}]", "dim"))
        for result in orphans:
            view.line(
                (_("result for "), "bold red"),
                view.ids.text(result.tool_use_id),
                (_(": no call with this id before it"), "bold red"),
                indent=2,
            )
            view.block(view.fold(result.content), 6, "red" if result.is_error else "")
        for text in texts:
            view.block(text.text, 2)


# ---------------------------------------------------------------------------------------------
# a folder of traces


def render_trace_list(console: Console, folder: Any, summaries: list[dict[str, Any]]) -> None:
    """`fc show traces/examples`: the traces in a folder, newest first, a line each."""
    n = len(summaries)
    console.print(
        Text.assemble(
            (escape_controls(str(folder)), "bold"),
            _(" is a folder of 1 trace, not a trace (newest first; fc show one of them):")
            if n == 1
            else _(
                " is a folder of {n} traces, not a trace (newest first; fc show one of them):",
                n=n,
            ),
        )
    )
    # escaped here: Rich's Text would drop a BEL, BS, VT, FF or CR (see _trace_header)
    names = [escape_controls(s["trace"]) for s in summaries]
    width = max((cell_len(name) for name in names), default=0)
    for name, s in zip(names, summaries, strict=True):
        steps = s["steps"]
        counted = steps_text(steps) if steps is not None else _("? steps")
        counted += " " * (9 - cell_len(counted))
        style = {"ok": "green", "error": "red", "interrupted": "red"}.get(s["status"], "yellow")
        console.print(
            Text.assemble(
                "  ",
                (name + " " * (width - cell_len(name)), "bold"),
                "  ",
                (escape_controls(f"{s['status']:<12}"), style),
                (escape_controls(f"{counted} {s['provider'] or '?':<10}"), "dim"),
                " ",
                (_cost_column(s.get("cost_usd")), "dim"),
                escape_controls(one_line(s["question"] or "", 60)),
            )
        )


def _cost_column(amount: Any) -> str:
    """The listing's cost column: what the manifest records, or blank."""
    said = usd(decimal_of(amount)) if isinstance(amount, float | int) else ""
    return f"{said:<10}"


# ---------------------------------------------------------------------------------------------
# raw files (--wire)


def render_files(
    console: Console, heading: str, sections: list[tuple[str, list[tuple[str, str]]]]
) -> None:
    """Files as stored, pretty-printed, under a rule per section; JSON highlighted on a terminal."""
    print_hanging(console, Text(), Text(heading, style="bold"), 2)
    for title, files in sections:
        console.print()
        console.rule(Text(title, style="bold"), align="left", style="dim")
        if not files:
            console.print(Text(_("(no wire files)"), style="dim"))
        for name, text in files:
            console.print(Text(name, style="bold cyan"))
            if console.color_system is None:
                _print_file(console, Text(text))
                continue
            from rich.syntax import Syntax  # Pygments: only for --wire on a terminal

            lexer = "json" if name.endswith(".json") else "text"
            syntax = Syntax(text, lexer, theme="ansi_dark", background_color="default")
            # As Text, so that a long line wraps by words at its own indentation (console.py).
            highlighted = syntax.highlight(text)
            highlighted.rstrip()
            _print_file(console, highlighted)


def _print_file(console: Console, text: Text) -> None:
    """Print a file's lines, a stream's `data: ` and `event: ` lines wrapped under their value."""
    for line in text.split("\n", allow_blank=True):
        label = line.plain.partition(": ")[0]
        if label in ("data", "event"):
            print_hanging(console, line[: len(label) + 2], line[len(label) + 2 :], len(label) + 2)
        else:
            console.print(line)
