"""Start-up cost of `fc`, as a ratio to a bare `python -c pass`.

Usage: python benchmarks/startup.py [--runs N] [--warmup N]

Run it with the interpreter `fc` is installed in (e.g. .venv/bin/python benchmarks/startup.py).
It uses the `fc` script next to that interpreter, else `python -m fccli`. Every command runs as a
subprocess, round-robin (so drift on a busy machine hits all rows alike), after warm-up runs; the
table shows the median. The reading commands are measured on the first example trace in
traces/examples/: `fc show` (its transcript) and `fc diff` (step 2's internal vs wire mapping),
whose floor is typer plus pydantic (the internal format's models) plus Rich. This is a
measurement, not a test: it always exits 0.

PYTHONDONTWRITEBYTECODE is dropped for the subprocesses, so the warm-up runs leave the .pyc
files that any normal install has (pip compiles them; an editable install writes them on first
use); otherwise fccli's own modules would be compiled from source on every run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "traces" / "examples"


def fc_command() -> list[str]:
    """`fc` from the same environment as this interpreter, or `python -m fccli`."""
    bindir = Path(sys.executable).parent
    for name in ("fc", "fc.exe"):
        script = bindir / name
        if script.is_file() and os.access(script, os.X_OK):
            return [str(script)]
    return [sys.executable, "-m", "fccli"]


def example_trace() -> Path | None:
    if not EXAMPLES.is_dir():
        return None
    entries = sorted(p for p in EXAMPLES.iterdir() if not p.name.startswith("."))
    return entries[0] if entries else None


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(argv: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=ENV,
    )
    return (time.perf_counter() - start) * 1000.0, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="timed runs per command (default 21)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    args = parser.parse_args()
    runs, warmup = max(1, args.runs), max(0, args.warmup)

    fc = fc_command()
    py = [sys.executable]
    # (label, argv, target ratio or None for a reference row)
    rows: list[tuple[str, list[str], float | None]] = [
        ("python -c pass", [*py, "-c", "pass"], None),
        ('python -c "import typer"', [*py, "-c", "import typer"], None),
        ("fc --help", [*fc, "--help"], 6.0),
        ("fc --version", [*fc, "--version"], 6.0),
        ("fc run --help", [*fc, "run", "--help"], 6.0),
    ]
    notes: list[str] = []
    trace = example_trace()
    rows.append(("fc show --help", [*fc, "show", "--help"], 6.0))
    if trace is None:
        notes.append("fc show, fc diff: skipped (no example trace in traces/examples/)")
    else:
        shown = trace.relative_to(REPO)
        rows.append((f"fc show {shown}", [*fc, "show", str(trace)], 12.0))
        rows.append(
            (
                f"fc diff {shown}/2-request{{,.deepseek}}.json",
                [
                    *fc,
                    "diff",
                    str(trace / "2-request.json"),
                    str(trace / "2-request.deepseek.json"),
                ],
                12.0,
            )
        )

    for _ in range(warmup):
        for _label, argv, _target in rows:
            run_once(argv)
    times: dict[str, list[float]] = {label: [] for label, _, _ in rows}
    failed: dict[str, int] = {}
    for _ in range(runs):
        for label, argv, _target in rows:
            ms, code = run_once(argv)
            times[label].append(ms)
            if code != 0:
                failed[label] = code

    print(f"{sys.executable} (Python {sys.version.split()[0]}), fc = {' '.join(fc)}")
    print(f"median of {runs} runs after {warmup} warm-up runs\n")
    base = statistics.median(times[rows[0][0]])
    width = max(len(label) for label, _, _ in rows)
    print(f"{'command':<{width}}  {'median ms':>9}  {'ratio':>6}  {'target':>6}  result")
    for label, _argv, target in rows:
        med = statistics.median(times[label])
        ratio = med / base
        if label in failed:
            result = f"failed (exit {failed[label]})"
        elif target is None:
            result = "reference"
        else:
            result = "ok" if ratio <= target else "over"
        target_text = f"≤{target:g}×" if target is not None else "-"
        print(f"{label:<{width}}  {med:>9.1f}  {ratio:>5.1f}×  {target_text:>6}  {result}")
    for note in notes:
        print(note)
    print(
        "(`import typer` is the floor of every typer path; on a busy machine ratios move by ~±0.5×)"
    )


if __name__ == "__main__":
    main()
    sys.exit(0)
