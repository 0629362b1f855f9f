"""`fc proxy`, `fc serve` and `fc export` under `--lang zh`: their lines in Chinese, in the
glossary's words; what they send to an agent or write to a trace the same bytes as under en.

The proxy and the server run in a thread of the test process (tests/support/proxy_harness.py), so the
language is chosen with `i18n.set_language` (conftest.py sets English back after each test).
"""

from __future__ import annotations

import io
import json
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fccli import i18n
from fccli.render.console import make_console
from fccli.render.proxy_view import ProxyView
from fccli.serve.app import make_app
from fccli.serve.launch import InThread, bind, exposure_warning
from fccli.serve.recordings import load_recordings
from fccli.trace.writer import without_times
from tests.conftest import REPO, clean_env
from tests.support import local_http
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.inprocess import run_in_process
from tests.support.proxy_harness import load, proxy, wire_tools

BEARER = {"Authorization": f"Bearer {DEFAULT_KEY}"}
ASK = {
    "model": "gpt-4.1-mini",
    "messages": [{"role": "user", "content": "杭州今天适合跑步吗？"}],
    "tools": wire_tools("openai"),
}
CHAT = "/v1/chat/completions"
EXAMPLES = REPO / "traces" / "examples"


@pytest.fixture
def zh() -> Iterator[None]:
    i18n.set_language("zh")
    yield
    i18n.set_language("en")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _without_reasoning(server: FakeProvider) -> dict[str, Any]:
    """A DeepSeek thinking-mode step 2 whose assistant turn lost its reasoning_content (FC112)."""
    ask = {**ASK, "model": "deepseek-flash"}
    first = local_http.post(server.url + "/chat/completions", json=ask, headers=BEARER).json()
    turn = dict(first["choices"][0]["message"])
    turn.pop("reasoning_content")
    results = [
        {"role": "tool", "tool_call_id": c["id"], "content": '{"temp_c": 20}'}
        for c in turn["tool_calls"]
    ]
    return {**ask, "messages": [*ask["messages"], turn, *results]}


# ---------------------------------------------------------------------------------------------
# fc proxy: the terminal


def test_the_proxy_banner_and_warning_in_chinese(zh) -> None:
    screen = io.StringIO()
    view = ProxyView(make_console(file=screen, width=120), "openai")
    view.banner(
        "http://127.0.0.1:8787",
        ["OPENAI_BASE_URL=http://127.0.0.1:8787/v1"],
        "https://api.openai.com",
        "traces/proxy-x",
    )
    view.warn(exposure_warning("0.0.0.0") or "")
    said = screen.getvalue()
    assert "fc proxy 监听 http://127.0.0.1:8787 → https://api.openai.com" in said
    assert "把你的 agent 指向这里：" in said
    assert "export OPENAI_BASE_URL=http://127.0.0.1:8787/v1" in said
    assert "轨迹保存在 traces/proxy-x 下；按 Ctrl-C 停止" in said
    assert "警告：正在监听 0.0.0.0，不只是本机" in said and "API 密钥" in said


def test_the_proxy_banner_in_english_is_unchanged() -> None:
    screen = io.StringIO()
    view = ProxyView(make_console(file=screen, width=120), "openai")
    view.banner("http://127.0.0.1:1", ["X=1"], "https://up", "traces/p")
    view.warn(exposure_warning("0.0.0.0") or "")
    assert screen.getvalue().splitlines() == [
        "fc proxy on http://127.0.0.1:1 → https://up",
        "point your agent here:",
        "  export X=1",
        "traces go under traces/p; Ctrl-C stops (open traces: interrupted)",
        "warning: listening on 0.0.0.0, not only this machine: anyone who can reach it can use "
        "it, and through fc proxy spend the key your agent sends",
    ]


def test_forwarded_requests_and_stopping_are_said_in_chinese(zh, tmp_path: Path) -> None:
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        assert local_http.post(px.url + CHAT, json=ASK, headers=BEARER).status_code == 200
        local_http.get(px.url + "/v1/models", headers=BEARER)
        local_http.post(px.url + CHAT, content=b"{not json", headers=BEARER)
        (trace,) = px.traces()
    said = px.printed
    assert f"新轨迹 {trace}" in said
    assert "GET /v1/models → 404：已转发，未记录（不是发给模型的请求）" in said
    assert "POST /v1/chat/completions：已转发，未记录（请求体不是 JSON：" in said
    assert "fc proxy 已停止；1 条未结束的轨迹已关闭，记为 interrupted（已中断）：" in said
    # The trace keeps English.
    manifest = load(trace / "manifest.json")
    assert manifest["error"]["message"] == "fc proxy stopped before the conversation ended"


def test_an_upstream_that_is_down_is_chinese_on_the_terminal_english_to_the_agent(
    zh, tmp_path: Path
) -> None:
    down = f"http://127.0.0.1:{_free_port()}"
    with proxy(tmp_path / "px", down) as px:
        answer = local_http.post(px.url + CHAT, json=ASK, headers=BEARER)
    assert answer.status_code == 502
    assert answer.json()["error"]["message"].startswith(f"fc proxy: cannot reach {down}")
    said = px.printed
    assert f"POST /v1/chat/completions → 502: 连不上 {down}：没有连接（" in said
    assert "它在运行吗？地址对吗？" in said
    (trace,) = px.traces()
    assert f"{trace.name} 第 1 步：连不上 {down}" in said
    assert "：error，共 1 步" in said
    manifest = load(trace / "manifest.json")
    assert manifest["error"]["message"].startswith(f"step 1: cannot reach {down}: no connection")


def test_strict_check_is_chinese_on_the_terminal_english_in_the_answer_and_trace(
    zh, tmp_path: Path
) -> None:
    with FakeProvider() as server:
        step2 = _without_reasoning(server)
        with proxy(tmp_path / "px", "deepseek", base_url=server.url, strict_check=True) as px:
            answer = local_http.post(px.url + "/chat/completions", json=step2, headers=BEARER)
    assert answer.status_code == 400
    message = answer.json()["error"]["message"]
    assert message.startswith(
        "fc proxy --strict-check: not forwarded: FC112 error at $.messages[1]"
    )
    said = px.printed
    assert "fc proxy --strict-check：未转发：FC112 错误，位置 $.messages[1]：" in said
    # The provider's own 400 sentence is quoted as it is, after the Chinese.
    assert "（DeepSeek 会返回 HTTP 400：The `reasoning_content` in the thinking mode" in said
    (trace,) = px.traces()
    manifest = load(trace / "manifest.json")
    assert manifest["steps"][0]["checks"][0].startswith("FC112 error at $.messages[1]")
    assert "DeepSeek answers HTTP 400" in manifest["steps"][0]["checks"][0]


def test_an_answer_above_the_limit_is_said_in_chinese(zh, tmp_path: Path) -> None:
    with FakeProvider() as server, proxy(tmp_path / "px", server.url, max_record_bytes=2000) as px:
        server.fragment_size = 1
        local_http.post(px.url + CHAT, json={**ASK, "stream": True}, headers=BEARER)
    (trace,) = px.traces()
    assert "第 1 步：响应已转发，但没有记录：超过了 2,000 字节（--max-record-mb）" in px.printed
    message = load(trace / "manifest.json")["error"]["message"]
    assert message == (
        "step 1: the answer was forwarded, not recorded: above 2,000 bytes (--max-record-mb)"
    )


def test_proxy_usage_errors_in_chinese(fc) -> None:
    result = fc("--lang", "zh", "proxy", "--to", "nowhere")
    assert result.returncode == 2
    assert "未知的 --to 'nowhere'" in result.stderr
    assert "请给出一个厂商（" in result.stderr and "或一个 URL" in result.stderr
    result = fc("--lang", "zh", "proxy", "--to", "http://x:1", "--base-url", "http://y:2")
    assert "--base-url 只能和 --to 厂商名 一起用" in result.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = fc("--lang", "zh", "proxy", "--to", "openai", "--port", str(port))
    assert result.returncode == 2
    assert f"127.0.0.1 上的端口 {port} 已被占用（另一个 fc proxy 或 fc serve？）" in result.stderr
    assert "用 --port 换一个端口" in result.stderr


# ---------------------------------------------------------------------------------------------
# fc proxy: a trace made under zh is the one made under en


def _exchange(out: Path, server: FakeProvider) -> None:
    """Several outcomes, each writing what a trace keeps in words: a finished round trip, a
    step fc check finds an error in (its `checks`, the provider's 400), an answer above the
    limit, a conversation left open when the proxy stops."""
    step2 = _without_reasoning(server)
    with proxy(out, "deepseek", base_url=server.url, max_record_bytes=3000) as px:
        ask = {**ASK, "model": "deepseek-flash"}
        first = local_http.post(px.url + "/chat/completions", json=ask, headers=BEARER).json()
        turn = first["choices"][0]["message"]
        results = [
            {"role": "tool", "tool_call_id": c["id"], "content": '{"temp_c": 20}'}
            for c in turn["tool_calls"]
        ]
        done = {**ask, "messages": [*ask["messages"], turn, *results]}
        assert local_http.post(px.url + "/chat/completions", json=done, headers=BEARER).is_success
        shanghai = {
            **step2,
            "messages": [{"role": "user", "content": "上海呢？"}, *step2["messages"][1:]],
        }
        local_http.post(px.url + "/chat/completions", json=shanghai, headers=BEARER)
        server.fragment_size = 1
        big = {**ask, "stream": True, "messages": [{"role": "user", "content": "北京今天下雨吗？"}]}
        local_http.post(px.url + "/chat/completions", json=big, headers=BEARER)
        server.fragment_size = None
        open_one = {**ask, "messages": [{"role": "user", "content": "广州今天热吗？"}]}
        local_http.post(px.url + "/chat/completions", json=open_one, headers=BEARER)
        px.traces()


def _files(out: Path) -> dict[str, bytes | Any]:
    """Every file of every trace, by the trace's name without its time; manifests without
    their times (and the fake provider's address)."""
    found: dict[str, bytes | Any] = {}
    for trace in sorted(out.iterdir()):
        name = trace.name.split("-", 2)[-1]
        for file in sorted(trace.iterdir()):
            key = f"{name}/{file.name}"
            if file.name == "manifest.json":
                found[key] = without_times(load(file))
                found[key].pop("base_url")  # each language's fake provider has its own port
            else:
                found[key] = file.read_bytes()
    return found


def test_a_proxy_trace_is_the_same_under_en_and_zh(tmp_path: Path) -> None:
    made = {}
    for lang in ("en", "zh"):
        i18n.set_language(lang)
        with FakeProvider() as server:
            _exchange(tmp_path / lang, server)
        made[lang] = _files(tmp_path / lang)
    i18n.set_language("en")
    assert made["zh"] == made["en"]
    manifests = [v for k, v in made["en"].items() if k.endswith("manifest.json")]
    said = json.dumps(manifests, ensure_ascii=False)
    # What the comparison covers: each outcome wrote its words.
    assert "FC112 error at" in said and "DeepSeek answers HTTP 400" in said
    assert "the provider answered HTTP 400" in said
    assert "forwarded, not recorded: above 3,000 bytes" in said
    assert "fc proxy stopped before the conversation ended" in said
    assert sorted(m["status"] for m in manifests) == ["error", "error", "interrupted", "ok"]


# ---------------------------------------------------------------------------------------------
# fc serve


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A trace fc run wrote talking to the fake provider (openai, not streamed)."""
    root = tmp_path_factory.mktemp("serve")
    with FakeProvider() as fake:
        ran = run_in_process(
            ["run", "杭州今天适合跑步吗？", "-p", "openai", "--base-url", fake.url, "-o", "t"],
            cwd=root,
            env=clean_env(OPENAI_API_KEY=DEFAULT_KEY),
            input=None,
            terminal=False,
        )
        assert ran.returncode == 0, ran.stderr
    return root / "t"


def _served(trace: Path, lang: str) -> tuple[list[str], list[dict[str, Any]]]:
    """What fc serve says, and the bodies it answers, to a few requests, under `lang`."""
    i18n.set_language(lang)
    lines: list[str] = []
    bodies = []
    request = json.loads((trace / "1-request.openai.json").read_bytes())
    with InThread(make_app(load_recordings([trace]), lines.append), bind("127.0.0.1", 0)) as s:
        chat = s.url + CHAT

        def post(body: Any) -> None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            answer = local_http.post(chat, content=data, timeout=10)
            bodies.append({"status": answer.status_code, "body": answer.text})

        post(request)
        post({**request, "model": "gpt-other", "temperature": 0})
        post({**request, "stream": True})
        post(b"{not json")
        post(b"")
        bodies.append({"body": local_http.get(s.url + "/v1/models", timeout=10).text})
    i18n.set_language("en")
    return lines, bodies


def test_serve_says_chinese_and_answers_the_agent_in_english(recorded: Path) -> None:
    lines, bodies = _served(recorded, "zh")
    assert lines[0] == "POST /v1/chat/completions: 第 1 步"
    assert lines[1] == (
        "POST /v1/chat/completions: HTTP 400: 没有哪一步录下的请求与这个请求匹配；最接近的是"
        "第 1 步：model 不同：录下的是 'gpt-4.1-mini'，收到的是 'gpt-other'（另有 1 处不同）"
    )
    assert lines[2] == "  另外：temperature 没有录下：收到的是 0"
    assert "第 1 步匹配，但它录制时不是流式的" in lines[3]
    assert "（fc run --stream）" in lines[3]
    assert "请求体不是 JSON（" in lines[4]
    assert lines[5].endswith("HTTP 400: 请求体是空的：没有 JSON 请求")
    assert lines[6] == (
        "GET /v1/models: HTTP 404: 这里没有 GET /v1/models：它只回答 POST /v1/chat/completions"
    )
    en_lines, en_bodies = _served(recorded, "en")
    assert bodies == en_bodies  # what an SDK parses is wire data: English
    assert "came closest: model differs" in bodies[1]["body"]
    assert en_lines[1].endswith(
        "step 1 came closest: model differs: recorded 'gpt-4.1-mini', got 'gpt-other' "
        "(and 1 more difference)"
    )


def test_serve_opening_lines_in_chinese(zh, recorded: Path) -> None:
    from fccli.serve.start import opening

    both = [recorded, recorded]
    assert opening(load_recordings(both), both, "http://10.0.0.2:1", "0.0.0.0") == [
        "fc serve：在 http://10.0.0.2:1 上回放 2 条轨迹中的 4 步（openai）",
        "把 agent 指向它：OPENAI_BASE_URL=http://10.0.0.2:1/v1",
        "警告：正在监听 0.0.0.0，不只是本机：任何能访问到它的人都能拿到轨迹里的响应",
        "按 Ctrl-C 停止",
    ]
    one = opening(load_recordings([recorded]), [recorded], "http://127.0.0.1:9", "127.0.0.1")
    assert one[0] == f"fc serve：在 http://127.0.0.1:9 上回放 {recorded} 中的 2 步（openai）"


def test_serve_errors_in_chinese(fc, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "manifest.json").write_text('{"steps": []}', "utf-8")
    internal = tmp_path / "internal"
    internal.mkdir()
    (internal / "manifest.json").write_text('{"steps": [{"step": 1}]}', "utf-8")
    (internal / "1-request.json").write_text('{"model": "m", "messages": []}', "utf-8")
    result = fc("--lang", "zh", "serve", "empty")
    assert result.returncode == 2 and "empty 里没有步：没有可回放的内容" in result.stderr
    result = fc("--lang", "zh", "serve", "internal")
    assert result.returncode == 2
    assert "internal 里没有厂商格式文件：fc serve 用厂商发来的原始字节作答" in result.stderr
    assert "轨迹里需要有 N-request.<format>.json" in result.stderr


# ---------------------------------------------------------------------------------------------
# fc export


def test_export_says_what_it_did_in_chinese(fc, tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.proto")
    trace = tmp_path / "lacking"
    shutil.copytree(EXAMPLES / "three-cities", trace)
    (trace / "2-response.json").unlink()
    (trace / "2-response.deepseek.json").unlink()
    zh = fc("--lang", "zh", "export", "otel", "lacking", "-o", "zh.jsonl")
    en = fc("--lang", "en", "export", "otel", "lacking", "-o", "en.jsonl")
    assert zh.returncode == en.returncode == 0, zh.stderr
    assert (tmp_path / "zh.jsonl").read_bytes() == (tmp_path / "en.jsonl").read_bytes()
    lines = zh.stdout.splitlines()
    assert lines[0].startswith("lacking：trace ") and lines[0].endswith(" 个 span")
    assert "  注意：第 2 步：读不出响应，它的 span 里没有响应" in lines
    assert lines[-1] == "已导出 1 条轨迹到 zh.jsonl（json）"
    assert en.stdout.splitlines()[-1] == "exported 1 trace(s) to en.jsonl (json)"
    assert "  note: step 2: no answer could be read; its span has none" in en.stdout.splitlines()


def test_export_errors_in_chinese(fc) -> None:
    pytest.importorskip("opentelemetry.proto")
    trace = str(EXAMPLES / "three-cities")
    result = fc("--lang", "zh", "export", "otel", trace, "--endpoint", "http://x", "-o", "f")
    assert result.returncode == 2 and "--endpoint 和 -o 只能给一个" in result.stderr
    result = fc("--lang", "zh", "export", "otel", trace)
    assert result.returncode == 2
    assert "导出到哪里？请给出 --endpoint URL 或 -o FILE" in result.stderr
    assert "或者设置 OTEL_EXPORTER_OTLP_ENDPOINT" in result.stderr
    result = fc("--lang", "zh", "export", "otel", trace, "-o", "f", "--format", "xml")
    assert "未知的 --format 'xml'" in result.stderr and "可选 json 或 protobuf" in result.stderr
    env = clean_env(OTEL_EXPORTER_OTLP_HEADERS="broken")
    result = fc("--lang", "zh", "export", "otel", trace, "--endpoint", "http://x", env=env)
    assert result.returncode == 2
    assert "OTEL_EXPORTER_OTLP_HEADERS：第 1 项不是 key=value 形式" in result.stderr


def test_the_live_export_of_a_run_is_said_in_chinese(fc, tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.proto")
    from tests.support.otlp_receiver import OtlpReceiver

    with OtlpReceiver() as receiver:
        ran = fc("--lang", "zh", "run", "杭州今天适合跑步吗？", "-o", "t", "--otlp", receiver.url)
        assert ran.returncode == 0, ran.stderr
        trace_id = receiver.spans()[0].trace_id.hex()
        assert f"已导出 trace {trace_id} 到 {receiver.url}/v1/traces" in ran.stderr
        receiver.script = [{"status": 400, "body": "\n  invalid span: trace_id\n"}]
        sent = fc("--lang", "zh", "export", "otel", "t", "--endpoint", receiver.url)
    assert sent.returncode == 3
    # The collector's own words are quoted as they came.
    assert f"{receiver.url}/v1/traces 回答了 HTTP 400：invalid span: trace_id" in sent.stderr


def test_fc_proxy_as_a_process_speaks_the_locales_language(tmp_path: Path) -> None:
    """`LANG=zh_CN.UTF-8 fc proxy`: the banner, a step and Ctrl-C's lines, from the process."""
    import signal
    import subprocess
    import sys

    with FakeProvider() as server:
        process = subprocess.Popen(
            [sys.executable, "-m", "fccli", "proxy", "--to", server.url, "--port", "0", "-o", "px"],
            cwd=tmp_path,
            env=clean_env(PYTHONUNBUFFERED="1", LANG="zh_CN.UTF-8"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            banner = process.stdout.readline() if process.stdout else ""
            port = int(banner.split("http://127.0.0.1:", 1)[1].split()[0])
            answer = local_http.post(f"http://127.0.0.1:{port}{CHAT}", json=ASK, headers=BEARER)
            assert answer.status_code == 200
            process.send_signal(signal.SIGINT)
            process.wait(timeout=20)
            out = banner + (process.stdout.read() if process.stdout else "")
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 130
    assert out.startswith("fc proxy 监听 http://127.0.0.1:")
    assert "把你的 agent 指向这里：" in out and "轨迹保存在 px 下；按 Ctrl-C 停止" in out
    assert "新轨迹 px/" in out
    assert "fc proxy 已停止；1 条未结束的轨迹已关闭，记为 interrupted（已中断）：" in out
    (trace,) = (tmp_path / "px").iterdir()
    manifest = json.loads((trace / "manifest.json").read_text("utf-8"))
    assert manifest["error"]["message"] == "fc proxy stopped before the conversation ended"
