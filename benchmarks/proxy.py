"""What `fc proxy` adds: latency per request, and time to the first byte of a stream, through
the proxy vs straight to the provider (the test suite's fake, on 127.0.0.1), at 1 and at 16
concurrent clients.

Usage: python benchmarks/proxy.py [--requests N] [--clients 1,16] [--floor]

Three processes (four with fc proxy's journal), so that none of them shares an interpreter lock
with another: the fake provider (its prompt cache off, so every answer costs the same however
many came before), `fc proxy --to <fake>` recording every request into a temporary directory
(each request is a new conversation: a trace directory, its manifest and four step files, the
checks), and this one, whose asyncio clients (httpx) send a step-1 chat request with the weather
tool, round-robin direct and through the proxy, so drift on a busy machine hits both alike. A
stream is read to its end, as an agent does, and timed to the first byte of its body (a client
that left after the first byte would measure fc cutting the upstream request and writing an
interrupted trace, not what a stream costs). The table shows the median and p90 of each, the
median added by the proxy, the ratio to direct, and CPU time per proxied request of the proxy's
process (its event loop: the forwarding) and of its children (the journal that reads, checks,
writes the traces and prints the transcript; Linux only). The journal waits for a lull before it
records (fccli/proxy/lull.py), so during the timed burst its column stays near 0, and so does
the last, the traces it began during the burst (each request is one: those were recorded while
requests were forwarded, in lulls the burst left); the last line says how long it took to write
what it held back once the requests stopped, and its CPU per recorded request over the whole
run.

`--floor` runs benchmarks/passthrough.py in place of fc proxy: the same server stack and
forwarding, no fc code, nothing recorded. What it adds is the least any Python proxy adds on the
same machine at the same moment; on 2 cores at 16 clients the fake provider and this script's
clients take most of the CPU, and every process on the machine competes for it (report the load
average with every number). This is a measurement, not a test: it exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KEY = "sk-test-fake-key-123"
FAKE = """
import sys, time
sys.path.insert(0, {repo!r})
from tests.fake_provider import FakeProvider
FakeProvider._cache_hit = lambda self, fmt, request: 0  # the same cost for every answer
with FakeProvider() as server:
    print(server.url, flush=True)
    time.sleep(3600)
"""
REQUEST = {
    "model": "gpt-4.1-mini",
    "messages": [{"role": "user", "content": "北京、上海今天适合跑步吗？"}],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "查询某个城市当前的天气。返回温度（摄氏度）、天气状况和空气质量指数。",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "description": "城市名，例如：杭州"}},
                    "required": ["city"],
                },
            },
        }
    ],
}


def start(argv: list[str], env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """A server subprocess, and the first line it prints (where it listens)."""
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


async def one(client: object, url: str, stream: bool) -> float:
    """Milliseconds to the whole answer (JSON) or to its first body byte (stream)."""
    import httpx

    assert isinstance(client, httpx.AsyncClient)
    body = {**REQUEST, "stream": True} if stream else REQUEST
    start = time.perf_counter()
    async with client.stream(
        "POST", url + "/v1/chat/completions", json=body, headers={"authorization": f"Bearer {KEY}"}
    ) as response:
        first = None
        async for _ in response.aiter_raw():
            if first is None:
                first = time.perf_counter()
        if response.status_code != 200:
            raise RuntimeError(f"HTTP {response.status_code} from {url}")
    end = first if stream and first is not None else time.perf_counter()
    return (end - start) * 1000


async def measure(
    direct: str, proxied: str, clients: int, requests: int, stream: bool
) -> dict[str, list[float]]:
    import httpx

    times: dict[str, list[float]] = {"direct": [], "proxy": []}
    limits = httpx.Limits(max_connections=clients * 2, max_keepalive_connections=clients * 2)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:

        async def worker(n: int) -> None:
            for i in range(requests):
                # round-robin: each client alternates, half starting on each side
                for name, url in (
                    (("direct", direct), ("proxy", proxied))
                    if (i + n) % 2
                    else (("proxy", proxied), ("direct", direct))
                ):
                    times[name].append(await one(client, url, stream))

        # warm-up: connections opened, the proxy's first imports paid
        await asyncio.gather(*(one(client, u, stream) for u in (direct, proxied) * clients))
        await asyncio.gather(*(worker(n) for n in range(clients)))
    return times


def cpu_seconds(pid: int) -> tuple[float, float] | None:
    """User + system CPU time so far of a process, and of its children (fc proxy's journal
    runs in one); Linux's /proc, None elsewhere."""
    try:
        own = _cpu(pid)
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return None
    return own, sum(_cpu(int(child)) for child in children)


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def traces_begun(out: Path) -> int:
    """How many traces the journal has begun writing so far (each benchmark request is a
    conversation of its own): those begun during a timed burst were recorded while requests
    were being forwarded, what the journal's waiting for a lull is meant to avoid."""
    try:
        return sum(1 for _ in out.iterdir())
    except OSError:
        return 0


def row(
    label: str, times: dict[str, list[float]], cpu_ms: tuple[float, float] | None, during: int
) -> str:
    d, p = sorted(times["direct"]), sorted(times["proxy"])
    md, mp = statistics.median(d), statistics.median(p)
    p90 = lambda xs: xs[int(len(xs) * 0.9)]  # noqa: E731
    cpu = f"{cpu_ms[0]:9.2f} {cpu_ms[1]:9.2f}" if cpu_ms is not None else f"{'?':>9} {'?':>9}"
    return (
        f"{label:<34} {md:8.2f} {p90(d):8.2f} {mp:8.2f} {p90(p):8.2f} {mp - md:+9.2f} "
        f"{mp / md:7.2f}x {cpu} {during:9d}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=100, help="per client and side")
    parser.add_argument("--clients", default="1,16")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="measure a bare uvicorn+httpx pass-through (benchmarks/passthrough.py) in place "
        "of fc proxy: what any Python proxy on this machine adds",
    )
    args = parser.parse_args()
    counts = [int(c) for c in args.clients.split(",")]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}
    fake, fake_url = start([sys.executable, "-c", FAKE.format(repo=str(REPO))])
    with tempfile.TemporaryDirectory() as out:
        fc_proxy = [sys.executable, "-m", "fccli", "proxy", "--to", fake_url, "--port", "0"]
        fc_proxy += ["--out", str(Path(out) / "traces")]
        floor = [sys.executable, str(REPO / "benchmarks" / "passthrough.py"), fake_url]
        # What the proxy prints (every step) goes to a file: a pipe drained by a thread of
        # this process would take the interpreter lock from the clients being timed.
        printed = Path(out) / "printed.txt"
        with printed.open("wb") as screen:
            proxy = subprocess.Popen(
                floor if args.floor else fc_proxy, stdout=screen, stderr=subprocess.DEVNULL, env=env
            )
        loop, recorded = None, 0
        try:
            banner = ""
            while " on " not in banner and proxy.poll() is None:
                time.sleep(0.05)
                banner = printed.read_text("utf-8", errors="replace").split("\n", 1)[0]
            proxied = banner.split(" on ", 1)[1].split()[0]
            load = os.getloadavg()
            what = "bare pass-through (--floor)" if args.floor else "fc proxy"
            print(f"fake provider {fake_url}, {what} {proxied}; load average {load[0]:.2f}")
            print(f"{os.cpu_count()} CPU(s); {args.requests} requests per client and side; ms")
            print(
                f"{'':<34} {'direct':>8} {'p90':>8} {'proxy':>8} {'p90':>8} {'added':>9} "
                f"{'ratio':>8} {'loop CPU':>9} {'journal':>9} {'recorded':>9}"
            )
            for clients in counts:
                for stream in (False, True):
                    before = cpu_seconds(proxy.pid)
                    begun = traces_begun(Path(out) / "traces")
                    times = asyncio.run(measure(fake_url, proxied, clients, args.requests, stream))
                    after = cpu_seconds(proxy.pid)
                    during = traces_begun(Path(out) / "traces") - begun
                    # per proxied request, the warm-up's `clients` requests included
                    n = len(times["proxy"]) + clients
                    recorded += n
                    cpu = None
                    if before is not None and after is not None:
                        cpu = (
                            (after[0] - before[0]) * 1000 / n,
                            (after[1] - before[1]) * 1000 / n,
                        )
                    what = "first byte (stream)" if stream else "request (JSON)"
                    print(row(f"{what}, {clients} client(s)", times, cpu, during), flush=True)
            load = os.getloadavg()
            print(f"load average after: {load[0]:.2f}")
        finally:
            loop = cpu_seconds(proxy.pid)
            reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
            stopped = time.perf_counter()
            proxy.send_signal(signal.SIGINT)  # as Ctrl-C: the open traces are closed
            try:
                proxy.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proxy.kill()
            caught_up = time.perf_counter() - stopped
            # the proxy's process and the journal it waited for, over the whole run
            now = resource.getrusage(resource.RUSAGE_CHILDREN)
            total = now.ru_utime + now.ru_stime - reaped.ru_utime - reaped.ru_stime
            fake.kill()
        if not args.floor and loop is not None and recorded:
            print(
                f"after the last request, the journal wrote what it held back in {caught_up:.1f} "
                f"s; journal CPU per recorded request {(total - loop[0]) * 1000 / recorded:.2f} "
                "ms, in all"
            )


if __name__ == "__main__":
    main()
