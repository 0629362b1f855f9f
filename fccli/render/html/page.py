"""The page: head, header, banners, the step timeline, a section per step, the footer.

Self-contained: the style and the one small script are inline (read from page.css and page.js
beside this module), no font, image or script is fetched, and a Content-Security-Policy allows
no request and runs no script but that one (by its hash), so even a string that escaped the
escaping could not run or call out.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from fccli import __version__
from fccli.cost.trace import price_trace
from fccli.i18n import _, language, localized
from fccli.render.cost_view import trace_cost_parts
from fccli.render.html.markup import esc, tag
from fccli.render.html.places import Places
from fccli.render.html.steps import (
    StepView,
    badge,
    finding_item,
    harness_bug,
    harness_bug_of,
    harness_steps,
    tokens_text,
)
from fccli.render.transcript import _options, duration, stop_reason
from fccli.trace.words import translated

if TYPE_CHECKING:
    from fccli.cost.trace import TraceCost
    from fccli.render.html.trace_page import PageData, Replayed
    from fccli.trace.reader import Trace

STATUS = {"ok": "ok", "max_steps": "warn", "error": "bad", "interrupted": "bad"}
_HTML_LANG = {"en": "en", "zh": "zh-Hans"}


@cache
def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text("utf-8")


def _csp(script: str) -> str:
    """The page's policy: no request, no script but `script` (none when it is empty)."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    scripts = f"'sha256-{digest}'" if script else "'none'"
    return (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src {scripts}; base-uri 'none'; form-action 'none'"
    )


def trace_page(
    data: PageData,
    *,
    step: int | None = None,
    thinking: bool = False,
    full: bool = False,
    price_model: str | None = None,
) -> str:
    """The trace as one HTML page (a str; the caller writes it)."""
    trace = data.trace
    shown = {s.number for s in trace.steps if step is None or s.number == step}
    places = Places(data, shown).build()
    cost = price_trace(trace.record, price_model)
    view = StepView(places, thinking=thinking, full=full, costs=cost.steps)
    sections = []
    previous_tools: tuple[int, list[Any]] | None = None
    for s in trace.steps:
        tools = [t.to_json_dict() for t in s.request.tools] if s.request else []
        same_as = previous_tools[0] if previous_tools and previous_tools[1] == tools else None
        if s.request is not None and same_as is None:
            previous_tools = (s.number, tools)
        if s.number in shown:
            sections.append(view.section(s, same_as if step is None else None))
    body = (
        _header(trace, cost)
        + _banners(data, places)
        + _timeline(trace, shown)
        + "".join(sections)
        + _footer(trace)
    )
    title = trace.record.question or str(trace.path)
    return html_document("fc · " + title, body, script=_asset("page.js"))


def html_document(title: str, body: str, *, style: str = "", script: str = "") -> str:
    """A self-contained page: its title, the page's style (and `style` after it), `body` (HTML)
    in <main>, and `script`, the only one its policy lets run."""
    script_tag = f"<script>{script}</script>" if script else ""
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{_HTML_LANG[language()]}"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(_csp(script))}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="fc {esc(__version__)}">'
        f"<title>{esc(title)}</title>"
        f"<style>{_asset('page.css')}{style}</style></head>\n"
        f"<body>{tag('main', body)}{script_tag}</body></html>\n"
    )


# ---------------------------------------------------------------------------------------------
# the top of the page


def _header(trace: Trace, cost: TraceCost) -> str:
    m = trace.record
    h1 = tag("h1", esc(m.question or _("(no question)")))
    status = m.status or "?"
    provider = _(
        "{provider} ({format} format)",
        provider=m.provider or "?",
        format=trace.wire_format or "?",
    )
    facts = [
        (_("trace"), tag("code", esc(trace.path))),
        (_("provider"), esc(provider)),
        (_("model"), tag("code", esc(m.model or "?"))),
        (_("status"), tag("span", esc(status), class_=f"badge {STATUS.get(status, 'warn')}")),
        (_("steps"), esc(len(trace.steps))),
    ]
    if m.duration_ms is not None:
        facts.append((_("time"), esc(duration(m.duration_ms))))
    tokens = _total_tokens(trace)
    if tokens:
        facts.append((_("tokens"), esc(tokens)))
    said = trace_cost_parts(cost)
    if said:
        facts.append((_("cost"), esc(_("; ").join(said))))
    if m.started_at is not None:
        facts.append((_("started"), esc(m.started_at)))
    options = _options(m.options)
    if options:
        facts.append((_("options"), tag("code", esc(" ".join(options)))))
    for server in m.mcp_servers or []:
        named = _(
            "{name}: {given} ({transport}, protocol {version}); its JSON-RPC: {log}",
            name=str(server.get("name")),
            given=str(server.get("server")),
            transport=str(server.get("transport")),
            version=str(server.get("protocol_version")),
            log=str(server.get("log")),
        )
        facts.append((_("MCP server"), esc(named)))
    dl = "".join(tag("div", tag("dt", esc(k)) + tag("dd", v)) for k, v in facts)
    kicker = tag("p", esc(_("fc trace")), class_="kicker")
    return tag("header", kicker + h1 + tag("dl", dl, class_="facts"))


def _total_tokens(trace: Trace) -> str | None:
    totals = {"input_tokens": 0, "output_tokens": 0, "reasoning_tokens": 0}
    seen = False
    for s in trace.steps:
        usage = (s.record or {}).get("usage")
        if isinstance(usage, dict):
            for key in totals:
                if isinstance(usage.get(key), int):
                    totals[key] += usage[key]
                    seen = True
    return tokens_text(totals) if seen else None


def _banners(data: PageData, places: Places) -> str:
    """What a reader must know before reading on: a run that failed, a fault or a harness bug
    made on purpose, a replay, fc check's findings, the manifest's notes."""
    trace = data.trace
    m = trace.record
    out = []
    fault = m.options.demo_fault if m.options is not None else None
    if fault:
        out.append(
            _banner(
                "fault",
                f"--demo-fault {fault}",
                _(
                    "the demo model makes this mistake on purpose, "
                    "to show how the harness handles it"
                ),
            )
        )
    bug = harness_bug_of(harness_bug(trace.manifest))
    if bug is not None:
        steps = sorted(harness_steps(trace))
        if steps:
            said = _(
                "fc's own harness makes this classic mistake on purpose "
                "(it changed step {steps}); fc check finds it",
                steps=", ".join(map(str, steps)),
            )
        else:
            said = _("fc's own harness makes this classic mistake on purpose; fc check finds it")
        out.append(_banner("bug", f"--harness-bug {bug}", said))
    if data.replayed is not None:
        out.append(_replayed(data.replayed))
    out.append(_status(trace))
    if data.findings is not None:
        out.append(_check(data, places))
    if m.notes:
        items = "".join(tag("li", esc(translated(localized(n)))) for n in m.notes)
        out.append(tag("ul", items, class_="notes"))
    return "".join(out)


def _banner(kind: str, head: str, text: str, extra: str = "") -> str:
    return tag("div", tag("strong", esc(head)) + " " + esc(text) + extra, class_=f"banner {kind}")


def _status(trace: Trace) -> str:
    m = trace.record
    status = m.status
    if status == "ok":
        return ""
    error = m.error.to_json_dict() if m.error is not None else {}
    last = trace.steps[-1].number if trace.steps else 0
    where = error["step"] if isinstance(error.get("step"), int) else last
    link = tag(
        "a",
        esc(_("step {step}", step=where)),
        href="#stopped" if error.get("step") == where else f"#step-{where}",
    )
    reason = translated(stop_reason(error))
    if status == "max_steps":
        limit = m.options.max_steps if m.options and m.options.max_steps is not None else last
        return _banner(
            "warn",
            _("stopped:"),
            _(
                "--max-steps {limit} reached before the model answered; "
                "the last tool results were not handed back",
                limit=limit,
            ),
        )
    said = esc(_(": {reason}", reason=reason)) if reason else ""
    if status == "interrupted":
        return _banner("bad", _("interrupted (Ctrl-C)"), _("at"), f" {link}" + said)
    if status == "error":
        kind = str(error.get("kind", "error"))
        return _banner("bad", _("stopped ({kind})", kind=kind), _("at"), f" {link}" + said)
    return _banner(
        "warn",
        _("not finished:"),
        _(
            "status {status}: fc was stopped without closing the trace, or is still running",
            status=status if status is not None else "?",  # a manifest without one
        ),
    )


def _replayed(r: Replayed) -> str:
    origin = tag("a", tag("code", esc(r.origin)), href=r.origin_href) if r.origin_href else "?"
    head = _("replay of step {step} of {trace}", step=esc(r.step), trace=origin)
    if isinstance(r.status, str):
        head += esc(_(" (that run: {status})", status=r.status))
    items = []
    if r.changes is not None:
        for c in r.changes:
            how = _(" by {how}", how=", ".join(c.how)) if c.how else ""
            was = _("(no result had this id)") if c.before is None else c.before
            items.append(
                tag(
                    "li",
                    _("result for {id}", id=tag("code", esc(c.id)))
                    + (esc(_(" ({reason})", reason=c.tool)) if c.tool else "")
                    + esc(how)
                    + tag(
                        "div",
                        tag("span", esc(_("was")), class_="label") + tag("pre", esc(was)),
                        class_="was" + (" err" if c.before_error else ""),
                    )
                    + tag(
                        "div",
                        tag("span", esc(_("now")), class_="label") + tag("pre", esc(c.after)),
                        class_="now" + (" err" if c.after_error else ""),
                    ),
                )
            )
        if not r.changes:
            items.append(
                tag(
                    "li",
                    esc(_("no tool result changed: the step's results went out as they were")),
                )
            )
    else:
        for e in r.edits:
            what = f"{e.get('kind', '?')} {e.get('id', '')}".strip()
            now = e.get("text")
            items.append(
                tag(
                    "li",
                    esc(what)
                    + (
                        tag(
                            "div",
                            tag("span", esc(_("now")), class_="label") + tag("pre", esc(now)),
                            class_="now",
                        )
                        if isinstance(now, str)
                        else ""
                    ),
                )
            )
        items.append(tag("li", esc(_("was: {problem}", problem=r.problem)), class_="dim"))
    answer = ""
    if isinstance(r.answer, str) and r.answer:
        summary = tag("summary", esc(_("the original answer")))
        answer = tag("details", summary + tag("p", esc(r.answer)))
    return tag(
        "div",
        tag("strong", head) + tag("ul", "".join(items), class_="edits") + answer,
        class_="banner replay",
    )


def _check(data: PageData, places: Places) -> str:
    findings = data.findings or []
    if data.check_problem:
        return _banner("bad", _("fc check could not read the trace:"), data.check_problem)
    if not findings:
        return _banner("ok", _("fc check:"), _("no findings"))
    errors = sum(f.severity == "error" for f in findings)
    warnings = len(findings) - errors
    said = _(", ").join(
        [
            _("1 error") if errors == 1 else _("{n} errors", n=errors),
            _("1 warning") if warnings == 1 else _("{n} warnings", n=warnings),
        ]
    )
    placed = [p for ps in places.findings.values() for p in ps]
    placed.sort(key=lambda p: (p.step or 0, p.finding.file or "", p.finding.path))
    items = "".join(finding_item(p) for p in placed)
    return tag(
        "div",
        tag("strong", esc(_("fc check: "))) + esc(said) + tag("ul", items, class_="findings"),
        class_="banner check",
    )


# ---------------------------------------------------------------------------------------------
# the timeline and the footer


def _timeline(trace: Trace, shown: set[int]) -> str:
    """A bar per step for its time and one for its tokens, scaled to the largest, so the slow or
    expensive step stands out."""
    rows = []
    steps = [s for s in trace.steps if s.number in shown]
    times = [_number((s.record or {}).get("duration_ms")) for s in steps]
    tokens = [_tokens((s.record or {}).get("usage")) for s in steps]
    most_time, most_tokens = max(times, default=0) or 1, max(tokens, default=0) or 1
    for s, ms, n in zip(steps, times, tokens, strict=True):
        record = s.record or {}
        stop = record.get("stop_reason")
        calls = len(s.response.tool_uses()) if s.response else 0
        what = (
            badge(stop)
            if isinstance(stop, str)
            else tag("span", esc(_("no response")), class_="badge bad")
        )
        if calls:
            what += esc(_(" 1 call") if calls == 1 else _(" {n} calls", n=calls))
        rows.append(
            tag(
                "li",
                tag(
                    "a",
                    tag("span", esc(_("step {step}", step=s.number)), class_="n")
                    + tag("span", what, class_="what")
                    + _bar("time", ms / most_time, duration(record.get("duration_ms")))
                    + _bar(
                        "tok",
                        n / most_tokens,
                        _("{n:,} tokens", n=n) if n else _("? tokens"),
                    ),
                    href=f"#step-{s.number}",
                ),
            )
        )
    heading = tag("h2", esc(_("timeline")))
    return tag("nav", heading + tag("ol", "".join(rows)), class_="timeline")


def _bar(kind: str, share: float, label: str) -> str:
    width = f"width:{max(share * 100, 1.5):.1f}%"
    return tag(
        "span",
        tag("span", "", class_=f"bar {kind}", style=width) + tag("span", esc(label), class_="v"),
        class_="meter",
    )


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and value > 0 else 0.0


def _tokens(usage: Any) -> int:
    if not isinstance(usage, dict):
        return 0
    return sum(
        v
        for k, v in usage.items()
        if k in ("input_tokens", "output_tokens") and isinstance(v, int) and v > 0
    )


def _footer(trace: Trace) -> str:
    command = f"fc show {trace.path} --html FILE"
    made = _(
        "made by fc {version} from {trace}: {command}",
        version=__version__,
        trace=str(trace.path),
        command=command,
    )
    return tag("footer", esc(made))
