"""docs/compare.md: every command runs, in a fresh directory, and shows what the page says; and
the two DeepSeek traces of the course's comparison lesson (docs/course/deepseek-chat,
docs/course/deepseek-anthropic), made against the fake provider, are what fc makes today.

The claims are written under each command in the page (tests/support/doc_claims.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, clean_env
from tests.support.doc_claims import Example, assert_holds, examples
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.rebuilt import assert_rebuilt_identically

PAGE = REPO / "docs" / "compare.md"
EXAMPLES = examples(PAGE.read_text("utf-8"))
COURSE = REPO / "docs" / "course"
DEEPSEEK = {
    # One question, DeepSeek's two formats, one fake provider (its prompt cache carries over from
    # the first run to the second, as DeepSeek's does across its two endpoints).
    "deepseek-chat": ("-p", "deepseek", "--api", "chat"),
    "deepseek-anthropic": ("-p", "deepseek", "--api", "anthropic"),
}
FAKE_URL = "http://127.0.0.1:PORT"


@pytest.mark.parametrize(
    "example", EXAMPLES, ids=[f"line{e.line}-{e.heading[:40]}" for e in EXAMPLES]
)
def test_each_command_shows_what_the_page_says(example: Example, tmp_path: Path) -> None:
    shutil.copytree(REPO / "traces" / "examples", tmp_path / "traces" / "examples")
    assert_holds("docs/compare.md", example, tmp_path, clean_env())


def test_the_page_has_its_sections() -> None:
    headings = [line for line in PAGE.read_text("utf-8").splitlines() if line.startswith("#")]
    assert any("replay" in h for h in headings)
    assert any("formats" in h for h in headings)
    assert len(EXAMPLES) >= 3


@pytest.mark.server
def test_the_course_deepseek_traces_rebuild_identically(fc, tmp_path: Path) -> None:
    with FakeProvider() as fake:  # a fresh one: its prompt cache starts empty, as it did
        env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
        for name, options in DEEPSEEK.items():
            out = tmp_path / name
            args = ("run", "杭州今天适合跑步吗？", *options, "--base-url", fake.url, "-o", str(out))
            result = fc(*args, env=env)
            assert result.returncode == 0, result.stderr
            manifest = out / "manifest.json"
            text = manifest.read_text("utf-8").replace(fake.url, FAKE_URL)
            manifest.write_text(text, encoding="utf-8")
    for name in DEEPSEEK:
        assert_rebuilt_identically(tmp_path / name, COURSE / name)
