"""Any language: a Node agent (built-in fetch, no packages) through `fc proxy` leaves a trace
as a Python SDK does. Skipped where Node is not installed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.proxy_harness import load, proxy

NODE = shutil.which("node")
AGENT = Path(__file__).parent.parent / "js" / "agent.mjs"


@pytest.mark.skipif(NODE is None, reason="node is not installed: the JS agent cannot run")
@pytest.mark.parametrize("mode", ["json", "stream"])
def test_a_node_agent_through_the_proxy(tmp_path: Path, mode: str) -> None:
    assert NODE is not None
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        env = clean_env(OPENAI_BASE_URL=px.url + "/v1", OPENAI_API_KEY=DEFAULT_KEY)
        ran = subprocess.run(
            [NODE, str(AGENT), "北京、上海今天适合跑步吗？", mode],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert ran.returncode == 0, ran.stderr
    answer = json.loads(ran.stdout)
    assert "北京" in answer["content"] and "20" in answer["content"]
    (trace,) = px.traces()
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "ok" and len(manifest["steps"]) == 2
    assert manifest["final_answer"] == answer["content"]
    runs = manifest["steps"][0]["tool_runs"]
    assert [r["arguments"] for r in runs] == [{"city": "北京"}, {"city": "上海"}]
    assert (trace / "1-response.openai.sse").exists() == (mode == "stream")
    for path in trace.iterdir():
        assert DEFAULT_KEY.encode() not in path.read_bytes()
