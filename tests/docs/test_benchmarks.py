"""benchmarks/long_trace.py, the command docs/development.md shows, run on small traces: it records
them with the fake provider and prints a row per size, each command's CPU time and peak."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parent.parent.parent / "benchmarks" / "long_trace.py"


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


PROXY_BENCHMARK = BENCHMARK.parent / "proxy.py"
TINY = ["--requests", "2", "--clients", "1", "--answer-ms", "0,20", "--answer-requests", "1"]


def test_the_proxy_benchmark_and_its_floor_print_what_each_adds() -> None:
    """docs/development.md's two lines: what fc proxy adds per request and to a stream's first byte, and
    the same for a bare uvicorn+httpx pass-through (--floor). Tiny runs: the table, not timings."""
    # the floor with httpx's client, as an agent's: both of the benchmark's clients work
    for extra, what in (([], "fc proxy"), (["--floor", "--client", "httpx"], "bare pass-through")):
        done = subprocess.run(
            [sys.executable, str(PROXY_BENCHMARK), *TINY, *extra],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        assert what in done.stdout.splitlines()[0]
        for label in (
            f"{kind}, 1 client(s), {when}"
            for kind in ("request (JSON)", "first byte (stream)")
            for when in ("answer at once", "answer after 20 ms")
        ):
            row = next(line for line in done.stdout.splitlines() if line.startswith(label))
            added = row[len(label) :].split()[4]
            assert re.fullmatch(r"[+-]\d+\.\d\d", added), row
            assert re.fullmatch(r"\d+", row.split()[-1]), row  # traces begun during the burst
        if extra:  # the pass-through has no journal (fc proxy's may use under a clock tick here)
            assert row.split()[-2:] == ["0.00", "0"], row
            assert "journal" not in done.stdout.splitlines()[-1]
        else:  # what the journal held back, written once the requests stopped
            last = done.stdout.splitlines()[-1]
            assert re.fullmatch(
                r"after the last request, the journal wrote what it held back in \d+\.\d s; "
                r"journal CPU per recorded request \d+\.\d\d ms, in all",
                last,
            ), last


RECORDING_BENCHMARK = BENCHMARK.parent / "recording.py"


def test_the_recording_benchmark_prints_each_row_against_its_floor() -> None:
    """docs/performance.md's recording table: steps, a large result and the proxy's backlog,
    each against re-writing the trace. Tiny runs: the table, not timings."""
    argv = [sys.executable, str(RECORDING_BENCHMARK), "--steps", "3", "--result-mb", "1"]
    done = subprocess.run(
        [*argv, "--conversations", "3", "--settle", "0.2"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert re.search(r"fc run, 3 steps +\d+\.\d\d s +\d+\.\d\d s +\d+\.\d\dx", done.stdout), lines
    for text in ("ascii", "mixed"):
        assert re.search(rf"a 1 MB result \({text}\) +peak +\d+ MB", done.stdout), lines
    assert re.search(r"3 open conversations +proxy +\d+ MB \+ journal +\d+ MB", done.stdout)
    assert "(3 traces" in done.stdout, lines
    assert re.search(r"Ctrl-C with that backlog +\d+\.\d\d s", done.stdout), lines
