"""benchmarks/long_trace.py, the command the README shows, run on small traces: it records
them with the fake provider and prints a row per size, each command's CPU time and peak."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "long_trace.py"


def test_the_long_trace_benchmark_prints_a_row_per_size(tmp_path: Path) -> None:
    argv = [sys.executable, str(BENCHMARK), "--steps", "3,6", "--keep", str(tmp_path)]
    done = subprocess.run(
        [*argv, "--no-startup"], capture_output=True, text=True, timeout=120, check=True
    )
    rows = [line.split() for line in done.stdout.splitlines() if re.match(r"\s+\d+\s", line)]
    assert [row[0] for row in rows] == ["3", "6"]
    for row in rows:
        cells = row[2:]  # steps, size, then per command: CPU, ratio, peak
        assert len(cells) == 12, row
        assert "!" not in " ".join(cells), f"a command failed: {row}"
    assert (tmp_path / "long-6" / "6-request.deepseek.json").is_file()
