"""What `fc proxy` adds: latency per request, and time to the first byte of a stream, through
the proxy vs straight to the provider (the test suite's fake, on 127.0.0.1), at 1 and at 16
concurrent clients, with answers that come at once and answers that take a model's time.

Usage: python benchmarks/proxy.py [--requests N] [--clients 1,16] [--answer-ms 0,500]
                                  [--answer-requests N] [--client lean|httpx] [--floor]

Three processes (four with fc proxy's journal), so that none of them shares an interpreter lock
with another: the fake provider (its prompt cache off, so every answer costs the same however
many came before), `fc proxy --to <fake>` recording every request into a temporary directory
(each request is a new conversation: a trace directory, its manifest and four step files, the
checks), and this one, whose asyncio clients send a step-1 chat request with the weather tool,
round-robin direct and through the proxy, so drift on a busy machine hits both alike. A stream
is read to its end, as an agent does, and timed to the first chunk of its body (a client that
left after the first byte would measure fc cutting the upstream request and writing an
interrupted trace, not what a stream costs).

Two loads, because they answer different questions on 2 cores:
- Answers at once (`--answer-ms 0`): the servers' CPU is all there is. At 16 clients the proxy
  is the bottleneck: every request waits for the 15 others' forwarding, and what is added is the
  proxy's throughput (any uvicorn+httpx proxy: see --floor), not its latency.
- Answers after 500 ms, as a fast model's: 16 agents, each waiting for its answers, and the
  proxy's added time per request. The header `x-benchmark-answer-ms` tells the fake how long to
  wait (the proxy forwards it like any header); the clients start spread over one round, since
  answers that all take 500 ms would otherwise keep them in step, 16 requests arriving at once.

The clients are lean by default (raw HTTP/1.1, one keep-alive connection per client and side):
httpx's client takes more CPU per request than the proxy's forwarding, and on 2 cores its own
queueing made the timings swing by +-5 ms from run to run, the floor's too. `--client httpx`
measures with it.

The table shows the median and p90 of each, the median added by the proxy, the ratio to direct,
and CPU time per proxied request of the proxy's process (its event loop: the forwarding) and of
its children (the journal that reads, checks, writes the traces and prints the transcript; Linux
only); the last column counts the traces the journal began during the row (each request is one).
The journal records in the lulls (fccli/proxy/bursts.py): answers at once leave none, so it waits
(0 there), and the last line says how long it took to write what it held back once the requests
stopped, and its CPU per recorded request over the whole run; answers that take time leave
lulls, and it records between them.

`--floor` runs benchmarks/passthrough.py in place of fc proxy: the same server stack and
forwarding, no fc code, nothing recorded. What it adds is the least any Python proxy adds on the
same machine at the same moment; every process on the machine competes for the 2 cores (report
the load average with every number). This is a measurement, not a test: it exits 0.
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
ANSWER_HEADER = "x-benchmark-answer-ms"
"""How long the fake provider waits before it answers a request (forwarded by the proxy)."""
LABEL = 56
FAKE = """
import sys, time
sys.path.insert(0, {repo!r})
from tests.support.fake_provider import FakeProvider
FakeProvider._cache_hit = lambda self, fmt, request: 0  # the same cost for every answer
handle = FakeProvider._handle
def answering(self, h):  # a model's time to its answer (to a stream's first byte), as asked
    time.sleep(float(h.headers.get("x-benchmark-answer-ms") or 0) / 1000)
    handle(self, h)
FakeProvider._handle = answering
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


async def one(client: object, url: str, stream: bool, answer_s: float) -> float:
    """Milliseconds to the whole answer (JSON) or to its first body byte (stream)."""
    import httpx

    assert isinstance(client, httpx.AsyncClient)
    body = {**REQUEST, "stream": True} if stream else REQUEST
    start = time.perf_counter()
    async with client.stream(
        "POST",
        url + "/v1/chat/completions",
        json=body,
        headers={"authorization": f"Bearer {KEY}", ANSWER_HEADER: f"{answer_s * 1000:g}"},
    ) as response:
        first = None
        async for _ in response.aiter_raw():
            if first is None:
                first = time.perf_counter()
        if response.status_code != 200:
            raise RuntimeError(f"HTTP {response.status_code} from {url}")
    end = first if stream and first is not None else time.perf_counter()
    return (end - start) * 1000


class Lean:
    """An HTTP/1.1 client of one keep-alive connection that does no more than send the
    request's bytes (built once) and read the answer (Content-Length or chunked): it takes a
    fraction of the CPU httpx takes per request, so that on 2 cores the timings are of the
    servers, not of clients queueing behind each other in this process's event loop."""

    def __init__(self, url: str, stream: bool, answer_s: float) -> None:
        import json
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        body = json.dumps({**REQUEST, "stream": True} if stream else REQUEST).encode()
        self.request = (
            f"POST /v1/chat/completions HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Authorization: Bearer {KEY}\r\nContent-Type: application/json\r\n"
            f"Accept: */*\r\n{ANSWER_HEADER}: {answer_s * 1000:g}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        self.stream = stream
        self.connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def one(self) -> float:
        """Milliseconds to the whole answer (JSON) or to its first body chunk (stream)."""
        if self.connection is None:
            self.connection = await asyncio.open_connection(self.host, self.port)
        reader, writer = self.connection
        start = time.perf_counter()
        writer.write(self.request)
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        headers = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(b":") for line in head.split(b"\r\n")[1:])
        }
        first = None
        if b"content-length" in headers:
            await reader.readexactly(int(headers[b"content-length"]))
            first = time.perf_counter()
        else:  # chunked
            while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
                await reader.readexactly(size + 2)
                if first is None:
                    first = time.perf_counter()
            await reader.readuntil(b"\r\n")  # the end of the (empty) trailer
        end = time.perf_counter()
        if status != 200:
            raise RuntimeError(f"HTTP {status} from {self.host}:{self.port}")
        if headers.get(b"connection", b"").lower() == b"close":
            writer.close()
            self.connection = None
        return ((first if self.stream and first is not None else end) - start) * 1000

    def close(self) -> None:
        if self.connection is not None:
            self.connection[1].close()


async def measure(
    direct: str,
    proxied: str,
    clients: int,
    requests: int,
    stream: bool,
    lean: bool,
    answer_s: float = 0.0,
) -> dict[str, list[float]]:
    import httpx

    times: dict[str, list[float]] = {"direct": [], "proxy": []}
    limits = httpx.Limits(max_connections=clients * 2, max_keepalive_connections=clients * 2)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        # each client: one connection to each side (lean), or httpx's pool shared by all
        sides = [
            {url: Lean(url, stream, answer_s) for url in (direct, proxied)} if lean else {}
            for _ in range(clients)
        ]

        async def ask(n: int, url: str) -> float:
            return await (sides[n][url].one() if lean else one(client, url, stream, answer_s))

        async def worker(n: int) -> None:
            # Spread over one round (a request to each side): answers that all take the same
            # time would otherwise keep the clients in step, every request arriving with 15
            # others, as agents do not.
            await asyncio.sleep(n * 2 * answer_s / clients)
            for i in range(requests):
                # round-robin: each client alternates, half starting on each side
                for name, url in (
                    (("direct", direct), ("proxy", proxied))
                    if (i + n) % 2
                    else (("proxy", proxied), ("direct", direct))
                ):
                    times[name].append(await ask(n, url))

        # warm-up: connections opened, the proxy's first imports paid
        await asyncio.gather(*(ask(n, u) for u in (direct, proxied) for n in range(clients)))
        await asyncio.gather(*(worker(n) for n in range(clients)))
        for side in sides:
            for lean_client in side.values():
                lean_client.close()
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
        f"{label:<{LABEL}} {md:8.2f} {p90(d):8.2f} {mp:8.2f} {p90(p):8.2f} {mp - md:+9.2f} "
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
    parser.add_argument(
        "--client",
        choices=("lean", "httpx"),
        default="lean",
        help="lean: raw HTTP/1.1, a connection per client and side, little CPU (default); "
        "httpx: httpx's AsyncClient, as an agent would use, whose own CPU on 2 cores makes "
        "every timing noisier",
    )
    parser.add_argument(
        "--answer-ms",
        default="0,500",
        help="how long the fake provider takes to answer, as a model does (0: at once; then "
        "the servers' CPU is all there is, and at 16 clients the proxy is the bottleneck)",
    )
    parser.add_argument(
        "--answer-requests",
        type=int,
        default=30,
        help="per client and side, where answers take time",
    )
    args = parser.parse_args()
    counts = [int(c) for c in args.clients.split(",")]
    answers = [float(ms) / 1000 for ms in args.answer_ms.split(",")]
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
            print(
                f"{os.cpu_count()} CPU(s); {args.requests} requests per client and side "
                f"({args.answer_requests} where answers take time); {args.client} clients; ms"
            )
            print(
                f"{'':<{LABEL}} {'direct':>8} {'p90':>8} {'proxy':>8} {'p90':>8} {'added':>9} "
                f"{'ratio':>8} {'loop CPU':>9} {'journal':>9} {'recorded':>9}"
            )
            for answer_s, clients, stream in (
                (a, c, s) for a in answers for c in counts for s in (False, True)
            ):
                before = cpu_seconds(proxy.pid)
                begun = traces_begun(Path(out) / "traces")
                times = asyncio.run(
                    measure(
                        fake_url,
                        proxied,
                        clients,
                        args.answer_requests if answer_s else args.requests,
                        stream,
                        args.client == "lean",
                        answer_s,
                    )
                )
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
                when = f"answer after {answer_s * 1000:g} ms" if answer_s else "answer at once"
                label = f"{what}, {clients} client(s), {when}"
                print(row(label, times, cpu, during), flush=True)
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
