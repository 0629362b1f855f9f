"""fc proxy's journal process (fccli/proxy/child.py) loads what recording needs and no more:
every module it holds is memory it keeps for as long as the proxy runs."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fccli.proxy.child import framed
from fccli.proxy.facts import Asked, Close, Ended
from fccli.proxy.settings import Settings
from fccli.proxy.target import resolve

NOT_NEEDED = ("asyncio", "ssl", "httpx", "httpx2", "typer", "click", "pygments", "uvicorn")
"""The proxy's network, genai-prices' updater and the command line: none is the journal's."""
LIST = (
    "import sys, fccli.proxy.child as c; c.main(); "
    "print(' '.join(sorted(m for m, loaded in sys.modules.items() if loaded)))"
)
ASKED = {"model": "deepseek-chat", "messages": [{"role": "user", "content": "杭州天气如何？"}]}
ANSWER = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "deepseek-chat",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "晴。"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100},
}


@pytest.mark.parametrize(
    ("model", "table"),
    [("deepseek-chat", False), ("deepseek-v3.2", True)],
    ids=["priced-by-fc's-rows", "priced-by-genai-prices"],
)
def test_the_journals_process_records_without_network_nor_command_line(
    model: str, table: bool, tmp_path: Path
) -> None:
    body = json.dumps({**ASKED, "model": model}).encode()
    answer = json.dumps({**ANSWER, "model": model}).encode()
    facts = [
        (resolve("deepseek", None), Settings(out=tmp_path), "en"),
        Asked(1, "deepseek", "/chat/completions", body, (), time.perf_counter(), time.time()),
        Ended(1, "done", status=200, pieces=[answer], size=len(answer), end=time.perf_counter()),
        Close(),
    ]
    done = subprocess.run(
        [sys.executable, "-c", LIST],
        input=b"".join(map(framed, facts)),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.decode().splitlines()[-1].split())
    [trace] = tmp_path.iterdir()
    manifest = json.loads((trace / "manifest.json").read_bytes())
    assert manifest["status"] == "ok" and manifest["cost"]["usd"] > 0
    # DeepSeek's models from fc's copy of their rows (fccli/cost/snapshot.py), others from the
    # table genai-prices ships, without its updater
    assert "fccli.proxy.handler" in loaded and ("genai_prices" in loaded) == table
    assert sorted(m for m in loaded if m.split(".")[0] in NOT_NEEDED) == []
    assert not any(m.startswith("fccli.commands") for m in loaded)


SERVER = (
    "import json, sys, fccli.commands.proxy_lean, fccli.proxy.start; "
    "from fccli.proxy.target import resolve; "
    "print([resolve(to).format_at(path).name for to, path in json.loads(sys.argv[1])]); "
    "print(' '.join(sorted(m for m, loaded in sys.modules.items() if loaded)))"
)
"""What fc proxy's server process loads (fccli/commands/proxy_lean.py), telling formats apart."""


def test_the_proxys_process_tells_formats_apart_without_codecs_nor_command_line() -> None:
    asked = {
        ("deepseek", "/chat/completions"): "deepseek",
        ("http://127.0.0.1:9", "/v1/chat/completions"): "openai",
        ("anthropic", "/v1/messages"): "anthropic",
        ("gemini", "/v1beta/models/gemini-2.5-flash:streamGenerateContent"): "gemini",
        ("ollama-native", "/api/chat"): "ollama-native",
    }
    argv = [sys.executable, "-c", SERVER, json.dumps(list(asked))]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    named, modules = done.stdout.splitlines()[-2:]
    assert named == repr(list(asked.values()))
    loaded = modules.split()
    assert "fccli.wire.routes" in loaded and "uvicorn" not in loaded  # imported as it serves
    heavy = ("typer", "pydantic", "pydantic_core", "fccli.core.models", "fccli.wire.registry")
    assert [m for m in loaded if m.split(".")[0] in heavy or m in heavy] == []
    assert not any(m.startswith(("fccli.wire.chat", "fccli.wire.anthropic")) for m in loaded)
