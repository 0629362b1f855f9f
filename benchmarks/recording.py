"""What recording costs fc: long runs, a large tool result, and a busy proxy's open traces.

Usage: python benchmarks/recording.py [--steps 150,300,1000] [--result-mb 20]
                                      [--conversations 5000]
                                      [--only steps,result,proxy,journal] [--settle 2]

Run it with the interpreter `fc` is installed in (.venv/bin/python benchmarks/recording.py).

- steps: `fc run` against the test fake provider (tests/support/fake_provider.py) answering
  every request with one more tool call, N steps; its CPU seconds (user + system, its own
  rusage) against the floor: reading and re-writing every file of the trace it wrote
  (`json.loads`, then `json.dumps(indent=2, ensure_ascii=False)` written to disk), timed in a
  child process too.
- result: the peak memory (ru_maxrss) of `fc run` whose one tool call returns a result of
  --result-mb MB, ASCII and mixed Chinese (15 bytes of UTF-8 in 7 characters), answered by the
  fake over HTTP (the demo provider's side is tests/run/test_run_memory.py's).
- proxy: `fc proxy` in front of the fake, --conversations step-1 requests, each answered with
  tool calls (a conversation left open, waiting for its next step); the memory (VmRSS) of the
  proxy and of its journal process before the first request, after the last and once the
  journal has recorded them (VmRSS, and PSS: pages the two share, as the same libraries,
  counted once); then the CPU seconds (and wall) from Ctrl-C (SIGINT) to its exit, the journal
  closing every open trace; against the floor of re-writing those traces' files. The journal
  has recorded them once it has used no CPU for --settle seconds (it is given half that to
  start before the first figure).
- journal (only when asked): the journal's process alone (fccli/proxy/child.py), fed as many requests and answers
  through its pipe as one burst, as the proxy hands them over (no server, no load from the
  proxy or the clients): its memory before, holding them and once recorded, its CPU per
  request, and the CPU of closing the open traces.

A measurement, not a test: it always exits 0. Load average printed: other processes share the
machine, and CPU time, not wall time, is what is compared.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from long_trace import ENV, _Forgetful, fc_command, measure, tool_call_answer  # noqa: E402

from tests.support.fake_provider import DEFAULT_KEY  # noqa: E402

QUESTION = "What is the weather in Hangzhou? Keep checking."
FLOOR = """
import json, sys
from pathlib import Path
for path in sorted(Path(sys.argv[1]).iterdir()):
    if path.suffix == ".json":
        data = json.loads(path.read_bytes())
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\\n"
        (Path(sys.argv[2]) / path.name).write_bytes(text.encode("utf-8"))
    elif path.is_file():
        (Path(sys.argv[2]) / path.name).write_bytes(path.read_bytes())
"""
"""The floor: read and re-write every file of a trace (argv[1]) into argv[2]."""
BIG_TOOLS = '''
import os


def get_weather(city: str) -> str:
    """The weather, at length."""
    size = int(os.environ["RESULT_BYTES"])
    if os.environ["RESULT_TEXT"] == "mixed":
        return ("晴天abc多云" * (size // 15 + 1))[: size // 15 * 7]
    return "x" * size
'''
OWN_PEAK = """
import atexit, runpy, sys

def peak():
    with open("/proc/self/status") as status:
        kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(measured, "w") as out:
        out.write(kb)

measured, sys.argv = sys.argv[1], ["fc", *sys.argv[2:]]
atexit.register(peak)
runpy.run_module("fccli", run_name="__main__")
"""
"""`python -m fccli` writing its own peak (kB) at exit: ru_maxrss would count this process's
memory too, copied when the child was forked (the fake here has read large bodies)."""
BIG_CALL = tool_call_answer(1)
BIG_DONE = {
    **BIG_CALL,
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "晴。"}, "finish_reason": "stop"}
    ],
}


def floor_cpu(trace: Path, work: Path) -> float:
    """CPU seconds of re-writing every file of `trace` in a child process."""
    copy = work / "floor"
    copy.mkdir(exist_ok=True)
    cpu, _, code = measure([sys.executable, "-c", FLOOR, str(trace), str(copy)])
    if code:
        raise SystemExit("the floor's re-write failed")
    return cpu


def steps_row(fc: list[str], steps: int, work: Path) -> str:
    out = work / f"run-{steps}"
    with _Forgetful() as fake:
        fake.script = [{"answer": tool_call_answer(n)} for n in range(1, steps + 1)]
        argv = [*fc, "run", QUESTION, "-p", "deepseek", "--base-url", fake.url]
        argv += ["--max-steps", str(steps), "-o", str(out), "--force", "--json"]
        cpu, peak, code = measure(argv, {**ENV, "DEEPSEEK_API_KEY": DEFAULT_KEY})
    if code not in (0, 1):
        return f"{'fc run, ' + str(steps) + ' steps':<34} failed with exit code {code}"
    size = sum(p.stat().st_size for p in out.iterdir()) / 1e6
    floor = floor_cpu(out, work)
    return (
        f"{'fc run, ' + str(steps) + ' steps':<34} {cpu:8.2f} s {floor:8.2f} s "
        f"{cpu / floor:6.2f}x   ({size:.0f} MB written, peak {peak:.0f} MB)"
    )


def result_row(fc: list[str], mb: int, text: str, work: Path) -> str:
    tools = work / "big_tools.py"
    tools.write_text(BIG_TOOLS, encoding="utf-8")
    out = work / f"result-{text}"
    with _Forgetful() as fake:
        fake.script = [{"answer": BIG_CALL}, {"answer": BIG_DONE}]
        measured = work / "peak"
        argv = [sys.executable, "-c", OWN_PEAK, str(measured), "run", "杭州天气", "-p", "deepseek"]
        argv += ["--base-url", fake.url, "--tools", str(tools), "-o", str(out), "--force", "--json"]
        env = {
            **ENV,
            "DEEPSEEK_API_KEY": DEFAULT_KEY,
            "RESULT_BYTES": str(mb * 10**6),
            "RESULT_TEXT": text,
        }
        cpu, _, code = measure(argv, env)
    label = f"fc run, a {mb} MB result ({text})"
    peak = int(measured.read_text()) / 1024 if measured.is_file() else 0.0
    if code:
        return f"{label:<34} failed with exit code {code}"
    return f"{label:<34} peak {peak:6.0f} MB   ({cpu:.2f} s CPU; {peak / mb:.1f}x the result)"


def rss_mb(pid: int, field: str = "VmRSS", where: str = "status") -> float:
    """`pid`'s resident memory (MB): VmRSS, or with ("Pss", "smaps_rollup") its share of it,
    each page shared with other processes (the same libraries) counted once among them."""
    try:
        for line in Path(f"/proc/{pid}/{where}").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def pss_mb(pid: int) -> float:
    return rss_mb(pid, "Pss", "smaps_rollup")


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


REQUEST = {
    "model": "deepseek-chat",
    "messages": [{"role": "user", "content": "杭州今天适合跑步吗？"}],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "查询某个城市当前的天气。",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
        }
    ],
}
"""A step-1 request with the weather tool, as the proxy rows send it."""


async def send(url: str, count: int, clients: int = 8) -> None:
    import httpx

    body = REQUEST
    left = iter(range(count))
    async with httpx.AsyncClient(timeout=60) as client:

        async def worker() -> None:
            for n in left:
                asked = {**body, "messages": [{"role": "user", "content": f"杭州{n}号天气如何？"}]}
                answer = await client.post(
                    url + "/chat/completions",
                    json=asked,
                    headers={"authorization": f"Bearer {DEFAULT_KEY}"},
                )
                answer.raise_for_status()

        await asyncio.gather(*(worker() for _ in range(clients)))


def proxy_rows(count: int, work: Path, settle: float = 2.0) -> list[str]:
    out = work / "proxied"
    with _Forgetful() as fake:
        argv = [sys.executable, "-m", "fccli", "proxy", "--to", fake.url, "--port", "0"]
        argv += ["--out", str(out)]
        printed = work / "printed.txt"
        with printed.open("wb") as screen:
            proxy = subprocess.Popen(argv, stdout=screen, stderr=subprocess.STDOUT, env=ENV)
        banner = ""
        while " on " not in banner and proxy.poll() is None:
            time.sleep(0.05)
            banner = printed.read_text("utf-8", errors="replace").split("\n", 1)[0]
        url = banner.split(" on ", 1)[1].split()[0]
        time.sleep(settle / 2)  # the journal's process has started and read its settings
        base = rss_mb(proxy.pid), sum(rss_mb(c) for c in children(proxy.pid))
        base_shares = pss_mb(proxy.pid) + sum(pss_mb(c) for c in children(proxy.pid))
        start = time.perf_counter()
        asyncio.run(send(url, count))
        sent = time.perf_counter() - start
        journal = children(proxy.pid)
        busy, theirs_busy = rss_mb(proxy.pid), sum(rss_mb(c) for c in journal)
        idle = settled(journal, quiet=settle)
        own, theirs = rss_mb(proxy.pid), sum(rss_mb(c) for c in journal)
        shares = pss_mb(proxy.pid) + sum(pss_mb(c) for c in journal)
        before = cpu_seconds(proxy.pid) + sum(cpu_seconds(c) for c in journal)
        spent = resource.getrusage(resource.RUSAGE_CHILDREN)
        stopped = time.perf_counter()
        proxy.send_signal(signal.SIGINT)
        try:
            proxy.wait(timeout=600)
        except subprocess.TimeoutExpired:
            proxy.kill()
        took = time.perf_counter() - stopped
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # the proxy's and its journal's whole CPU (both waited for), less what they had used
        closing = after.ru_utime + after.ru_stime - spent.ru_utime - spent.ru_stime - before
    traces = [p for p in out.iterdir() if p.is_dir()] if out.is_dir() else []
    size = sum(f.stat().st_size for t in traces for f in t.iterdir()) / 1e6
    floor = 0.0
    for trace in traces:
        floor += floor_in_process(trace, work / "floor-proxy")
    return [
        f"{'fc proxy, before any request':<34} proxy {base[0]:5.0f} MB + journal "
        f"{base[1]:5.0f} MB = {sum(base):5.0f} MB   (PSS {base_shares:.0f} MB)",
        f"{'fc proxy, ' + str(count) + ' requests sent':<34} proxy {busy:5.0f} MB + journal "
        f"{theirs_busy:5.0f} MB = {busy + theirs_busy:5.0f} MB   (the journal holding them)",
        f"{'fc proxy, ' + str(count) + ' open conversations':<34} proxy {own:5.0f} MB + journal "
        f"{theirs:5.0f} MB = {own + theirs:5.0f} MB   ({len(traces)} traces, {size:.0f} MB; "
        f"PSS {shares:.0f} MB; "
        f"sent in {sent:.0f} s, recorded {idle:.0f} s later)",
        f"{'fc proxy, Ctrl-C with that backlog':<34} {closing:8.2f} s {floor:8.2f} s "
        f"{closing / floor if floor else 0:6.2f}x   (CPU from Ctrl-C to exit, {took:.2f} s wall; "
        "floor: CPU to re-write)",
    ]


def journal_rows(count: int, work: Path) -> list[str]:
    """The journal's process alone (fccli/proxy/child.py), fed `count` step-1 requests and their
    answers as one burst through its pipe, as the proxy hands them over: its memory before,
    holding them and once recorded, its CPU per request, and the CPU of closing them."""
    from fccli.proxy.child import framed
    from fccli.proxy.facts import Asked, Close, Ended, Pause, Resume
    from fccli.proxy.settings import Settings
    from fccli.proxy.target import resolve

    journal = subprocess.Popen(
        [sys.executable, "-m", "fccli.proxy.child"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env=ENV,
    )
    assert journal.stdin is not None
    pipe, pid = journal.stdin, journal.pid
    pipe.write(framed((resolve("deepseek", None), Settings(out=work / "journal"), "en")))
    pipe.flush()
    time.sleep(1.0)
    base = rss_mb(pid)
    pipe.write(framed(Pause()))
    for n in range(count):
        asked = {**REQUEST, "messages": [{"role": "user", "content": f"杭州{n}号天气如何？"}]}
        body, answer = json.dumps(asked).encode(), json.dumps(tool_call_answer(n)).encode()
        now = time.perf_counter()
        pipe.write(framed(Asked(n, "deepseek", "/chat/completions", body, (), now, time.time())))
        pipe.write(framed(Ended(n, "done", status=200, pieces=[answer], size=len(answer))))
    pipe.flush()
    time.sleep(1.0)
    held, before = rss_mb(pid), cpu_seconds(pid)
    pipe.write(framed(Resume()))
    pipe.flush()
    settled([pid])
    recorded, used = rss_mb(pid), cpu_seconds(pid)
    spent = resource.getrusage(resource.RUSAGE_CHILDREN)
    pipe.write(framed(Close()))
    pipe.close()
    journal.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    closing = after.ru_utime + after.ru_stime - spent.ru_utime - spent.ru_stime - used
    label = f"journal alone, {count} requests"
    return [
        f"{label:<34} {base:5.0f} MB before, {held:5.0f} MB holding them, {recorded:5.0f} MB "
        f"recorded; {(used - before) * 1000 / count:.2f} ms CPU a request; closing them "
        f"{closing:.2f} s CPU"
    ]


def settled(pids: list[int], quiet: float = 2.0, most: float = 300.0) -> float:
    """Wait until `pids` have used no CPU for `quiet` seconds (the journal has recorded what
    it held); return the seconds waited."""
    start = time.perf_counter()
    last, since = -1.0, start
    while time.perf_counter() - start < most:
        used = sum(cpu_seconds(pid) for pid in pids)
        if used != last:
            last, since = used, time.perf_counter()
        elif time.perf_counter() - since >= quiet:
            break
        time.sleep(min(0.2, quiet / 4))
    return time.perf_counter() - start


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def floor_in_process(trace: Path, copy: Path) -> float:
    copy.mkdir(exist_ok=True)
    start = time.process_time()
    for path in trace.iterdir():
        if path.suffix == ".json":
            text = json.dumps(json.loads(path.read_bytes()), indent=2, ensure_ascii=False) + "\n"
            (copy / path.name).write_bytes(text.encode("utf-8"))
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default="150,300,1000")
    parser.add_argument("--result-mb", type=int, default=20)
    parser.add_argument("--conversations", type=int, default=5000)
    parser.add_argument("--only", default="steps,result,proxy", help="and journal")
    parser.add_argument("--keep", type=Path, help="keep the traces here")
    parser.add_argument("--settle", type=float, default=2.0)
    args = parser.parse_args()
    parts = set(args.only.split(","))
    fc = fc_command()
    load = os.getloadavg()
    print(f"{os.cpu_count()} CPU(s); load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"{'':<34} {'fc CPU':>10} {'floor CPU':>10} {'ratio':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if "steps" in parts:
            for steps in (int(s) for s in args.steps.split(",")):
                print(steps_row(fc, steps, work), flush=True)
        if "result" in parts:
            for text in ("ascii", "mixed"):
                print(result_row(fc, args.result_mb, text, work), flush=True)
        if "proxy" in parts:
            for line in proxy_rows(args.conversations, work, args.settle):
                print(line, flush=True)
        if "journal" in parts:
            for line in journal_rows(args.conversations, work):
                print(line, flush=True)
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f}")


if __name__ == "__main__":
    main()
