"""The `fc compare --html` page in a real browser (headless Chromium, tests/support/browser.py):
the two traces' steps in two columns, each differing field marked, the first divergence linking
to its step; a hostile trace beside an example runs nothing and asks for nothing.

Skipped only where no Chromium can be found; .ci/run installs it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fccli.compare.comparison import compare
from fccli.render.compare_page import comparison_page
from tests.conftest import REPO
from tests.support.browser import Browser, started_or_skipped
from tests.support.hostile import hostile_trace

pytestmark = pytest.mark.browser

EXAMPLES = REPO / "traces" / "examples"
DESKTOP = {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}

LAYOUT = """(() => {
  const steps = [...document.querySelectorAll("section.step")].map(section => {
    const rows = [...section.querySelectorAll("tbody tr")];
    return {
      id: section.id,
      title: section.querySelector("h2").textContent,
      rows: rows.length,
      differs: rows.filter(r => r.classList.contains("differs")).map(r => ({
        field: r.querySelector("th").textContent,
        mark: r.querySelector("td.mark").textContent,
        a: r.querySelector("td.a").textContent,
        b: r.querySelector("td.b").textContent,
        coloured: getComputedStyle(r.querySelector("td.a")).backgroundColor !==
          getComputedStyle(rows.find(x => x.classList.contains("same")).querySelector("td.a")).backgroundColor,
      })),
      beside: rows.every(r => {
        const a = r.querySelector("td.a").getBoundingClientRect();
        const b = r.querySelector("td.b").getBoundingClientRect();
        return a.top === b.top && a.right <= b.left && a.width > 200 && b.width > 200;
      }),
    };
  });
  const first = document.querySelector(".banner.first a");
  return {steps, first: first.textContent, href: first.getAttribute("href"),
          scripts: document.scripts.length};
})()"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from started_or_skipped()


def test_the_page_in_a_browser(browser: Browser, tmp_path: Path) -> None:
    a, b = EXAMPLES / "hangzhou", EXAMPLES / "unknown-city"
    result = compare(str(a), str(b))
    expected = json.loads(json.dumps(result.to_json()))
    page_file = tmp_path / "compare.html"
    page_file.write_text(comparison_page(result), "utf-8")
    hostile_file = tmp_path / "hostile.html"
    hostile = compare(str(EXAMPLES / "three-cities"), str(hostile_trace(tmp_path / "hostile")))
    hostile_file.write_text(comparison_page(hostile), "utf-8")

    page = browser.open(page_file)
    try:
        page.call("Emulation.setDeviceMetricsOverride", DESKTOP)
        seen = page.eval(LAYOUT)
        assert seen["scripts"] == 0
        assert seen["first"] == expected["first_divergence"]["text"]
        assert seen["href"] == "#first"  # the row of the first divergence, in step 1
        assert (
            page.eval("document.getElementById('first').closest('section').id")
            == (seen["steps"][0]["id"])
        )
        assert page.eval("document.querySelector('#first th').textContent") == "question"
        assert [s["title"] for s in seen["steps"]] == ["step 1differs", "step 2differs"]
        for shown, step in zip(seen["steps"], expected["steps"], strict=True):
            assert shown["beside"]  # A's column left of B's, on every row
            assert shown["rows"] == len(step["fields"])
            differing = [f for f in step["fields"] if not f["same"] and f["kind"] != "measure"]
            assert len(shown["differs"]) == len(differing) > 0
            for row, field in zip(shown["differs"], differing, strict=True):
                assert row["mark"] == "≠" and row["coloured"]
                if isinstance(field["a"], str) and isinstance(field["b"], str):
                    assert (row["a"], row["b"]) == (field["a"], field["b"])
        city = seen["steps"][0]["differs"][1]
        assert (city["field"], city["a"], city["b"]) == ("city", "杭州", "巴黎")
        error = seen["steps"][1]["differs"][1]
        assert (error["field"], error["a"], error["b"]) == ("an error", "no", "yes")
        assert page.requests() == [] and page.errors() == []
        assert page.eval("window.__violations") == []
    finally:
        page.close()

    page = browser.open(hostile_file)
    try:
        assert page.eval("typeof window.__pwned") == "undefined"
        assert page.eval("document.scripts.length") == 0
        assert page.eval("document.querySelectorAll('img, iframe, object, embed').length") == 0
        assert page.eval("document.body.innerText").count("<script>window.__pwned=1</script>") > 5
        page.eval(
            """new Promise(done => {
              for (const a of document.querySelectorAll('a[href^="#"]')) a.click();
              setTimeout(done, 50);
            })"""
        )
        assert page.eval("typeof window.__pwned") == "undefined"
        assert page.requests() == [] and page.errors() == []
    finally:
        page.close()
