"""docs/mcp.md: every command runs offline, in a fresh directory, and shows what the page says
(the claims under each block: tests/support/doc_claims.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO, clean_env
from tests.support.doc_claims import Example, examples, failures, run

pytest.importorskip("mcp")

PAGE = REPO / "docs" / "mcp.md"
EXAMPLES = examples(PAGE.read_text("utf-8"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_each_command_shows_what_the_page_says(example: Example, tmp_path: Path) -> None:
    outcome = run(example, tmp_path, clean_env())
    wrong = failures(example, outcome, tmp_path)
    assert not wrong, (
        f"docs/mcp.md line {example.line}:\n  "
        + "\n  ".join(wrong)
        + f"\n--- stdout\n{outcome.stdout[-2000:]}\n--- stderr\n{outcome.stderr[-2000:]}"
    )


def test_the_page_names_every_error_kind_an_mcp_call_can_have() -> None:
    text = PAGE.read_text("utf-8")
    for kind in ("tool_error", "mcp_error", "server_gone", "tool_timeout"):
        assert f"`{kind}`" in text
