"""The docs/ pages, each run top to bottom in one fresh directory, as a reader goes down it.

Each bash block is run with the claims under it (tests/support/doc_claims.py), or says which test
runs it (`<!-- run by tests/... -->`: a process, a server, a browser, another program), and that
test reads the page. A page about real providers runs against the test suite's fake provider,
with the address and keys its banner exports, as the page tells a reader without a key to do.
A trace name used twice in one reader's walk (a page, or a README and the course after it) is a
`-o` fc refuses the second time, so none is.
"""

from __future__ import annotations

import itertools
import re
import shlex
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, clean_env
from tests.support.doc_claims import examples, walk
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

PAGES = sorted(
    str(p.relative_to(REPO))
    for p in [
        *(REPO / "docs" / "reference").glob("*.md"),
        REPO / "docs" / "development.md",
        REPO / "docs" / "testing.md",
    ]
)
WITH_THE_FAKE_PROVIDER = {"docs/reference/providers.md", "docs/reference/providers.zh.md"}
KEYS = ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")


@pytest.fixture(scope="module")
def fake_url():
    with FakeProvider() as server:
        yield server.url


def _env(page: str, fake_url: str) -> dict[str, str]:
    language = {"LANG": "zh_CN.UTF-8"} if page.endswith(".zh.md") else {}
    if page not in WITH_THE_FAKE_PROVIDER:
        return clean_env(**language)
    return clean_env(FC_BASE_URL=fake_url, **dict.fromkeys(KEYS, DEFAULT_KEY), **language)


@pytest.mark.parametrize("page", PAGES)
def test_the_page_runs_top_to_bottom_and_shows_what_it_says(
    page: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    blocks = examples((REPO / page).read_text("utf-8"))
    assert blocks, f"{page} shows no command"
    for example in blocks:
        for test in example.run_by:
            where = f"{page} line {example.line} ({example.heading}): run by {test}"
            runner = REPO / test.split("::")[0]
            assert runner.is_file(), f"{where}, which is not there"
            if runner.suffix == ".py":
                assert page in runner.read_text("utf-8"), f"{where}, which does not read it"
    here = [example for example in blocks if not example.run_by]
    if not here:
        return
    # the files the page names, where a checkout of the project has them (rules: docs/expect)
    shutil.copytree(REPO / "docs" / "course", tmp_path / "docs" / "course")
    shutil.copytree(REPO / "traces" / "examples", tmp_path / "traces" / "examples")
    shutil.copytree(REPO / "docs" / "expect", tmp_path / "docs" / "expect")
    url = request.getfixturevalue("fake_url") if page in WITH_THE_FAKE_PROVIDER else ""
    wrong = walk(page, here, tmp_path, _env(page, url))
    assert not wrong, "\n".join(wrong)


def trace_names(page: str) -> list[str]:
    """The directories the page's commands write with `-o`/`--out` (files written by `fc convert
    -o` and `fc send -o` too: a name is a name)."""
    names = []
    for example in examples((REPO / page).read_text("utf-8")):
        for command in example.commands:
            words = shlex.split(command, comments=True)
            names += [b for a, b in itertools.pairwise(words) if a in ("-o", "--out")]
    return names


WALKS = [
    # what one reader runs in one directory (the project's checkout), in order
    ["README.md", "docs/course.md"],
    ["README.zh.md", "docs/course.zh.md"],
    ["README.md", "docs/course.zh.md"],
    *([page] for page in PAGES),
]


@pytest.mark.parametrize("walk", WALKS, ids=[" then ".join(w) for w in WALKS])
def test_no_name_is_used_twice_in_one_walk(walk: list[str]) -> None:
    names = [name for page in walk for name in trace_names(page)]
    twice = sorted({n for n in names if names.count(n) > 1 and not re.fullmatch(r"-", n)})
    assert not twice, f"{' then '.join(walk)}: -o {', '.join(twice)} more than once"
