"""docs/reference/expect.md beyond its commands (tests/docs/test_pages.py runs those): the rules
file it shows is docs/expect/hangzhou.toml, its Python runs, and every sample rules file reads."""

from __future__ import annotations

import re

import pytest

from fccli.core.errors import UsageError
from fccli.expect import load_rules
from tests.conftest import REPO

PAGE = (REPO / "docs" / "reference" / "expect.md").read_text("utf-8")
SAMPLES = REPO / "docs" / "expect"


def test_the_rules_file_shown_is_the_one_the_commands_use() -> None:
    [shown] = re.findall(r"```toml\n(.*?)```", PAGE, re.S)
    assert shown == (SAMPLES / "hangzhou.toml").read_text("utf-8")


def test_the_python_example_runs_and_every_rule_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    [code] = re.findall(r"```python\n(.*?)```", PAGE, re.S)
    monkeypatch.chdir(REPO)
    names: dict[str, object] = {}
    exec(compile(code, "expect.md", "exec"), names)
    assert names["broken"] == []
    assert len(names["rules"]) == 8  # type: ignore[arg-type]


def test_every_sample_reads_and_the_misspelt_one_says_where() -> None:
    for path in sorted(SAMPLES.glob("*.toml")):
        if path.name == "misspelt.toml":
            with pytest.raises(UsageError, match=r"misspelt\.toml, line 6: unknown key contain"):
                load_rules(path.read_text("utf-8"), source=path.name)
        else:
            assert len(load_rules(path.read_text("utf-8"), source=path.name)) > 0
