"""docs/cost.md: every command runs, in a fresh directory holding the example traces, and shows
what the page says (tests/support/doc_claims.py has the claims' syntax)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import genai_prices
import pytest

from fccli.core.manifest import CostRecord, TraceCostRecord
from tests.conftest import REPO, clean_env
from tests.support.doc_claims import Example, assert_shows, examples

PAGE = REPO / "docs" / "cost.md"
EXAMPLES = examples(PAGE.read_text("utf-8"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_each_command_shows_what_the_page_says(example: Example, tmp_path: Path) -> None:
    shutil.copytree(REPO / "traces" / "examples", tmp_path / "traces" / "examples")
    assert_shows("docs/cost.md", example, tmp_path, clean_env())


def test_the_page_names_every_manifest_key_fc_writes() -> None:
    text = PAGE.read_text("utf-8")
    for name in CostRecord.model_fields:
        assert f"steps[].cost.{name}" in text or f".{name}`" in text, name
    for name in TraceCostRecord.model_fields:
        assert f"`cost.{name}`" in text, name


def test_the_deepseek_names_the_page_gives_are_in_the_table() -> None:
    said = PAGE.read_text("utf-8").split("knows for DeepSeek's models today:")[1].split(".\n")[0]
    names = re.findall(r"`(deepseek-[\w.-]+)`", said)
    assert len(names) == 6
    for name in names:
        price = genai_prices.calc_price(
            genai_prices.Usage(input_tokens=1), name, provider_id="deepseek"
        )
        assert price.model.id == name
