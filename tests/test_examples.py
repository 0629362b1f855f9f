"""The example traces in traces/examples/ are course material; rebuilding them must change only times.

To rebuild them on purpose (after a deliberate change to the demo model, the formats or the
manifest): `FC_UPDATE_EXAMPLES=1 python -m pytest tests/test_examples.py`, then review the diff.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from fccli.trace import without_times
from tests.conftest import REPO

EXAMPLES = {
    "hangzhou": "杭州今天适合跑步吗？",
    "three-cities": "北京、上海、深圳今天适合跑步吗？",
    "unknown-city": "巴黎今天适合跑步吗？",
    "no-city": "今天适合跑步吗？",
}
EXAMPLES_DIR = REPO / "traces" / "examples"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_trace_rebuilds_identically(fc, tmp_path: Path, name: str) -> None:
    rebuilt = tmp_path / name
    result = fc("run", EXAMPLES[name], "--out", str(rebuilt))
    assert result.returncode == 0, result.stderr
    committed = EXAMPLES_DIR / name
    if os.environ.get("FC_UPDATE_EXAMPLES") == "1":
        shutil.rmtree(committed, ignore_errors=True)
        shutil.copytree(rebuilt, committed)
    assert committed.is_dir(), f"{committed} is missing; rebuild with FC_UPDATE_EXAMPLES=1"
    assert sorted(p.name for p in rebuilt.iterdir()) == sorted(p.name for p in committed.iterdir())
    for path in sorted(rebuilt.iterdir()):
        if path.name == "manifest.json":
            assert without_times(json.loads(path.read_text("utf-8"))) == without_times(
                json.loads((committed / path.name).read_text("utf-8"))
            ), "manifest differs beyond times"
        else:
            assert path.read_bytes() == (committed / path.name).read_bytes(), (
                f"{name}/{path.name} differs"
            )
