"""`fc show TRACE --html`: the page as HTML text (the browser tests, test_show_html_browser.py,
check it as a browser runs it): self-contained, small, linked by anchors that exist, every
string of a trace escaped, failures, replays, faults and findings said where they belong."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from fccli.render.html.page import trace_page
from fccli.render.html.trace_page import gather
from fccli.trace.reader import read_trace
from tests.conftest import REPO
from tests.render.test_show import copy_example, failed_trace, load, save
from tests.support.hostile import PAYLOAD, hostile_trace

EXAMPLES = REPO / "traces" / "examples"


class Parsed(HTMLParser):
    """The page's elements (tag, attributes) in order, and its text."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))
        self._in_script = tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if not self._in_script:
            self.text.append(data)
        elif self.elements[-1][0] == "script":
            self.scripts.append(data)

    def ids(self) -> set[str]:
        return {a["id"] for _, a in self.elements if "id" in a}

    def by_id(self, anchor: str) -> dict[str, str]:
        return next(a for _, a in self.elements if a.get("id") == anchor)

    def hrefs(self) -> list[str]:
        return [a["href"] for t, a in self.elements if t == "a" and "href" in a]

    def all_text(self) -> str:
        return "".join(self.text)


def page_of(trace: Path, *, check: bool = False, **options: Any) -> str:
    return trace_page(gather(read_trace(trace), check=check, page=None), **options)


@pytest.fixture(scope="module")
def three_cities() -> tuple[str, Parsed]:
    page = page_of(EXAMPLES / "three-cities")
    return page, Parsed(page)


# ---------------------------------------------------------------------------------------------
# one file, no request


def test_the_page_is_one_small_file_that_asks_for_nothing(three_cities) -> None:
    page, parsed = three_cities
    assert page.startswith("<!DOCTYPE html>")
    assert len(page.encode()) < 100_000  # a 2-step trace, well under 200 kB
    tags = {t for t, _ in parsed.elements}
    assert not tags & {"img", "link", "iframe", "object", "embed", "audio", "video", "source"}
    assert not [a for _, a in parsed.elements if "src" in a]
    assert all(h.startswith("#") for h in parsed.hrefs())
    (script,) = parsed.scripts  # one inline script, allowed by its hash and nothing else
    csp = next(a["content"] for t, a in parsed.elements if a.get("http-equiv"))
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp
    assert "default-src 'none'" in csp


def test_every_link_on_the_page_lands_on_an_anchor(three_cities) -> None:
    _, parsed = three_cities
    ids = parsed.ids()
    assert {h[1:] for h in parsed.hrefs()} <= ids


def test_each_call_links_to_its_result_and_back_and_on_to_the_next_request(three_cities) -> None:
    page, parsed = three_cities
    calls = [a for _, a in parsed.elements if "call" in a.get("class", "").split()]
    results = [a for _, a in parsed.elements if "result" in a.get("class", "").split()]
    assert [c["id"] for c in calls] == ["call-1-0", "call-1-1", "call-1-2"]
    assert [r["id"] for r in results] == ["result-1-0", "result-1-1", "result-1-2"]
    for call, result in zip(calls, results, strict=True):
        colour = call["class"].split()[-1]
        assert colour == result["class"].split()[-1] and colour.startswith("c")
        assert f'href="#{result["id"]}"' in page and f'href="#{call["id"]}"' in page
    went = [h for h in parsed.hrefs() if h.startswith("#s2rq-")]
    assert len(went) == 3  # each result went back in step 2's internal request...
    for anchor in went:
        target = parsed.by_id(anchor[1:])
        assert re.fullmatch(r"\$\.messages\[2\]\.content\[\d\]", target["data-p"])
        assert target["data-l"]  # ... and is linked to its place in the wire request


def test_every_step_has_its_four_files_side_by_side_folded(three_cities) -> None:
    _, parsed = three_cities
    figures = [a["data-role"] for t, a in parsed.elements if t == "figure"]
    assert figures == ["request", "wire_request", "response", "wire_response"] * 2
    folds = [a for t, a in parsed.elements if t == "details" and "files" in a.get("class", "")]
    assert len(folds) == 4 and not any("open" in a for a in folds)


def test_fields_are_linked_as_fc_diff_maps_them(three_cities) -> None:
    _, parsed = three_cities
    marked = [a for _, a in parsed.elements if "data-l" in a]
    by_row: dict[str, list[str]] = {}
    for a in marked:
        for n in a["data-l"].split():
            by_row.setdefault(n, []).append(a["data-p"])
    # A row links an internal field to its wire place: the call id in the response...
    assert ["$.content[2].id", "$.choices[0].message.tool_calls[0].id"] in by_row.values()
    # ...the thinking block to reasoning_content, a result's id to tool_call_id.
    assert [
        "$.messages[1].content[0].thinking",
        "$.messages[1].reasoning_content",
    ] in by_row.values()
    assert [
        "$.messages[2].content[1].tool_use_id",
        "$.messages[3].tool_call_id",
    ] in by_row.values()
    assert all(len(paths) >= 2 for paths in by_row.values())
    # The wire file's fields the internal format keeps nothing of are marked as such.
    only = [a["data-p"] for _, a in parsed.elements if "only" in a.get("class", "").split()]
    assert "$.choices[0].index" in only and "$.usage.total_tokens" in only


def test_header_and_timeline(three_cities) -> None:
    _, parsed = three_cities
    text = parsed.all_text()
    assert "北京、上海、深圳今天适合跑步吗？" in text
    assert "demo (deepseek format)" in text and "fc-demo" in text
    assert "828 in / 194 out tokens (101 reasoning)" in text  # the two steps' tokens, summed
    timeline = text.split("timeline", 1)[1].split("step 1", 2)
    assert "tool_use 3 calls" in timeline[1] and "223 tokens" in timeline[1]
    assert "end_turn" in timeline[1] + timeline[2]
    widths = re.findall(r'class="bar tok" style="width:([\d.]+)%"', three_cities[0])
    assert [float(w) for w in widths] == [pytest.approx(27.9, abs=0.1), 100.0]


@pytest.mark.parametrize(
    "name", sorted(p.name for p in EXAMPLES.iterdir() if (p / "manifest.json").is_file())
)
def test_every_example_makes_a_page_whose_links_land(name: str) -> None:
    page = page_of(EXAMPLES / name)
    parsed = Parsed(page)
    assert {h[1:] for h in parsed.hrefs()} <= parsed.ids()
    figures = [f.split("</figure>")[0] for f in page.split("<figure")[1:]]
    assert len(figures) == 8  # two steps, four files each...
    assert all('data-l="' in f for f in figures)  # ...each linked to its counterpart


def test_thinking_is_folded_unless_asked(tmp_path: Path) -> None:
    def thinking(**options: Any) -> list[dict[str, str]]:
        parsed = Parsed(page_of(EXAMPLES / "hangzhou", **options))
        return [a for t, a in parsed.elements if t == "details" and a.get("class") == "thinking"]

    assert thinking() and not any("open" in a for a in thinking())
    assert all("open" in a for a in thinking(thinking=True))


def test_step_shows_one_step() -> None:
    parsed = Parsed(page_of(EXAMPLES / "three-cities", step=2))
    sections = [a["id"] for t, a in parsed.elements if t == "section"]
    assert sections == ["step-2"]
    assert {h[1:] for h in parsed.hrefs()} <= parsed.ids()


# ---------------------------------------------------------------------------------------------
# the command


def test_html_writes_the_page_to_a_file_or_to_stdout(fc, tmp_path: Path) -> None:
    page = tmp_path / "t.html"
    result = fc("show", str(EXAMPLES / "unknown-city"), "--html", str(page))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"page written to {page}\n"
    html = page.read_text("utf-8")
    assert "call_b9a07a70e3fb7c9d9b9e3516" in html and "✗ error result" in html
    out = fc("show", str(EXAMPLES / "unknown-city"), "--html", "-")
    assert out.returncode == 0, out.stderr
    assert out.stdout == html


def test_check_goes_with_html(fc) -> None:
    result = fc("show", str(EXAMPLES / "hangzhou"), "--check")
    assert result.returncode == 2
    assert result.stderr.startswith(
        "fc: error: --check adds fc check's findings to the --html page"
    )


def test_an_option_after_html_is_not_taken_for_the_page_name(fc, tmp_path: Path) -> None:
    """`--html -o page.html`, another tool's habit, would otherwise write a page named `-o`."""
    result = fc("show", str(EXAMPLES / "hangzhou"), "--html", "-o", "page.html", cwd=tmp_path)
    assert result.returncode == 2
    assert "takes the page's file name, not an option ('-o')" in result.stderr
    assert "--html page.html" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_page_is_exit_2(fc, tmp_path: Path) -> None:
    result = fc("show", str(EXAMPLES / "hangzhou"), "--html", str(tmp_path / "no" / "t.html"))
    assert result.returncode == 2
    assert result.stderr.startswith("fc: error: cannot write ")


def test_a_single_file_or_a_folder_still_gives_the_transcript_page(fc) -> None:
    one = fc("show", str(EXAMPLES / "hangzhou" / "1-response.json"), "--html", "-")
    assert one.returncode == 0 and one.stdout.startswith("<!DOCTYPE html>")
    assert "get_weather" in one.stdout
    folder = fc("show", str(EXAMPLES), "--html", "-")
    assert folder.returncode == 0 and "three-cities" in folder.stdout


# ---------------------------------------------------------------------------------------------
# hostile strings


def test_a_hostile_trace_is_shown_as_text_and_nothing_of_it_is_markup(tmp_path: Path) -> None:
    trace = hostile_trace(tmp_path / "h")
    page = page_of(trace, check=True)
    parsed = Parsed(page)
    assert len(parsed.scripts) == 1 and "__pwned" not in parsed.scripts[0]
    assert not [t for t, _ in parsed.elements if t in ("img", "iframe", "object", "embed")]
    assert not [a for _, a in parsed.elements if any(k.startswith("on") for k in a)]
    for href in parsed.hrefs():  # an anchor, or a relative path: no scheme, no host
        assert re.match(r"\s*([a-z][a-z0-9+.-]*:|//)", href, re.IGNORECASE) is None, href
    origin = next(h for h in parsed.hrefs() if "pwned" in h)
    assert "javascript%3Awindow.__pwned%3D5" in origin
    text = parsed.all_text()
    visible = PAYLOAD.replace("\x1b", "\\x1b")  # a terminal escape is shown, not passed on
    for what in (
        "北京、上海、深圳今天适合跑步吗？",
        "get_weather",
        "call_79b7903bdb103b9fb5988f22",
        "demo",
        "ok",
    ):
        assert what + visible in text, what
    assert json.dumps("city" + PAYLOAD, ensure_ascii=False)[:40] in text  # in the arguments
    assert "\x1b" not in page
    # It still reads as the trace it is: three calls, each result under its call.
    assert [a["id"] for _, a in parsed.elements if a.get("id", "").startswith("call-")] == [
        "call-1-0",
        "call-1-1",
        "call-1-2",
    ]
    assert {h[1:] for h in parsed.hrefs() if h.startswith("#")} <= parsed.ids()


# ---------------------------------------------------------------------------------------------
# failures, faults, replays, findings


def test_a_failed_trace_says_where_it_stopped_and_why(tmp_path: Path) -> None:
    parsed = Parsed(page_of(failed_trace(tmp_path)))
    text = parsed.all_text()
    assert "stopped (ProviderError) at step 2: HTTP 503: overloaded (after 3 attempts)" in text
    assert "#stopped" in parsed.hrefs()
    stopped = text.split("✗ stopped here: ProviderError", 1)[1]
    assert "3 attempts: 503 then ConnectError then 503" in stopped
    assert "<html><body>503 Service Unavailable</body></html>" in stopped
    assert "← no response" in text


def test_an_interrupted_trace_says_so(tmp_path: Path) -> None:
    trace = failed_trace(tmp_path)
    manifest = load(trace / "manifest.json")
    manifest["status"] = "interrupted"
    manifest["error"] = {
        "kind": "Interrupted",
        "message": "interrupted at step 2 while waiting",
        "step": 2,
    }
    save(trace / "manifest.json", manifest)
    text = Parsed(page_of(trace)).all_text()
    assert "interrupted (Ctrl-C) at step 2: while waiting" in text
    assert "✗ interrupted here (Ctrl-C)" in text


def test_a_demo_fault_and_a_harness_bug_are_said_at_the_top(tmp_path: Path) -> None:
    trace = copy_example(tmp_path)
    manifest = load(trace / "manifest.json")
    manifest["options"]["demo_fault"] = "bad-json"
    manifest["options"]["harness_bug"] = "pair-by-order"
    manifest["steps"][1]["harness_bug"] = {"kind": "pair-by-order", "swapped": 2}
    save(trace / "manifest.json", manifest)
    text = Parsed(page_of(trace)).all_text()
    top = text.split("timeline")[0]
    assert "--demo-fault bad-json the demo model makes this mistake on purpose" in top
    assert "--harness-bug pair-by-order fc's own harness makes this classic mistake" in top
    assert "(it changed step 2)" in top
    step2 = text.split("step 2", 2)[2]
    assert "the harness bug changed this step: pair-by-order (swapped: 2)" in step2
    # The manifest's own record may name the steps instead.
    del manifest["steps"][1]["harness_bug"]
    manifest["options"]["harness_bug"] = {"kind": "drop-results", "steps": [1]}
    save(trace / "manifest.json", manifest)
    page = page_of(trace)
    text = Parsed(page).all_text()
    assert "--harness-bug drop-results (steps: [1])" in text and "(it changed step 1)" in text
    step1 = page.split('id="step-1"')[1].split('id="step-2"')[0]
    assert "the harness bug changed this step: drop-results" in step1


def test_a_replayed_trace_shows_its_edits_as_was_and_now(
    fc, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(EXAMPLES / "hangzhou", tmp_path / "t")
    call_id = load(tmp_path / "t" / "2-request.json")["messages"][2]["content"][0]["tool_use_id"]
    done = fc("replay", "t", "--set", f"{call_id}=39°C, 暴雨")
    assert done.returncode == 0, done.stderr
    monkeypatch.chdir(tmp_path)  # the manifest names the original as the replay was given it
    page = Path("out") / "p.html"
    parsed = Parsed(trace_page(gather(read_trace(Path("t.replay-1")), check=False, page=page)))
    text = parsed.all_text()
    assert "replay of step 2 of t (that run: ok)" in text
    was = text.split("was", 1)[1]
    assert was.index("temp_c") < was.index("now") < was.index("39°C, 暴雨")
    assert "../t" in parsed.hrefs()  # the original, from where the page is


def test_check_findings_are_shown_where_they_point(tmp_path: Path) -> None:
    trace = copy_example(tmp_path, "three-cities")
    wire = load(trace / "2-request.deepseek.json")
    wire["messages"][3]["content"] = "edited by hand"
    save(trace / "2-request.deepseek.json", wire)
    parsed = Parsed(page_of(trace, check=True))
    text = parsed.all_text()
    assert "fc check: 0 errors, 1 warning" in text
    # Under the result it is about (the second call's, in step 1), linking to the field.
    result = text.split("✓ result for call_d0d48405d893073b585c2b19", 1)[1].split("▶ call")[0]
    assert "FC120" in result
    anchor = next(h for h in parsed.hrefs() if h.startswith("#s2wrq-"))
    field = parsed.by_id(anchor[1:])
    assert field["data-p"] == "$.messages[3].content" and "flag" in field["class"]
    clean = Parsed(page_of(EXAMPLES / "hangzhou", check=True)).all_text()
    assert "fc check: no findings" in clean


def test_the_show_page_s_commands_do_what_the_page_says(fc, tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "traces" / "examples")
    page = (REPO / "docs" / "reference" / "show.md").read_text("utf-8")
    lines = [line.split("#")[0].split() for line in page.splitlines() if "--html" in line]
    commands = [words for words in lines if words[:2] == ["fc", "show"]]
    assert len(commands) == 2
    for words in commands:
        args = [w.replace("TRACE", "traces/examples/three-cities") for w in words[1:]]
        if ">" in args:  # `--html - > page.html`
            args, out = args[: args.index(">")], args[args.index(">") + 1]
        else:
            out = None
        result = fc(*args)
        assert result.returncode == 0, result.stderr
        if out is not None:
            (tmp_path / out).write_text(result.stdout, "utf-8")
        written = out or args[args.index("--html") + 1]
        parsed = Parsed((tmp_path / written).read_text("utf-8"))
        # the timeline, three calls linked to their three results, four files a step
        assert [a["href"] for t, a in parsed.elements if t == "a" and "id" in a.get("class", "")][
            :6
        ] == ["#result-1-0", "#call-1-0", "#result-1-1", "#call-1-1", "#result-1-2", "#call-1-2"]
        assert len([t for t, _ in parsed.elements if t == "figure"]) == 8
        assert "timeline" in parsed.all_text()
        assert ("fc check: no findings" in parsed.all_text()) == ("--check" in args)
