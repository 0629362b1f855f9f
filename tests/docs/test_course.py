"""docs/course.md and docs/course.zh.md: every command runs, each page top to bottom in one
fresh directory, and shows what the page says.

The claims are written under each command in the page itself (tests/support/doc_claims.py has the
syntax), so a command changed without its claim, or a claim without its command, fails here.
The Chinese page runs under a Chinese locale (`LANG=zh_CN.UTF-8`, as its reader has it), and
holds the same commands as the English one, in the same order.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, clean_env
from tests.support.doc_claims import Example, Outcome, examples, failures, walk

PAGE = REPO / "docs" / "course.md"
EXAMPLES = examples(PAGE.read_text("utf-8"))
PAGE_ZH = REPO / "docs" / "course.zh.md"
EXAMPLES_ZH = examples(PAGE_ZH.read_text("utf-8"))
# Each page with the environment its reader has: the Chinese one, a Chinese locale.
PAGES = {"docs/course.md": {}, "docs/course.zh.md": {"LANG": "zh_CN.UTF-8"}}


@pytest.mark.parametrize("page", list(PAGES))
def test_the_page_runs_top_to_bottom_and_shows_what_it_says(page: str, tmp_path: Path) -> None:
    """Every block in order, in one fresh directory, as a reader goes down the page: a block
    sees what the blocks above it made (`fc show` with no argument, the last trace), and a
    name used twice would fail (a trace directory fc refuses to overwrite)."""
    # The page's files sit where its commands name them, as in a checkout of the project.
    shutil.copytree(REPO / "docs" / "course", tmp_path / "docs" / "course")
    wrong = walk(
        page, examples((REPO / page).read_text("utf-8")), tmp_path, clean_env(**PAGES[page])
    )
    assert not wrong, "\n".join(wrong)


def test_the_page_covers_every_experiment_and_pitfall_and_each_text() -> None:
    headings = [line for line in PAGE.read_text("utf-8").splitlines() if line.startswith("#")]
    for wanted in [
        *(f"Experiment {n}" for n in range(1, 5)),
        *(f"Pitfall {n}" for n in range(1, 7)),
        "JSON mode",
        "strict",
        "tool_choice",
        "Slimming",
        "pydantic",
    ]:
        assert any(wanted in h for h in headings), wanted
    assert len(EXAMPLES) >= 20


def _table(text: str, heading: str) -> list[list[str]]:
    """The rows of the first table under `heading`, as lists of cells (the header left out)."""
    after = text.split(f"\n## {heading}\n", 1)[1]
    lines = after.split("\n\n| ", 1)[1].split("\n\n", 1)[0].splitlines()
    return [[c.strip() for c in row.strip("|").split("|")] for row in lines[2:]]


@pytest.mark.parametrize(
    ("page", "heading"),
    [(PAGE, "The texts, point by point"), (PAGE_ZH, "四篇文章，逐条对照")],
    ids=["course", "course.zh"],
)
def test_every_point_of_the_texts_is_one_offline_lesson(page: Path, heading: str) -> None:
    text = page.read_text("utf-8")
    rows = _table(text, heading)
    # 000: four experiments and six pitfalls; then 001, 003 and 004's points.
    assert [r[0] for r in rows].count("000") >= 10
    assert {"001", "003", "004"} <= {r[0] for r in rows}
    found = examples(text)
    for _text, point, lesson, offline in rows:
        assert offline == "Y", point
        # The lesson is a heading of the page, and plays with blocks of commands with claims.
        start = text.find(f"### {lesson}\n")
        assert start >= 0, lesson
        ends = [text.find(mark, start + 4) for mark in ("\n### ", "\n## ")]
        end = min(e for e in ends if e >= 0)
        blocks = [e for e in found if start < _offset(text, e.line) < end]
        assert blocks, lesson
        assert all(b.claims for b in blocks), lesson


def _offset(text: str, line: int) -> int:
    """The character offset where 1-based `line` of `text` starts."""
    return sum(len(part) + 1 for part in text.split("\n")[: line - 1])


def test_both_pages_hold_the_same_points() -> None:
    english = _table(PAGE.read_text("utf-8"), "The texts, point by point")
    chinese = _table(PAGE_ZH.read_text("utf-8"), "四篇文章，逐条对照")
    assert [r[0] for r in english] == [r[0] for r in chinese]


def test_the_readme_links_the_page() -> None:
    assert "docs/course.md" in (REPO / "README.md").read_text("utf-8")
    assert "docs/course.zh.md" in (REPO / "README.zh.md").read_text("utf-8")


def test_the_chinese_page_has_every_lesson_of_the_english_one() -> None:
    # The same commands, block by block: a lesson added to one page is added to the other.
    assert [e.commands for e in EXAMPLES_ZH] == [e.commands for e in EXAMPLES], (
        "docs/course.md and docs/course.zh.md differ in their commands: a lesson added to one"
        " page goes into the other too, in the same place, with its claims"
    )
    headings = [line for line in PAGE_ZH.read_text("utf-8").splitlines() if line.startswith("#")]
    for wanted in [
        *(f"实验 {n}：" for n in range(1, 5)),
        *(f"坑 {n}：" for n in range(1, 7)),
        "JSON 模式",
        "strict",
        "tool_choice",
        "清洗",
        "pydantic",
    ]:
        assert any(wanted in h for h in headings), wanted
    for english, chinese in zip(EXAMPLES, EXAMPLES_ZH, strict=True):
        # Exit codes are facts of the commands, not of the language.
        codes = [c for c in english.claims if c.startswith("exit ")]
        assert [c for c in chinese.claims if c.startswith("exit ")] == codes, chinese.line


def test_a_claim_that_does_not_hold_is_reported(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"x": [1, {"y": "hello"}]}', "utf-8")
    example = Example(
        1,
        ["true", "false"],
        [
            "exit 0 0",
            'a.json $.x[1].y == "hello"',
            "a.json $.x[1].y ~ bye",
            "a.json $.x[0] == 2",
            "stdout ~ nothing",
            "file b.json",
            "same a.json $.x[0] a.json $.x[1].y",
        ],
    )
    wrong = failures(example, Outcome(codes=[0, 1]), tmp_path)
    assert wrong[0].startswith("exit codes [0, 1]")
    assert len(wrong) == 6  # all but the one claim that holds
    assert failures(Example(1, ["true"], []), Outcome([0]), tmp_path)
    assert failures(Example(1, ["true"], ["exit 0"]), Outcome([0]), tmp_path)
