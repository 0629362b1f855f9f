"""The `fc show --html` page in a real browser: headless Chromium (from the system's packages)
opens it from disk, its script runs, and the DOM is checked: every call id links to its result,
every step's files are there side by side, hovering a field lights up its counterpart, and
nothing leaves the page (no request, no script but the page's own), on the example trace and on
a trace made of hostile strings.

One browser for the module (tests/support/browser.py drives it over a pipe, nothing to download).
Skipped only where no Chromium can be found; .ci/run installs it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fccli.render.html.page import trace_page
from fccli.render.html.trace_page import gather
from fccli.trace.reader import read_trace
from tests.conftest import REPO
from tests.support.browser import Browser, Page, started_or_skipped
from tests.support.hostile import hostile_trace

EXAMPLES = REPO / "traces" / "examples"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from started_or_skipped()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("pages")
    hostile = hostile_trace(root / "hostile")
    out = {}
    for name, trace, check in (
        ("three-cities", EXAMPLES / "three-cities", False),
        ("hostile", hostile, True),
    ):
        page = root / f"{name}.html"
        page.write_text(trace_page(gather(read_trace(trace), check=check, page=page)), "utf-8")
        out[name] = page
    return out


@pytest.fixture
def opened(browser: Browser, pages: dict[str, Path]) -> Iterator[Any]:
    opened: list[Page] = []

    def open_page(name: str, *, scripts: bool = True) -> Page:
        page = browser.open(pages[name], scripts=scripts)
        page.call("Emulation.setDeviceMetricsOverride", DESKTOP)
        opened.append(page)
        return page

    yield open_page
    for page in opened:
        page.close()


DESKTOP = {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}

CALLS_AND_RESULTS = """(() => {
  const out = [];
  for (const call of document.querySelectorAll(".call")) {
    const link = call.querySelector("a.id");
    const result = document.getElementById(link.getAttribute("href").slice(1));
    const back = result && result.querySelector("a.id");
    out.push({
      id: link.textContent,
      result: result ? result.className : null,
      result_names: back ? back.textContent : null,
      back_to_call: back ? back.getAttribute("href") === "#" + call.id : false,
      same_colour: result ? getComputedStyle(call).borderLeftColor ===
        getComputedStyle(result).borderLeftColor : false,
    });
  }
  return out;
})()"""

FILES = """(() => [...document.querySelectorAll("section.step")].map(step => {
  const folds = [...step.querySelectorAll("details.files")];
  folds.forEach(d => { d.open = true; });
  return folds.map(d => {
    const figures = [...d.querySelectorAll(".pair > figure")];
    const boxes = figures.map(f => f.getBoundingClientRect());
    return {
      roles: figures.map(f => f.dataset.role),
      filled: figures.map(f => (f.querySelector("pre.json") || {textContent: ""}).textContent.length > 20),
      side_by_side: boxes.length === 2 && boxes[0].top === boxes[1].top && boxes[0].right <= boxes[1].left,
    };
  });
}))()"""


def hover(page: Page, fold: str, role: str, path: str) -> list[list[str]]:
    """Point at a field of a file; what lights up, as [role, path] pairs."""
    return page.eval(
        f"""(() => {{
      const fold = document.getElementById({json.dumps(fold)});
      fold.open = true;
      const el = fold.querySelector('figure[data-role={json.dumps(role)}] [data-p={json.dumps(path)}]');
      el.dispatchEvent(new MouseEvent("mouseover", {{bubbles: true}}));
      return [...document.querySelectorAll(".hl")].map(e =>
        [e.closest("figure").dataset.role, e.dataset.p]);
    }})()"""
    )


def poll(check: Any, seconds: float = 3.0) -> Any:
    """The first true value of `check()` within `seconds` (a page with scripts off cannot be
    asked to wait)."""
    deadline = time.monotonic() + seconds
    while not (value := check()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return value


def assert_nothing_left_the_page(page: Page) -> None:
    assert page.requests() == []
    assert page.eval("window.__violations") == []  # no script or load the policy had to stop
    assert page.errors() == []


# ---------------------------------------------------------------------------------------------


def test_every_call_id_links_to_its_result(opened) -> None:
    page = opened("three-cities")
    calls = page.eval(CALLS_AND_RESULTS)
    assert len(calls) == 3
    for call in calls:
        assert call["result"].split()[0] == "result"
        assert call["result_names"] == call["id"] and call["back_to_call"]
        assert call["same_colour"]
    assert len({c["id"] for c in calls}) == 3
    # Following the link lands on the result.
    target = page.eval(
        """new Promise(done => {
          document.querySelector(".call a.id").click();
          setTimeout(() => done(document.querySelector(":target").id), 50);
        })"""
    )
    assert target == "result-1-0"
    assert_nothing_left_the_page(page)


def test_the_files_of_every_step_are_there_side_by_side(opened) -> None:
    page = opened("three-cities")
    steps = page.eval(FILES)
    assert len(steps) == 2
    for folds in steps:
        assert [f["roles"] for f in folds] == [
            ["request", "wire_request"],
            ["response", "wire_response"],
        ]
        assert all(all(f["filled"]) and f["side_by_side"] for f in folds)


def test_a_field_lights_up_its_counterpart_both_ways(opened) -> None:
    page = opened("three-cities")
    lit = hover(page, "s1-response-files", "response", "$.content[2].id")
    assert sorted(lit) == [
        ["response", "$.content[2].id"],
        ["wire_response", "$.choices[0].message.tool_calls[0].id"],
    ]
    lit = hover(page, "s2-request-files", "wire_request", "$.messages[3].tool_call_id")
    assert sorted(lit) == [
        ["request", "$.messages[2].content[1].tool_use_id"],
        ["wire_request", "$.messages[3].tool_call_id"],
    ]
    caption = page.eval('document.querySelector("#s2-request-files .cap").textContent')
    assert caption == (
        "$.messages[2].content[1].tool_use_id ⇄ $.messages[3].tool_call_id  ·  "
        "`tool_use_id` → `tool_call_id`"
    )
    # One internal message of three results is three chat messages: all three light up.
    lit = hover(page, "s2-request-files", "request", "$.messages[2]")
    assert [p for r, p in lit if r == "wire_request"] == [
        "$.messages[2]",
        "$.messages[3]",
        "$.messages[4]",
    ]
    assert_nothing_left_the_page(page)


def test_a_result_links_to_where_it_went_back_and_that_place_is_pinned(opened) -> None:
    page = opened("three-cities")
    pinned = page.eval(
        """new Promise(done => {
          document.querySelector("#result-1-1 a.went").click();
          setTimeout(() => done({
            open: document.getElementById("s2-request-files").open,
            target: document.querySelector(":target").dataset.p,
            pinned: [...document.querySelectorAll(".pin")].map(e =>
              [e.closest("figure").dataset.role, e.dataset.p]),
            in_view: [...document.querySelectorAll(".pin")].every(e => {
              const box = e.closest("pre").getBoundingClientRect();
              const at = e.getBoundingClientRect();
              return at.top >= box.top - 1 && at.top < box.bottom;
            }),
          }), 50);
        })"""
    )
    assert pinned["open"] is True
    assert pinned["target"] == "$.messages[2].content[1]"
    assert sorted(pinned["pinned"]) == [
        ["request", "$.messages[2].content[1]"],
        ["wire_request", "$.messages[3]"],
    ]
    assert pinned["in_view"]  # each end scrolled into view within its file's pane


def test_with_scripts_off_the_page_reads_the_same(opened) -> None:
    page = opened("three-cities", scripts=False)
    assert page.eval("document.documentElement.className") == ""  # the script did not run
    assert page.eval("document.querySelectorAll('.call, .result').length") == 6
    assert page.eval("document.querySelectorAll('figure pre.json').length") == 8
    assert "北京" in page.eval("document.body.innerText")
    # A link into a folded file still opens it: the browser unfolds a fragment's <details>.
    went = "document.querySelector('#result-1-1 a.went')"
    page.eval(f"{went}.click()")
    assert page.eval("location.hash") == page.eval(f"{went}.getAttribute('href')")
    assert poll(lambda: page.eval("document.getElementById('s2-request-files').open"))
    assert page.requests() == [] and page.errors() == []


def test_a_hostile_trace_runs_nothing_and_asks_for_nothing(opened) -> None:
    page = opened("hostile")
    assert page.eval("typeof window.__pwned") == "undefined"
    assert page.eval("document.scripts.length") == 1
    assert page.eval("document.querySelectorAll('img, iframe, object, embed').length") == 0
    handlers = page.eval(
        "[...document.querySelectorAll('*')].filter(e => [...e.attributes]"
        ".some(a => /^on/i.test(a.name))).length"
    )
    assert handlers == 0
    assert page.eval("document.body.innerText").count("<script>window.__pwned=1</script>") > 20
    # It still works: calls linked to results, fields to their counterparts.
    calls = page.eval(CALLS_AND_RESULTS)
    assert len(calls) == 3 and all(c["back_to_call"] for c in calls)
    lit = hover(page, "s1-response-files", "response", "$.content[2].id")
    assert sorted(r for r, _ in lit) == ["response", "wire_response"]
    # Following every link on the page runs nothing either.
    page.eval(
        """new Promise(done => {
          for (const a of document.querySelectorAll('a[href^="#"]')) a.click();
          setTimeout(done, 50);
        })"""
    )
    assert page.eval("typeof window.__pwned") == "undefined"
    assert_nothing_left_the_page(page)


def test_the_checks_above_can_fail(browser: Browser, tmp_path: Path) -> None:
    """The same checks on a page that does call out and run a handler: they see it."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<!DOCTYPE html><img src="http://127.0.0.1:9/x.png">'
        '<img src="x" onerror="window.__pwned = 1">',
        "utf-8",
    )
    page = browser.open(bad)
    try:
        page.eval("new Promise(done => setTimeout(done, 100))")
        assert "http://127.0.0.1:9/x.png" in page.requests()
        assert page.eval("window.__pwned") == 1
    finally:
        page.close()
    blocked = tmp_path / "blocked.html"
    blocked.write_text(
        '<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="script-src \'none\'">'
        "<script>window.__pwned = 1</script>",
        "utf-8",
    )
    page = browser.open(blocked)
    try:
        assert page.eval("typeof window.__pwned") == "undefined"
        assert page.eval("window.__violations") != []
    finally:
        page.close()


def test_it_prints(opened) -> None:
    page = opened("three-cities")
    page.call("Emulation.setEmulatedMedia", {"media": "print"})
    page.eval('document.getElementById("s1-request-files").open = true')
    style = page.eval(
        """(() => {
          const shown = e => getComputedStyle(e).display !== "none";
          return {
            opened_file_whole: getComputedStyle(
              document.querySelector("#s1-request-files pre.json")).maxHeight === "none",
            folded_files_left_out: !shown(document.getElementById("s2-request-files")),
            calls: [...document.querySelectorAll(".call, .result")].every(shown),
          };
        })()"""
    )
    assert style == {"opened_file_whole": True, "folded_files_left_out": True, "calls": True}
