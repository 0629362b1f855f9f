"""docs/ollama.md: every command runs, in a fresh directory against the fake provider (as the
page tells a reader without Ollama to do), and shows what the page says (the claims under each
command, tests/support/doc_claims.py)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, clean_env
from tests.support.doc_claims import Example, examples, failures, run
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

pytestmark = pytest.mark.server

PAGE = REPO / "docs" / "ollama.md"
EXAMPLES = examples(PAGE.read_text("utf-8"))


@pytest.fixture(scope="module")
def fake() -> Any:
    with FakeProvider() as server:
        yield server


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_each_command_shows_what_the_page_says(
    example: Example, fake: FakeProvider, tmp_path: Path
) -> None:
    shutil.copytree(REPO / "docs" / "ollama", tmp_path / "docs" / "ollama")
    env = clean_env(FC_BASE_URL=fake.url, MISTRAL_API_KEY=DEFAULT_KEY)
    outcome = run(example, tmp_path, env)
    wrong = failures(example, outcome, tmp_path)
    assert not wrong, (
        f"docs/ollama.md line {example.line} ({example.heading}):\n  "
        + "\n  ".join(wrong)
        + f"\n--- stdout\n{outcome.stdout[-2000:]}\n--- stderr\n{outcome.stderr[-2000:]}"
    )


def test_the_page_shows_every_command_it_names() -> None:
    said = " ".join(" ".join(e.commands) for e in EXAMPLES)
    for command in ("fc run", "fc diff", "fc convert", "fc send", "fc check", "--stream"):
        assert command in said, command
