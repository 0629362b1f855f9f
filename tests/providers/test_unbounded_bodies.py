"""Answers without end: a huge body, a gzip bomb, a body or a stream that never ends, a server
that trickles a byte now and then. fc reads at most --max-response-mb and for at most --timeout
in all, keeps what came (cut short, and says so), exit 3. In-process against
the fake provider; the limits are set low, so no test allocates much or waits long."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

QUESTION = "杭州今天适合跑步吗？"
MB = 1024 * 1024


def run(fc, server: FakeProvider, *args: str):
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    return fc(
        "run",
        QUESTION,
        "-p",
        "deepseek",
        "--base-url",
        server.url,
        "-o",
        "t",
        "--retries",
        "0",
        *args,
        env=env,
    )


@pytest.mark.parametrize(
    "entry",
    [
        {"hostile": "huge", "size": 3 * MB},
        {"hostile": "gzip_bomb", "size": 6 * MB},
        {"hostile": "endless"},
    ],
    ids=["huge", "gzip-bomb", "endless"],
)
def test_an_answer_past_the_size_cap_is_cut_kept_and_said(
    fc, fake_provider: FakeProvider, tmp_path: Path, entry: dict
) -> None:
    fake_provider.script = [entry]
    result = run(fc, fake_provider, "--max-response-mb", "1")
    assert result.returncode == 3, result.stderr
    assert "passed --max-response-mb 1" in result.stderr
    kept = tmp_path / "t" / "1-response.deepseek.json"
    assert kept.stat().st_size == MB  # the first MB, as received (decompressed)
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "error"
    assert "max-response-mb" in manifest["steps"][0]["truncated"]


@pytest.mark.parametrize(
    ("entry", "stream"),
    [
        ({"hostile": "trickle", "every": 0.1}, False),
        ({"hostile": "keep_alive", "every": 0.05}, True),
    ],
    ids=["trickle", "endless-keep-alive-stream"],
)
def test_an_answer_that_never_ends_stops_at_the_timeout_in_all(
    fc, fake_provider: FakeProvider, tmp_path: Path, entry: dict, stream: bool
) -> None:
    fake_provider.script = [entry]
    start = time.perf_counter()
    result = run(fc, fake_provider, "--timeout", "1", *(["--stream"] if stream else []))
    took = time.perf_counter() - start
    assert result.returncode == 3, result.stderr
    assert took < 3
    assert "longer than --timeout 1 s in all" in result.stderr
    suffix = "sse" if stream else "json"
    assert (tmp_path / "t" / f"1-response.deepseek.{suffix}").stat().st_size > 0


def test_fc_send_stops_at_the_size_cap_too(fc, fake_provider: FakeProvider, tmp_path: Path) -> None:
    assert fc("run", QUESTION, "-o", "demo").returncode == 0
    fake_provider.script = [{"hostile": "endless"}]
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    result = fc(
        "send",
        "demo/1-request.deepseek.json",
        "-p",
        "deepseek",
        "--base-url",
        fake_provider.url,
        "--max-response-mb",
        "0.5",
        env=env,
    )
    assert result.returncode == 3, result.stderr
    assert "passed --max-response-mb 0.5" in result.stderr
