"""One section per step, in the order of the round trip: the request (what is new in it, the
tools offered), the response with its stop reason as a badge, the thinking (folded), the text,
and each call with its result right under it, sharing its colour and linked to it by id; a
result links on to the place in the next request where it went back to the model.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from fccli.core.models import FINAL_STOPS, TextBlock, ThinkingBlock, ToolUseBlock
from fccli.i18n import _, gettext, localized, tidy
from fccli.render.cost_view import cache_text, step_cost_text
from fccli.render.html.jsonview import Marks, render_json
from fccli.render.html.markup import esc, tag
from fccli.render.transcript import (
    _what_is_new,
    arguments_text,
    attempts_text,
    duration,
    messages_text,
    signature,
    step_facts,
    stop_reason,
)
from fccli.trace.words import translated

if TYPE_CHECKING:
    from collections.abc import Mapping

    from fccli.core.models import Request, Response, ToolResultBlock, ToolSpec
    from fccli.cost.price import StepPrice
    from fccli.render.html.places import Placed, Places
    from fccli.trace.reader import Step

FOLD_CHARS = 600
PAGE_CHARS = 1 << 20
"""The most characters of one text (an answer, thinking, a result) the page holds: a page is
meant to be shared and opened in a browser; `fc show --json` has the whole text."""
FOLD_LINES = 12
TOOL_NAMES = 8
"""Tools named in the folded line of the offer; the rest are counted."""
GOOD_STOPS = {"end_turn": "ok", "tool_use": "use"}


def badge(stop: str, wire: Any = None) -> str:
    kind = GOOD_STOPS.get(stop, "bad")
    out = tag("span", esc(stop), class_=f"badge {kind}")
    if isinstance(wire, str) and wire != stop:
        said = _("on the wire: {stop_reason}", stop_reason=tag("code", esc(wire)))
        out += " " + tag("span", said, class_="wire")
    return out


def tokens_text(usage: Any) -> str | None:
    if not isinstance(usage, dict) or not isinstance(usage.get("input_tokens"), int):
        return None
    said = _(
        "{input} in / {output} out tokens",
        input=usage["input_tokens"],
        output=usage.get("output_tokens", "?"),
    )
    if isinstance(usage.get("reasoning_tokens"), int) and usage["reasoning_tokens"]:
        said += _(" ({n} reasoning)", n=usage["reasoning_tokens"])
    return said


class StepView:
    def __init__(
        self,
        places: Places,
        *,
        thinking: bool,
        full: bool,
        costs: Mapping[int, StepPrice] | None = None,
    ) -> None:
        self.places = places
        self.costs = costs or {}
        """Each step's price (or why it has none), by step number."""
        self.trace = places.data.trace
        self.thinking = thinking
        self.full = full
        self.results = self.trace.results()
        self.runs = self.trace.runs()
        self.harness = harness_steps(self.trace)
        self.mcp = self.trace.mcp_exchanges()

    def section(self, step: Step, same_as: int | None) -> str:
        title = esc(_("step {step}", step=step.number))
        body = [tag("h2", tag("a", title, href=f"#step-{step.number}"))]
        body.append(self._harness(step))
        body.append(self._request(step, same_as))
        body += [tag("p", "! " + esc(localized(note)), class_="note") for note in step.notes]
        body.append(self._response(step))
        body.append(self._stopped(step))
        body.append(self._findings(self.places.findings.get(("step", step.number), [])))
        files = self.places.files[step.number]
        stream = step.files.get("wire_stream")
        body.append(files.html(self.trace.wire_format, stream.name if stream else None))
        return tag("section", "".join(body), id=f"step-{step.number}", class_="step")

    # ---- the request

    def _request(self, step: Step, same_as: int | None) -> str:
        request = step.request
        if request is None:
            return ""
        out = []
        if step.number == 1 and request.system:
            said = esc(_("system: ")) + tag("q", esc(request.system))
            out.append(tag("p", said, class_="system"))
        out.append(self._tools(request.tools, same_as))
        n = len(request.messages)
        count = messages_text(n)
        if step.wire_messages is not None and step.wire_messages != n:
            count += _(" ({n} on the wire)", n=step.wire_messages)
        line = tag("span", esc(_("→ request")), class_="dir") + esc(
            _(": {count}, {what}", count=count, what=_what_is_new(request))
        )
        out.append(tag("p", line, class_="req"))
        out.append(self._handed_back(request))
        return tag("div", "".join(out), class_="request")

    def _tools(self, tools: list[ToolSpec], same_as: int | None) -> str:
        if not tools:
            return tag("p", esc(_("tools offered: none")), class_="dim")
        if same_as is not None:
            link = tag("a", esc(_("step {step}", step=same_as)), href=f"#step-{same_as}")
            said = _("tools offered: the same {n} as {step_link}", n=len(tools), step_link=link)
            return tag("p", said, class_="dim")
        names = ", ".join(t.name for t in tools[:TOOL_NAMES])
        if len(tools) > TOOL_NAMES:
            names += _(", … {n} more", n=len(tools) - TOOL_NAMES)
        items = "".join(
            tag(
                "li",
                tag("code", esc(signature(t)))
                + (" " + tag("span", esc(t.description), class_="dim") if t.description else ""),
            )
            for t in tools
        )
        return tag(
            "details",
            tag(
                "summary",
                esc(_("tools offered ({n}):", n=len(tools))) + " " + tag("code", esc(names)),
            )
            + tag("ol", items, class_="tools"),
            class_="tools",
        )

    def _handed_back(self, request: Request) -> str:
        """The results this request hands back, each linking to its call's result."""
        last = request.messages[-1] if request.messages else None
        results = last.tool_results() if last else []
        if not results:
            return ""
        items = []
        for r in results:
            target = self._result_anchor(r.tool_use_id)
            said = tag("code", esc(r.tool_use_id), class_=f"id {self.places.colour(r.tool_use_id)}")
            if target is not None:
                said = tag("a", said, href=f"#{target}")
            if r.is_error:
                line = _("✗ error result for {id}", id=said)
            else:
                line = _("result for {id}", id=said)
            items.append(tag("li", line, class_="err" if r.is_error else None))
        return tag("ul", "".join(items), class_="back")

    def _result_anchor(self, call_id: str) -> str | None:
        for step in self.trace.steps:
            if step.number not in self.places.shown or step.response is None:
                continue
            for k, call in enumerate(step.response.tool_uses()):
                if call.id == call_id:
                    return f"result-{step.number}-{k}"
        return None

    # ---- the response

    def _response(self, step: Step) -> str:
        record = step.record or {}
        extra = step_facts(record)
        response = step.response
        if response is None:
            said = tag("span", esc(_("← no response")), class_="dir bad")
            return tag("p", said + esc(" · " + " · ".join(extra) if extra else ""), class_="resp")
        usage = response.usage.to_json_dict() if response.usage else None
        tokens = tokens_text(usage)
        if tokens:
            extra.append(tokens)
        price = self.costs.get(step.number)
        cost = step_cost_text(price)
        if cost is not None:
            extra.append(cost)
        cache = cache_text(response.usage, price)
        if cache is not None:
            extra.append(_("prompt cache: {cache}", cache=cache))
        line = (
            tag("span", esc(_("← response")), class_="dir")
            + " "
            + badge(response.stop_reason, record.get("wire_stop_reason"))
            + (tag("span", esc(" · " + " · ".join(extra)), class_="dim") if extra else "")
        )
        return tag("p", line, class_="resp") + self._blocks(step, response)

    def _blocks(self, step: Step, response: Response) -> str:
        blocks = response.content
        final = response.stop_reason in FINAL_STOPS and not response.tool_uses()
        tools = [t.name for t in step.request.tools] if step.request else None
        out = []
        k = 0
        for block in blocks:
            if isinstance(block, ThinkingBlock):
                out.append(self._thinking(block.thinking))
            elif isinstance(block, TextBlock):
                kind = "answer" if final else "text"
                label = _("answer") if final else _("text")
                out.append(
                    tag(
                        "div",
                        tag("span", esc(label), class_="label")
                        + tag("p", esc(_capped(block.text))),
                        class_=kind,
                    )
                )
            elif isinstance(block, ToolUseBlock):
                out.append(self._call(step, k, block, tools, response.stop_reason))
                k += 1
        return "".join(out)

    def _thinking(self, text: str) -> str:
        summary = tag("summary", esc(_("thinking ({n:,} characters)", n=len(text))))
        return tag(
            "details", summary + tag("p", esc(_capped(text))), class_="thinking", open=self.thinking
        )

    def _call(
        self, step: Step, k: int, call: ToolUseBlock, tools: list[str] | None, stop: str
    ) -> str:
        colour = self.places.colour(call.id)
        result_id = f"result-{step.number}-{k}"
        offered = ""
        if tools is not None:
            offered = (
                tag("span", esc(_("tool {n}", n=tools.index(call.name) + 1)), class_="dim")
                if call.name in tools
                else tag("span", esc(_("not offered!")), class_="bad")
            )
        head = (
            tag("span", esc(_("▶ call")), class_="label")
            + " "
            + tag("strong", esc(call.name))
            + " "
            + offered
            + " id "
            + tag("a", tag("code", esc(call.id)), href=f"#{result_id}", class_="id")
        )
        if call.raw_arguments is not None:
            args = tag("p", esc(_("arguments, not a JSON object:")), class_="bad") + tag(
                "pre", esc(_capped(call.raw_arguments))
            )
        else:
            args = tag("pre", esc(arguments_text(call.input)), class_="args")
        body = (
            tag("div", head, class_="head")
            + args
            + self._findings(self.places.findings.get(("call", call.id), []))
        )
        call_html = tag("div", body, class_=f"call {colour}", id=f"call-{step.number}-{k}")
        return call_html + self._mcp(step, k, call) + self._result(step, k, call, stop)

    def _mcp(self, step: Step, k: int, call: ToolUseBlock) -> str:
        """The JSON-RPC that served a call on an MCP server: its tools/call and the answer,
        side by side, as the log keeps them."""
        exchange = self.mcp.get(call.id)
        if exchange is None:
            return ""
        summary = esc(_("⇄ MCP {server}: ", server=exchange.server)) + esc(
            _("tools/call id {id}", id=json.dumps(exchange.request_id))
        )
        figures = ""
        for entry, what in ((exchange.request, _("sent")), (exchange.response, _("received"))):
            if entry is None:
                body = tag("p", esc(_("← no answer")), class_="missing")
                name = "—"
            else:
                name = _("{file} #{n}", file=exchange.file, n=entry.get("n"))
                shown = entry.get("message", entry.get("raw"))
                marks = Marks(f"m{step.number}-{k}-{entry.get('n')}")
                body = tag("pre", render_json(shown, marks), class_="json")
            caption = tag("figcaption", tag("code", esc(name)) + " " + tag("small", esc(what)))
            figures += tag("figure", caption + body, class_="file")
        return tag(
            "details",
            tag("summary", summary) + tag("div", figures, class_="pair"),
            class_="files mcp",
            id=f"mcp-{step.number}-{k}",
        )

    def _result(self, step: Step, k: int, call: ToolUseBlock, stop: str) -> str:
        colour = self.places.colour(call.id)
        anchor = f"result-{step.number}-{k}"
        back_to_call = tag(
            "a", tag("code", esc(call.id)), href=f"#call-{step.number}-{k}", class_="id"
        )
        run = self.runs.get(call.id, {})
        took = duration(run["duration_ms"]) if "duration_ms" in run else ""
        detail = _(", ").join(str(x) for x in (run.get("error_kind"), took) if x)
        detail_html = (
            tag("span", esc(_(" ({detail})", detail=detail)), class_="dim") if detail else ""
        )
        result: ToolResultBlock | None = self.results.get(call.id)
        findings = self._findings(self.places.findings.get(("result", call.id), []))
        if result is not None:
            label = _("✗ error result") if result.is_error else _("✓ result")
            head = (
                tag("span", esc(label), class_="label")
                + esc(_(" for "))
                + back_to_call
                + detail_html
                + self._went_back(call.id)
            )
            classes = f"result {colour}" + (" err" if result.is_error else "")
            body = tag("div", head, class_="head") + self._text(result.content) + findings
            return tag("div", body, class_=classes, id=anchor)
        if run:
            failed = bool(run.get("is_error"))
            said = _("✗ executed, failed") if failed else _("✓ executed")
            head = (
                tag("span", esc(said), class_="label")
                + esc(_(" for "))
                + back_to_call
                + detail_html
                + tag(
                    "span",
                    esc(_("; the result was never handed back: the run stopped first")),
                    class_="warn",
                )
            )
            error = run.get("error")
            text = self._text(error) if failed and isinstance(error, str) else ""
            classes = f"result {colour}" + (" err" if failed else "")
            return tag(
                "div", tag("div", head, class_="head") + text + findings, class_=classes, id=anchor
            )
        if stop != "tool_use":
            why = _("not executed: ") + _(
                "the stop reason is {stop_reason}, not tool_use", stop_reason=stop
            )
        elif any(later.number > step.number and later.request for later in self.trace.steps):
            why = _("no result for this id in the next request")
        else:
            why = _("no result: the run stopped before this call was answered")
        head = tag("span", esc(why), class_="label") + _(" ({detail})", detail=back_to_call)
        return tag(
            "div",
            tag("div", head, class_="head") + findings,
            class_=f"result {colour} err",
            id=anchor,
        )

    def _went_back(self, call_id: str) -> str:
        back = self.places.back.get(call_id)
        if back is None:
            return ""
        step, anchor = back
        said = esc(_("↪ went back in step {step}'s request", step=step))
        return " " + tag("a", said, href=f"#{anchor}", class_="went")

    def _text(self, text: str) -> str:
        text = _capped(text)
        lines = text.count("\n") + 1
        if self.full or (len(text) <= FOLD_CHARS and lines <= FOLD_LINES):
            return tag("pre", esc(text))
        summary = tag(
            "summary",
            esc(
                _(
                    "{chars:,} characters, {lines:,} lines: open to read",
                    chars=len(text),
                    lines=lines,
                )
            ),
        )
        return tag("details", summary + tag("pre", esc(text)), class_="long")

    # ---- where the run stopped, findings, the harness's own bug

    def _stopped(self, step: Step) -> str:
        m = self.trace.record
        error = m.error
        if error is None or error.step != step.number:
            return ""
        reason = translated(stop_reason(error.to_json_dict()))
        if m.status == "interrupted":
            head = _("✗ interrupted here ({how})", how="Ctrl-C")
            body = tag("p", esc(reason)) if reason else ""
        else:
            head = _("✗ stopped here: ") + (error.kind or "error")
            body = tag("p", esc(reason)) if reason else ""
            attempts = attempts_text(error.to_json_dict().get("attempts"))
            if attempts:
                body += tag("p", esc(attempts), class_="dim")
            excerpt = error.body_excerpt
            if excerpt is not None and excerpt.strip():
                body += tag("p", esc(_("the provider sent:"))) + tag("pre", esc(excerpt))
            if step.error_body:
                said = _("its error body says: {body}", body=tag("q", esc(step.error_body)))
                body += tag("p", said)
        return tag("div", tag("strong", esc(head)) + body, class_="stopped", id="stopped")

    def _findings(self, placed: list[Placed]) -> str:
        if not placed:
            return ""
        return tag("ul", "".join(finding_item(p) for p in placed), class_="findings")

    def _harness(self, step: Step) -> str:
        said = self.harness.get(step.number)
        if said is None:
            return ""
        said = _("the harness bug changed this step: {bug}", bug=translated(said))
        return tag("p", esc(said), class_="harness")


def finding_item(p: Placed) -> str:
    f = p.finding
    where = f"{f.file or ''} {f.path}".strip()
    place = tag("code", esc(where))
    if p.anchor is not None:
        place = tag("a", place, href=f"#{p.anchor}")
    said = (
        tag("span", esc(f.rule), class_=f"badge {'bad' if f.severity == 'error' else 'warn'}")
        + " "
        + esc(localized(f.message))
        + " "
        + place
    )
    if f.provider_message:
        said += tag(
            "p",
            esc(
                tidy(
                    _(
                        "{provider} would answer: {message}",
                        provider=gettext(f.provider),
                        message=f.provider_message,
                    )
                )
                if f.provider
                else _("the provider would answer: {message}", message=f.provider_message)
            ),
            class_="dim",
        )
        meaning = getattr(f.provider_message, "meaning", None)
        said_here = meaning() if meaning is not None else None
        if said_here:  # what the provider's sentence says, in the chosen language
            said += tag("p", esc(_("(it means: {meaning})", meaning=said_here)), class_="dim")
    return tag("li", said, class_=f.severity)


def harness_bug(manifest: dict[str, Any]) -> Any:
    """The manifest's record of a `--harness-bug` run (issue 12), top level or among the options."""
    options = manifest.get("options")
    options = options if isinstance(options, dict) else {}
    return manifest.get("harness_bug") or options.get("harness_bug")


def harness_steps(trace: Any) -> dict[int, str]:
    """The steps the harness bug changed, and what to say under each: from a step record's own
    `harness_bug`, or a `step`/`steps` field of the manifest's record."""
    out: dict[int, str] = {}
    bug = harness_bug(trace.manifest)
    if isinstance(bug, dict):
        said = harness_bug_of(bug.get("kind") or bug.get("name")) or _("the harness bug")
        steps = bug.get("steps", bug.get("step"))
        for n in steps if isinstance(steps, list) else [steps]:
            if isinstance(n, int):
                out[n] = said
    for step in trace.steps:
        own = harness_bug_of((step.record or {}).get("harness_bug"))
        if own is not None:
            out[step.number] = own
    return out


def harness_bug_of(value: Any) -> str | None:
    """A `--harness-bug` record said in a line, whatever its shape: a kind (`pair-by-order`), or
    an object whose fields are said as they are."""
    if value is None or value is False:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        kind = value.get("kind") or value.get("name")
        rest = {k: v for k, v in value.items() if k not in ("kind", "name")}
        said = ", ".join(f"{k}: {_plain(v)}" for k, v in rest.items())
        return " ".join(x for x in (str(kind) if kind else "", f"({said})" if said else "") if x)
    return _plain(value)


def _plain(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _capped(text: str) -> str:
    """Return `text` cut to PAGE_CHARS, saying how much more there is."""
    if len(text) <= PAGE_CHARS:
        return text
    more = _(
        "… {more:,} more characters not shown (fc show --json has them)",
        more=len(text) - PAGE_CHARS,
    )
    return text[:PAGE_CHARS] + "\n" + more
