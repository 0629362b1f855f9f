"""What long traces cost fc's readers, and fc's start-up against the libraries it stands on.

Usage: python benchmarks/long_trace.py [--steps 10,100,300,1000] [--runs N] [--keep DIR]
       [--startup-runs N] [--instructions] [--no-startup]

Run it with the interpreter `fc` is installed in (e.g. .venv/bin/python benchmarks/long_trace.py).
For each size it records a trace with `fc run` against the test fake provider
(tests/support/fake_provider.py) answering every request with one more tool call, so the history grows by
a call and its result per step and each N-request.json repeats all of it (the bytes grow with the
square of the steps). Then it runs, as subprocesses, `fc show` and `fc check` of the trace, and
`fc diff` (internal vs wire) and `fc convert` (to anthropic) of its last request, and prints each
one's CPU time (user + system) and peak memory (ru_maxrss) with the ratio to the smallest size.

Last, the start-up ratios: `fc show` of an example trace and `fc run` (offline demo) against
`python -c "import typer, rich.console; from pydantic import BaseModel"`, and `fc --help`
against `python -c "import typer"`. CPU time, not wall time, of each child (other processes
share the machine), the minimum of --startup-runs runs; in brackets, the median of each round's
own ratio (command and reference run moments apart, so a drift of the machine's speed cancels
out). With --instructions, valgrind's count of instructions too, which is the same however busy
the machine is (~15 s per command). A measurement, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support.fake_provider import DEFAULT_KEY, FakeProvider  # noqa: E402

QUESTION = "What is the weather in Hangzhou? Keep checking."
ENV = {
    k: v
    for k, v in os.environ.items()
    if k != "PYTHONDONTWRITEBYTECODE" and not k.endswith("_API_KEY") and not k.startswith("FC_")
}
FLOOR = "import typer, rich.console; from pydantic import BaseModel"


class _Forgetful(FakeProvider):
    """The fake, keeping nothing of what it received: at 1000 steps that is gigabytes."""

    def _record(self, received: Any) -> None:
        pass


def fc_command() -> list[str]:
    """`fc` from the same environment as this interpreter, or `python -m fccli`."""
    script = Path(sys.executable).parent / "fc"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "fccli"]


def measure(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """(CPU seconds, peak MB, exit code) of one run of argv, read from the child's own rusage."""
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env or ENV,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    peak_mb = usage.ru_maxrss / 1024 if sys.platform != "darwin" else usage.ru_maxrss / 2**20
    return usage.ru_utime + usage.ru_stime, peak_mb, proc.returncode


def best(argv: list[str], runs: int, env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """The least CPU time (and peak) of `runs` runs: noise from other processes only adds."""
    results = [measure(argv, env) for _ in range(runs)]
    return min(r[0] for r in results), min(r[1] for r in results), max(r[2] for r in results)


def tool_call_answer(step: int) -> dict[str, Any]:
    """A chat completion asking for the weather once more, with an id of its own."""
    return {
        "id": f"chatcmpl-long-{step}",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "deepseek-chat",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": f"call_{step:05d}",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "杭州"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 100 * step, "completion_tokens": 12, "total_tokens": 0},
    }


def record_trace(fc: list[str], steps: int, out: Path) -> float:
    """A trace of `steps` steps, each a tool call, written to `out`; the seconds it took."""
    with _Forgetful() as fake:
        fake.script = [{"answer": tool_call_answer(n)} for n in range(1, steps + 1)]
        argv = [*fc, "run", QUESTION, "-p", "deepseek", "--base-url", fake.url]
        argv += ["--max-steps", str(steps), "-o", str(out), "--force", "--json"]
        env = {**ENV, "DEEPSEEK_API_KEY": DEFAULT_KEY}
        start = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"fc run failed ({done.returncode}): {done.stderr.decode()[-500:]}")
        return time.perf_counter() - start


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.iterdir()) / 1e6


def reading_rows(fc: list[str], trace: Path, steps: int) -> dict[str, list[str]]:
    last = trace / f"{steps}-request.json"
    return {
        "show": [*fc, "show", str(trace)],
        "check": [*fc, "check", str(trace)],
        "diff": [*fc, "diff", str(last), str(trace / f"{steps}-request.deepseek.json")],
        "convert": [*fc, "convert", str(last), "--to", "anthropic"],
    }


def long_traces(fc: list[str], sizes: list[int], runs: int, keep: Path) -> None:
    table: dict[int, dict[str, tuple[float, float, int]]] = {}
    for steps in sizes:
        trace = keep / f"long-{steps}"
        if not (trace / f"{steps}-request.json").is_file():
            took = record_trace(fc, steps, trace)
            print(f"recorded {trace} in {took:.1f} s", file=sys.stderr)
        table[steps] = {
            name: best(argv, runs) for name, argv in reading_rows(fc, trace, steps).items()
        }
        table[steps]["_size"] = (size_mb(trace), 0.0, 0)
    base = table[sizes[0]]
    print(f"reading a trace of N steps (CPU s, peak MB, ×: CPU ratio to {sizes[0]} steps)\n")
    names = ["show", "check", "diff", "convert"]
    print(f"{'steps':>6} {'size':>9} " + " ".join(f"{n + ' CPU':>16} {'peak':>7}" for n in names))
    for steps in sizes:
        row = table[steps]
        cells = []
        for name in names:
            cpu, peak, code = row[name]
            ratio = cpu / base[name][0] if base[name][0] else 0.0
            fail = "!" if code not in (0, 1) else " "
            cells.append(f"{cpu:>7.2f}s {ratio:>5.1f}×{fail} {peak:>5.0f}MB")
        print(f"{steps:>6} {row['_size'][0]:>7.1f}MB " + " ".join(cells))
    print("(! : the command failed; exit 1 from check is findings, not a failure)")


def startup(fc: list[str], runs: int, instructions: bool = False) -> None:
    py = [sys.executable]
    example = sorted((REPO / "traces" / "examples").iterdir())[0]
    with tempfile.TemporaryDirectory() as tmp:
        run_out = str(Path(tmp) / "run")
        rows = {
            "typer": [*py, "-c", "import typer"],
            "floor": [*py, "-c", FLOOR],
            "fc --help": [*fc, "--help"],
            "fc show": [*fc, "show", str(example)],
            "fc run": [*fc, "run", "杭州今天适合跑步吗？", "-o", run_out, "--force"],
        }
        for argv in rows.values():  # warm-up: .pyc files, disk cache
            measure(argv)
        # Round-robin, so that a busy spell of the machine falls on every row alike.
        rounds: list[dict[str, float]] = []
        for _ in range(runs):
            rounds.append({label: measure(argv)[0] for label, argv in rows.items()})
        counts = (
            {label: _instructions(argv) for label, argv in rows.items()} if instructions else {}
        )
    cpu = {label: min(r[label] for r in rounds) for label in rows}
    print(
        f"\nstart-up (CPU, least of {runs} runs; in brackets the median of each round's own ratio)\n"
    )
    print(f"python -c 'import typer'   {cpu['typer'] * 1000:6.0f} ms")
    print(f"python -c '{FLOOR}'  {cpu['floor'] * 1000:6.0f} ms   (the floor)")
    for label, against, target in (
        ("fc --help", "typer", 1.25),
        ("fc show", "floor", 1.3),
        ("fc run", "floor", 1.5),
    ):
        ratio = cpu[label] / cpu[against]
        # A round's command and its reference ran moments apart: their ratio is steadier than
        # the ratio of two minima taken from different moments of a machine whose speed drifts.
        paired = statistics.median(r[label] / r[against] for r in rounds)
        verdict = "ok" if ratio <= target else "over"
        line = (
            f"{label:<10} {cpu[label] * 1000:6.0f} ms  {ratio:4.2f}× {against} [{paired:4.2f}×]"
            f"  (target ≤{target}×: {verdict})"
        )
        if counts.get(label) and counts.get(against):
            line += f"  instructions {counts[label] / 1e6:5.0f} M: {counts[label] / counts[against]:4.2f}×"
        print(line)
    if instructions and not counts.get("floor"):
        print("(no instruction counts: valgrind is not installed)")


def _instructions(argv: list[str]) -> int | None:
    """Instructions the command runs (valgrind's callgrind): the same count however busy the
    machine is; None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    found = re.search(r"Collected : (\d+)", proc.stderr)
    return int(found.group(1)) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="10,100,300,1000", help="sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=1, help="runs per reading command (least CPU)")
    parser.add_argument("--startup-runs", type=int, default=7, help="runs per start-up command")
    parser.add_argument("--keep", type=Path, help="keep the traces here (and reuse them)")
    parser.add_argument("--no-startup", action="store_true", help="skip the start-up ratios")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each start-up command's instructions with valgrind (load-independent)",
    )
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.steps.split(",") if s.strip())
    fc = fc_command()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        long_traces(fc, sizes, max(1, args.runs), args.keep)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            long_traces(fc, sizes, max(1, args.runs), Path(tmp))
    if not args.no_startup:
        startup(fc, max(1, args.startup_runs), args.instructions)


if __name__ == "__main__":
    main()
    sys.exit(0)
