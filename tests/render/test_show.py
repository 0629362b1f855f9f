"""`fc show`: a trace as a transcript (golden files at width 100, no colour), one file in any
format, the wire files, JSON and HTML, failed traces, and errors as one line with exit 2."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from fccli.core.jsonio import dumps
from fccli.cost.money import usd
from fccli.render.transcript import render_document, render_trace, render_trace_list
from fccli.trace.reader import read_document, read_trace, resolve_trace, trace_summary
from tests.conftest import REPO, clean_env
from tests.support import golden

EXAMPLES = REPO / "traces" / "examples"
NAMES = sorted(p.name for p in EXAMPLES.iterdir() if (p / "manifest.json").is_file())


def copy_example(tmp_path: Path, name: str = "hangzhou", to: str | None = None) -> Path:
    target = tmp_path / (to or name)
    shutil.copytree(EXAMPLES / name, target)
    return target


def load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def save(path: Path, data: Any) -> None:
    path.write_text(dumps(data), encoding="utf-8")


def transcript(path: Path, **options: Any) -> str:
    console = golden.string_console()
    render_trace(console, read_trace(path), **options)
    return golden.output(console)


# ---------------------------------------------------------------------------------------------
# the example traces


@pytest.mark.parametrize("name", NAMES)
def test_example_transcripts_match_their_golden_files(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    golden.check(f"show-{name}.txt", transcript(Path("traces/examples") / name))


@pytest.mark.parametrize("name", NAMES)
def test_every_call_id_argument_result_and_stop_reason_is_shown(name: str) -> None:
    out = transcript(EXAMPLES / name)
    trace = EXAMPLES / name
    steps = load(trace / "manifest.json")["steps"]
    for record in steps:
        response = load(trace / f"{record['step']}-response.json")
        assert f" {response['stop_reason']} " in out
        assert f"(on the wire: {record['wire_stop_reason']})" in out
        for block in response["content"]:
            if block["type"] == "tool_use":
                assert f"▶ call {block['name']} (tool 1)  id {block['id']}" in out
                assert json.dumps(block["input"], ensure_ascii=False) in out
            if block["type"] == "text":
                assert block["text"].split("\n")[0] in out
    last = load(trace / f"{len(steps)}-request.json")
    for message in last["messages"]:
        for block in message["content"]:
            if block["type"] == "tool_result":
                mark = "✗ error result" if block["is_error"] else "✓ result"
                assert f"{mark} for {block['tool_use_id']}" in out
                assert block["content"] in out


def test_the_cli_through_a_pipe_prints_the_golden_text_without_colour(fc) -> None:
    for env in (clean_env(), {k: v for k, v in clean_env().items() if k != "NO_COLOR"}):
        result = fc("show", "traces/examples/three-cities", cwd=REPO, env=env)
        assert result.returncode == 0, result.stderr
        assert "\x1b[" not in result.stdout
        expected = (golden.GOLDEN / "show-three-cities.txt").read_text("utf-8")
        assert golden.without_times(result.stdout) == expected


def test_colour_on_a_terminal_and_never_with_no_color() -> None:
    from rich.console import Console

    from fccli.render.console import make_console

    coloured = Console(file=__import__("io").StringIO(), force_terminal=True, width=100)
    render_trace(coloured, read_trace(EXAMPLES / "hangzhou"))
    assert "\x1b[" in coloured.file.getvalue()  # type: ignore[attr-defined]
    probe = (
        "import os, sys; os.environ['NO_COLOR']='1'\n"
        "from fccli.render.console import make_console\n"
        "c = make_console(); print(c.no_color)"
    )
    assert (
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True
        ).stdout.strip()
        == "True"
    )
    del make_console


def test_the_newest_trace_under_traces_is_shown_by_default(fc, tmp_path: Path) -> None:
    root = tmp_path / "traces"
    older = copy_example(root, "hangzhou", "20261130-101500-hangzhou")
    newer = copy_example(root, "unknown-city", "a-trace-named-by-hand")
    for path, started in (
        (older, "2026-11-30T10:15:00.000+00:00"),
        (newer, "2026-12-01T08:00:00.000+00:00"),
    ):
        manifest = load(path / "manifest.json")
        manifest["started_at"] = started
        save(path / "manifest.json", manifest)
    lower = copy_example(root / "examples", "three-cities")  # one level down counts too
    manifest = load(lower / "manifest.json")
    manifest["started_at"] = "2026-11-29T10:15:00.000+00:00"  # and is older
    save(lower / "manifest.json", manifest)
    assert resolve_trace(None, root) == newer
    result = fc("show")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("trace traces/a-trace-named-by-hand\n")


def test_with_no_argument_the_trace_fc_wrote_last_from_here_is_shown(fc, tmp_path: Path) -> None:
    """Wherever -o put it (a folder of here, one elsewhere), else the newest under ./traces:
    whichever began later; a remembered trace since deleted is passed over."""
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere" / "deep" / "t"
    assert fc("run", "杭州？", "-o", "mine").returncode == 0
    assert fc("show").stdout.startswith("trace mine\n")
    assert fc("run", "上海？", "-o", str(elsewhere)).returncode == 0
    assert fc("show").stdout.startswith(f"trace {elsewhere}\n")
    assert fc("show", "--json").returncode == 0
    assert fc("run", "北京？").returncode == 0  # into ./traces: later than both
    assert fc("show").stdout.startswith("trace traces/")
    assert fc("show", cwd=tmp_path / "mine").returncode == 2  # another directory: nothing there
    assert fc("run", "深圳？", "-o", "mine2").returncode == 0
    shutil.rmtree(tmp_path / "mine2")
    assert fc("show").stdout.startswith("trace traces/")


def test_step_shows_one_step_and_an_unknown_step_is_exit_2(fc) -> None:
    result = fc("show", "traces/examples/three-cities", "--step", "2", cwd=REPO)
    assert result.returncode == 0
    assert "step 2 ─" in result.stdout and "step 1 ─" not in result.stdout
    # The offer is shown in full when its step is shown alone.
    assert "1. get_weather(city: string)" in result.stdout
    result = fc("show", "traces/examples/three-cities", "--step", "7", cwd=REPO)
    assert result.returncode == 2
    assert result.stderr.splitlines()[0].endswith("has no step 7")
    assert result.stdout == ""


def test_thinking_is_shortened_unless_asked(tmp_path: Path) -> None:
    trace = copy_example(tmp_path, "three-cities")
    thinking = load(trace / "2-response.json")["content"][0]["thinking"]
    assert len(thinking) > 120
    short = transcript(trace)
    assert thinking not in short and f"({len(thinking)} chars; --thinking shows all)" in short
    assert thinking in transcript(trace, thinking=True)


def test_long_results_are_folded_with_their_size(tmp_path: Path) -> None:
    trace = copy_example(tmp_path)
    request = load(trace / "2-request.json")
    long = "\n".join(f"line {i}: " + "天气" * 20 for i in range(40))
    request["messages"][2]["content"][0]["content"] = long
    save(trace / "2-request.json", request)
    folded = transcript(trace)
    assert f"[folded: {len(long):,} chars, 40 lines in all; --full shows everything]" in folded
    assert "line 39" not in folded
    assert "line 39" in transcript(trace, full=True)


# ---------------------------------------------------------------------------------------------
# traces that stopped early, or hold unexpected files


def failed_trace(tmp_path: Path) -> Path:
    """hangzhou, as if step 2's request had failed with HTTP 503 after three attempts."""
    trace = copy_example(tmp_path)
    for name in ("2-response.json", "2-response.deepseek.json"):
        (trace / name).unlink()
    manifest = load(trace / "manifest.json")
    manifest["steps"] = manifest["steps"][:1]
    manifest["steps"][0]["attempts"] = [
        {"attempt": 1, "waited_s": 0, "status": 429, "duration_ms": 3.1},
        {"attempt": 2, "waited_s": 1.0, "status": 200, "duration_ms": 40.2},
    ]
    manifest["status"] = "error"
    manifest["final_answer"] = None
    manifest["error"] = {
        "kind": "ProviderError",
        "message": "step 2: HTTP 503: overloaded (after 3 attempts)",
        "step": 2,
        "http_status": 503,
        "attempts": [
            {"attempt": 1, "status": 503},
            {"attempt": 2, "error": "ConnectError: refused"},
            {"attempt": 3, "status": 503},
        ],
        "body_excerpt": "<html><body>503 Service Unavailable</body></html>",
    }
    save(trace / "manifest.json", manifest)
    return trace


def test_a_failed_trace_says_where_and_why_it_stopped(tmp_path: Path) -> None:
    out = transcript(failed_trace(tmp_path))
    assert "status error" in out
    assert "2 attempts: 429 then 200" in out  # step 1's retries
    step2 = out.split("step 2 ─")[1]
    assert "→ request: 3 messages, 1 tool result handed back" in step2
    assert "← no response" in step2
    assert "✗ stopped here: ProviderError: HTTP 503: overloaded (after 3 attempts)" in step2
    assert "3 attempts: 503 then ConnectError then 503" in step2
    assert "the provider sent: <html><body>503 Service Unavailable</body></html>" in step2
    # Said once, under its step; the last line says what and where only.
    assert out.count("overloaded") == 1
    assert out.endswith(
        "\nstopped at step 2 (ProviderError, HTTP 503): the reason is under step 2\n"
    )
    # The result was handed back in step 2's request, so it is shown under step 1's call.
    assert "✓ result for call_" in out.split("step 2 ─")[0]


def test_a_missing_internal_file_is_read_from_the_wire_file(tmp_path: Path) -> None:
    trace = copy_example(tmp_path)
    (trace / "1-response.json").unlink()
    out = transcript(trace)
    assert "1-response.json is missing; read from 1-response.deepseek.json instead" in out
    assert "▶ call get_weather (tool 1)" in out


def test_a_wire_response_that_is_not_json_is_noted_not_fatal(fc, tmp_path: Path) -> None:
    trace = failed_trace(tmp_path)
    (trace / "2-response.deepseek.json").write_text("<html>502 Bad Gateway</html>")
    result = fc("show", str(trace))
    assert result.returncode == 0, result.stderr
    assert "2-response.deepseek.json: not valid JSON" in result.stdout
    assert "(what the provider sent)" in result.stdout
    wire = fc("show", str(trace), "--wire", "--step", "2")
    assert "<html>502 Bad Gateway</html>" in wire.stdout


def test_an_unfinished_run_and_a_run_cut_at_max_steps_say_so(tmp_path: Path) -> None:
    trace = copy_example(tmp_path)
    manifest = load(trace / "manifest.json")
    manifest["status"] = "running"
    save(trace / "manifest.json", manifest)
    assert "not finished: status running" in transcript(trace)
    manifest["status"] = "max_steps"
    manifest["options"]["max_steps"] = 2
    save(trace / "manifest.json", manifest)
    assert "stopped: --max-steps 2 reached before the model answered" in transcript(trace)


def test_a_call_never_answered_and_a_call_not_executed(tmp_path: Path) -> None:
    trace = copy_example(tmp_path)
    for name in (
        "2-request.json",
        "2-request.deepseek.json",
        "2-response.json",
        "2-response.deepseek.json",
    ):
        (trace / name).unlink()
    manifest = load(trace / "manifest.json")
    manifest["steps"] = manifest["steps"][:1]
    run = manifest["steps"][0]["tool_runs"][0]
    save(trace / "manifest.json", manifest)
    out = transcript(trace)
    assert "✓ executed" in out and "the result was never handed back" in out
    response = load(trace / "1-response.json")
    response["stop_reason"] = "max_tokens"
    save(trace / "1-response.json", response)
    manifest["steps"][0]["tool_runs"] = []
    save(trace / "manifest.json", manifest)
    assert "not executed: the stop reason is max_tokens, not tool_use" in transcript(trace)
    del run


# ---------------------------------------------------------------------------------------------
# --wire, --json, --html


def test_wire_shows_the_wire_files_pretty_even_when_stored_compact(fc, tmp_path: Path) -> None:
    trace = copy_example(tmp_path)
    body = load(trace / "1-response.deepseek.json")
    # A real provider's body, as received: compact, on one line.
    (trace / "1-response.deepseek.json").write_text(json.dumps(body, separators=(",", ":")))
    result = fc("show", str(trace), "--wire")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith(f"trace {trace}: the deepseek wire files, as stored\n")
    for name in ("1-request.deepseek.json", "1-response.deepseek.json", "2-request.deepseek.json"):
        assert f"\n{name}\n" in out
    assert '\n        "reasoning_content": "用户想知道' in out  # indented, not one line
    assert "1-request.json" not in out


def test_json_gives_each_call_with_its_result(fc) -> None:
    result = fc("show", "traces/examples/three-cities", "--json", cwd=REPO)
    data = json.loads(result.stdout)
    assert data["trace"] == "traces/examples/three-cities"
    assert data["manifest"]["status"] == "ok"
    calls = data["steps"][0]["calls"]
    assert [c["input"]["city"] for c in calls] == ["北京", "上海", "深圳"]
    assert all(c["result"]["tool_use_id"] == c["id"] for c in calls)
    assert all(c["run"]["id"] == c["id"] for c in calls)
    assert data["steps"][1]["response"]["stop_reason"] == "end_turn"
    assert "1-request.deepseek.json" in data["steps"][0]["files"]


# ---------------------------------------------------------------------------------------------
# one file


@pytest.mark.parametrize(
    ("name", "golden_name"),
    [
        ("three-cities/2-request.deepseek.json", "show-file-three-cities-2-request-deepseek.txt"),
        ("unknown-city/1-response.json", "show-file-unknown-city-1-response.txt"),
    ],
)
def test_a_single_file_is_shown_in_any_format(
    name: str, golden_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EXAMPLES)
    console = golden.string_console()
    render_document(console, read_document(name), thinking=False, full=False)
    golden.check(golden_name, golden.output(console))


def test_a_messages_array_from_stdin(fc) -> None:
    messages = load(EXAMPLES / "unknown-city" / "2-request.deepseek.json")["messages"]
    result = fc("show", "-", input=json.dumps(messages))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("<stdin>: a deepseek messages array")
    assert "user  $[0]" in result.stdout
    assert "✗ error result for call_b9a07a70e3fb7c9d9b9e3516" in result.stdout


def test_a_result_without_its_call_is_flagged(fc, tmp_path: Path) -> None:
    request = load(EXAMPLES / "hangzhou" / "2-request.json")
    del request["messages"][1]  # the assistant turn with the call
    save(tmp_path / "r.json", request)
    out = fc("show", "r.json").stdout
    assert "result for call_3a59e4a9768d1b816e073447: no call with this id before it" in out


def test_json_of_a_file_is_its_internal_form(fc) -> None:
    result = fc("show", str(EXAMPLES / "hangzhou" / "1-response.deepseek.json"), "--json")
    data = json.loads(result.stdout)
    assert (data["format"], data["kind"]) == ("deepseek", "response")
    assert data["internal"] == load(EXAMPLES / "hangzhou" / "1-response.json")


# ---------------------------------------------------------------------------------------------
# errors: exit 2, one line


@pytest.mark.parametrize(
    ("setup", "args", "says"),
    [
        (
            lambda d: (d / "bad.json").write_text('{"model": '),
            ["bad.json"],
            "bad.json: not valid JSON",
        ),
        (
            lambda d: (d / "u.json").write_text('{"hello": 1}'),
            ["u.json"],
            "not a request or response fc can read",
        ),
        (lambda d: (d / "empty").mkdir(), ["empty"], "is not an fc trace: it has no manifest.json"),
        (lambda d: None, ["missing"], "missing: no such file or directory"),
        (lambda d: None, [], "no trace given and no traces/ directory here"),
        (
            lambda d: (d / "r.json").write_text(
                '{"model": "m", "messages": [{"role": "user", "content": [{"type": "tool_use"}]}]}'
            ),
            ["r.json"],
            "r.json, at $.messages[0].content[0].id: Field required",
        ),
        (
            lambda d: (d / "s.sse").write_text('data: {"choices": []}\n\ndata: [DONE]\n'),
            ["s.sse"],
            "is a server-sent event stream, not a JSON document",
        ),
        (
            lambda d: (d / "r.json").write_text('{"model": "m", "messages": []}'),
            ["r.json", "--step", "1"],
            "--step is for a trace",
        ),
    ],
)
def test_bad_input_is_exit_2_with_one_clear_line(
    fc, tmp_path: Path, setup: Any, args: list[str], says: str
) -> None:
    setup(tmp_path)
    result = fc("show", *args)
    assert result.returncode == 2, result.stdout
    assert says in result.stderr.splitlines()[0]
    assert result.stderr.startswith("fc: error: ")
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) <= 2


def test_a_broken_manifest_is_exit_2(fc, tmp_path: Path) -> None:
    trace = copy_example(tmp_path)
    (trace / "manifest.json").write_text("[1, 2]")
    result = fc("show", str(trace))
    assert result.returncode == 2
    assert "not an fc trace manifest" in result.stderr


# ---------------------------------------------------------------------------------------------
# layering


def test_renderers_import_no_wire_provider_or_transport() -> None:
    probe = (
        "import sys\n"
        "import fccli.render.transcript, fccli.render.diff_view\n"
        "print(sorted(m for m in sys.modules if m.startswith(('fccli.wire', 'fccli.providers', 'fccli.providers.transport'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_step_that_kept_only_its_raw_stream_says_so(tmp_path: Path) -> None:
    trace = copy_example(tmp_path)
    (trace / "2-response.deepseek.json").rename(trace / "2-response.deepseek.sse")
    (trace / "2-response.json").unlink()
    out = transcript(trace)
    assert "only the raw stream was kept (2-response.deepseek.sse): fc show --wire shows it" in out


def test_html_and_json_together_are_refused(fc, tmp_path: Path) -> None:
    result = fc("show", str(EXAMPLES / "hangzhou"), "--html", "x.html", "--json")
    assert result.returncode == 2
    assert result.stderr == "fc: error: --html and --json: choose one\n"


# ---------------------------------------------------------------------------------------------
# what a tester tried from a fresh clone


def test_a_traces_manifest_shows_its_trace(fc) -> None:
    result = fc("show", "traces/examples/hangzhou/manifest.json", cwd=REPO)
    assert result.returncode == 0, result.stderr
    expected = (golden.GOLDEN / "show-hangzhou.txt").read_text("utf-8")
    assert golden.without_times(result.stdout) == expected
    as_json = fc("show", "traces/examples/hangzhou/manifest.json", "--json", cwd=REPO)
    assert json.loads(as_json.stdout)["trace"] == "traces/examples/hangzhou"


def test_a_manifest_on_stdin_is_not_called_an_error_body(fc) -> None:
    manifest = (EXAMPLES / "hangzhou" / "manifest.json").read_text("utf-8")
    result = fc("show", "-", input=manifest)
    assert result.returncode == 2
    assert result.stderr == (
        "fc: error: <stdin>: this is a trace's manifest; give a request or response file "
        "(or `fc show DIR`)\n"
    )


INCORRECT_KEY = (
    "Incorrect API key provided: sk-te****123. You can find your API key at "
    "https://platform.openai.com/account/api-keys."
)


def refused_trace(tmp_path: Path) -> Path:
    """hangzhou, as if step 2 had been answered HTTP 401 (the body kept as the response)."""
    trace = copy_example(tmp_path)
    (trace / "2-response.json").unlink()
    body = {"error": {"message": INCORRECT_KEY, "type": "invalid_request_error", "code": "x"}}
    (trace / "2-response.deepseek.json").write_text(json.dumps(body))  # compact, as received
    manifest = load(trace / "manifest.json")
    manifest["steps"] = manifest["steps"][:1]
    manifest["status"] = "error"
    manifest["error"] = {
        "kind": "ProviderError",
        "message": f"step 2: deepseek answered HTTP 401: {INCORRECT_KEY}",
        "step": 2,
        "http_status": 401,
        "attempts": [{"attempt": 1, "waited_s": 0.0, "status": 401, "duration_ms": 7.2}],
    }
    save(trace / "manifest.json", manifest)
    return trace


def test_a_providers_error_body_is_called_that_and_the_reason_is_said_once(
    tmp_path: Path,
) -> None:
    out = transcript(refused_trace(tmp_path))
    step2 = out.split("step 2 ─")[1]
    assert "cannot be read as deepseek" not in out
    assert (
        f"! 2-response.deepseek.json: the provider's error body (HTTP 401): {INCORRECT_KEY}\n"
        in step2
    )
    assert out.count("Incorrect API key") == 1
    assert (
        "✗ stopped here: ProviderError: deepseek answered HTTP 401 (its error body is above)"
        in step2
    )
    assert out.endswith(
        "\nstopped at step 2 (ProviderError, HTTP 401): the reason is under step 2\n"
    )
    assert "step 2: deepseek answered" not in out


def test_a_real_refusal_end_to_end(fc, fake_provider, tmp_path: Path) -> None:
    fake_provider.script = [{"status": 401}]
    env = clean_env(DEEPSEEK_API_KEY="sk-test-fake-key-123")
    run = ("run", "杭州今天适合跑步吗？", "-p", "deepseek", "--base-url", fake_provider.url)
    ran = fc(*run, "--retries", "0", "-o", "t", env=env)
    assert ran.returncode == 3, ran.stderr
    result = fc("show", "t")
    assert result.returncode == 0, result.stderr
    assert "1-response.deepseek.json: the provider's error body (HTTP 401): " in result.stdout
    assert "cannot be read as" not in result.stdout
    assert (
        "stopped at step 1 (ProviderError, HTTP 401): the reason is under step 1" in result.stdout
    )


def test_an_interrupted_trace_says_so_once(tmp_path: Path) -> None:
    trace = failed_trace(tmp_path)
    manifest = load(trace / "manifest.json")
    manifest["status"] = "interrupted"
    manifest["error"] = {
        "kind": "Interrupted",
        "message": "interrupted at step 2 while waiting for the model",
        "step": 2,
        "http_status": None,
    }
    save(trace / "manifest.json", manifest)
    out = transcript(trace)
    assert "✗ interrupted here (Ctrl-C) while waiting for the model\n" in out.split("step 2 ─")[1]
    assert out.endswith("\ninterrupted at step 2 (Ctrl-C); the trace keeps what it had\n")
    assert out.count("interrupted at step 2") == 1
    assert out.count("while waiting for the model") == 1
    # Alone (the step not there to say it), the last line says it all.
    manifest["error"]["step"] = 3
    save(trace / "manifest.json", manifest)
    assert transcript(trace).endswith(
        "\ninterrupted at step 3 (Ctrl-C) while waiting for the model\n"
    )


def test_json_with_wire_gives_the_wire_files(fc, tmp_path: Path) -> None:
    trace = refused_trace(tmp_path)
    (trace / "1-response.deepseek.sse").write_text("data: {}\n\n")  # a raw stream: as text
    (trace / "2-response.deepseek.json").write_text("<html>401</html>")
    result = fc("show", str(trace), "--json", "--wire")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["wire_format"] == "deepseek"
    step1, step2 = data["steps"]
    assert [f["file"] for f in step1["files"]] == [
        "1-request.deepseek.json",
        "1-response.deepseek.json",
        "1-response.deepseek.sse",
    ]
    assert step1["files"][0]["json"] == load(trace / "1-request.deepseek.json")
    assert step2["files"][1] == {"file": "2-response.deepseek.json", "text": "<html>401</html>"}
    one = fc("show", str(trace), "--json", "--wire", "--step", "1")
    assert [s["step"] for s in json.loads(one.stdout)["steps"]] == [1]
    single = fc("show", str(trace / "1-request.deepseek.json"), "--json", "--wire")
    data = json.loads(single.stdout)
    assert (data["format"], data["kind"]) == ("deepseek", "request")
    assert data["json"] == load(trace / "1-request.deepseek.json")


def test_a_folder_of_traces_lists_them(fc, tmp_path: Path) -> None:
    # A copy: the checkout's traces/ also holds whatever the user's own runs left there.
    shutil.copytree(EXAMPLES, tmp_path / "traces/examples")
    result = fc("show", "traces/examples")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == (
        f"traces/examples is a folder of {len(NAMES)} traces, not a trace "
        "(newest first; fc show one of them):"
    )
    assert sorted(line.split()[0] for line in lines[1:]) == [
        f"traces/examples/{name}" for name in NAMES
    ]
    # columns as wide as the longest name; the cost as the manifest records it
    cost = usd(Decimal(repr(load(EXAMPLES / "hangzhou" / "manifest.json")["cost"]["usd"])))
    assert (
        "  traces/examples/hangzhou            ok          2 steps   demo       "
        f"{cost:<10}杭州今天适合跑步吗？" in lines
    )
    data = json.loads(fc("show", "traces", "--json").stdout)
    assert sorted(t["trace"] for t in data["traces"]) == [f"traces/examples/{n}" for n in NAMES]
    refused = fc("show", "traces/examples", "--step", "1")
    assert refused.returncode == 2
    assert refused.stderr.startswith(
        f"fc: error: traces/examples is a folder of {len(NAMES)} traces; --step reads one of them\n"
    )


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("[" * 5000, "deep.json: nested too deeply (more than 100 levels of arrays and objects)"),
        ("", "deep.json: empty file"),
    ],
)
def test_nested_too_deeply_and_empty_are_exit_2_in_one_line(
    fc, tmp_path: Path, content: str, says: str
) -> None:
    (tmp_path / "deep.json").write_text(content)
    for args in (
        ["show", "deep.json"],
        ["diff", "deep.json", "deep.json"],
        ["convert", "deep.json", "--to", "openai"],
    ):
        result = fc(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr == f"fc: error: {says}\n", args


def test_the_headers_control_characters_are_shown_escaped_not_dropped(tmp_path: Path) -> None:
    import io

    from fccli.render.console import make_console

    trace = copy_example(tmp_path, to="t\x07dir")
    manifest = load(trace / "manifest.json")
    manifest.update(question="q\x07uestion", model="m\x07odel", provider="p\x07rovider")
    manifest["mcp_servers"] = [
        {
            "name": "s\x07erver",
            "server": "g\x07iven",
            "transport": "t\x07ransport",
            "protocol_version": "v\x07ersion",
            "server_info": {"name": "i\x07nfo", "version": "1"},
            "log": "l\x07og.jsonl",
        }
    ]
    save(trace / "manifest.json", manifest)
    console = make_console(file=io.StringIO(), width=100)
    render_trace(console, read_trace(trace))
    header = console.file.getvalue().split("step 1")[0]  # type: ignore[attr-defined]
    assert "\x07" not in header
    for shown in ("t\\x07dir", "q\\x07uestion", "m\\x07odel", "p\\x07rovider", "s\\x07erver"):
        assert shown in header
    for shown in ("g\\x07iven", "t\\x07ransport", "v\\x07ersion", "i\\x07nfo", "l\\x07og"):
        assert shown in header
    listed = make_console(file=io.StringIO(), width=100)
    render_trace_list(listed, tmp_path, [trace_summary(trace)])
    listing = listed.file.getvalue()  # type: ignore[attr-defined]
    assert "\x07" not in listing
    for shown in ("t\\x07dir", "q\\x07uestion", "p\\x07rovider"):
        assert shown in listing
