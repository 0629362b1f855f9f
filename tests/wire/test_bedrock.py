"""The Bedrock Converse format end to end: `fc run -p bedrock` against the fake provider over
real HTTP (streamed and not, a Bedrock API key or SigV4), every file held to botocore's service
model for bedrock-runtime, and every command on its traces: check, convert, diff, show, the
HTML page, curl, send, replay, serve and proxy (with botocore's own client as the agent),
export."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.eventstream import EventStreamBuffer
from botocore.validate import ParamValidator
from hypothesis import given, settings

from fccli.core.models import (
    Message,
    ProviderBlock,
    Request,
    Response,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from fccli.serve.app import make_app
from fccli.serve.launch import InThread, bind
from fccli.serve.recordings import load_recordings
from fccli.wire.registry import FORMATS
from tests.conftest import REPO, clean_env
from tests.support import local_http
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.inprocess import run_in_process
from tests.support.proxy_harness import proxy
from tests.wire.test_format_contract import requests, responses

QUESTION = "北京、上海今天适合跑步吗？"
BEDROCK = FORMATS["bedrock"]
MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"
SIGV4 = {
    "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    "AWS_REGION": "us-west-2",  # --region below says otherwise, and wins
    "AWS_CONFIG_FILE": "/dev/null",
    "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
}
SESSION = botocore.session.get_session()
SERVICE = SESSION.get_service_model("bedrock-runtime")


def _env(**extra: str) -> dict[str, str]:
    return clean_env(AWS_BEARER_TOKEN_BEDROCK=DEFAULT_KEY, **extra)


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _valid(body: Any, operation: str, output: bool = False) -> None:
    """Hold a body to botocore's shapes for `operation` (its input, with the model, or output)."""
    model = SERVICE.operation_model(operation)
    if output:
        report = ParamValidator().validate(body, model.output_shape)
    else:
        report = ParamValidator().validate({"modelId": MODEL, **body}, model.input_shape)
    assert not report.has_errors(), report.generate_report()


def _client(url: str) -> Any:
    return SESSION.create_client(
        "bedrock-runtime",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id=SIGV4["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=SIGV4["AWS_SECRET_ACCESS_KEY"],
    )


@pytest.fixture(scope="module")
def server() -> Any:
    with FakeProvider() as fp:
        yield fp


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory, server: FakeProvider) -> Path:
    """One `fc run -p bedrock --stream`, which the tests below only read."""
    out = tmp_path_factory.mktemp("bedrock") / "trace"
    ran = run_in_process(
        ["run", QUESTION, "-p", "bedrock", "-m", MODEL, "--stream", "--base-url", server.url,
         "-o", str(out)],
        cwd=out.parent, env=_env(),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return out


# ---------------------------------------------------------------------------------------------
# the round trip over HTTP


@pytest.mark.server
def test_a_streamed_run_leaves_files_botocore_accepts(trace: Path, server: FakeProvider) -> None:
    sent = [r for r in server.received if r.path.startswith("/model/")][:2]
    assert [r.path for r in sent] == [
        "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream"
    ] * 2
    assert sent[0].headers["authorization"] == f"Bearer {DEFAULT_KEY}"
    assert sent[0].headers["accept"] == "application/vnd.amazon.eventstream"
    for n in (1, 2):
        request = _json(trace / f"{n}-request.bedrock.json")
        assert request == sent[n - 1].json  # the file is what went out
        _valid(request, "Converse")
        _valid(_json(trace / f"{n}-response.bedrock.json"), "Converse", output=True)
        assert (trace / f"{n}-response.bedrock.sse").read_bytes()[:4] != b"data"
    results = _json(trace / "2-request.bedrock.json")["messages"][2]["content"]
    assert [next(iter(b)) for b in results] == ["toolResult", "toolResult"]
    assert _json(trace / "manifest.json")["model"] == MODEL


@pytest.mark.server
def test_a_run_signed_with_sigv4_is_signed_as_botocore_signs_and_keeps_no_secret(
    fc: Any, server: FakeProvider, tmp_path: Path
) -> None:
    before = len(server.received)
    ran = fc(
        "run", QUESTION, "-p", "bedrock", "--region", "eu-west-1", "--base-url", server.url,
        "-o", "t", env=clean_env(**SIGV4),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    got = server.received[before]
    assert got.path == "/model/amazon.nova-lite-v1%3A0/converse"  # the profile's default model
    auth = got.headers["authorization"]
    assert auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert "/eu-west-1/bedrock/aws4_request" in auth
    # The signature over what arrived, recomputed by botocore at the time fc signed it.
    signed = auth.split("SignedHeaders=")[1].split(",")[0].split(";")
    request = AWSRequest(
        method="POST",
        url=server.url + got.path,
        data=got.body,
        headers={h: got.headers[h] for h in signed},
    )
    request.context["timestamp"] = got.headers["x-amz-date"]
    signer = SigV4Auth(
        Credentials(SIGV4["AWS_ACCESS_KEY_ID"], SIGV4["AWS_SECRET_ACCESS_KEY"]),
        "bedrock",
        "eu-west-1",
    )
    expected = signer.signature(
        signer.string_to_sign(request, signer.canonical_request(request)), request
    )
    assert auth.endswith(f"Signature={expected}")
    secret = SIGV4["AWS_SECRET_ACCESS_KEY"].encode()
    assert all(secret not in p.read_bytes() for p in (tmp_path / "t").iterdir())


@pytest.mark.server
def test_a_non_streamed_run_and_a_wrong_key_said_without_it(fc: Any, server: FakeProvider) -> None:
    ran = fc("run", QUESTION, "-p", "bedrock", "--base-url", server.url, "-o", "t", env=_env())
    assert ran.returncode == 0, ran.stderr
    assert "北京" in ran.stdout and "tool_use" in ran.stdout
    server.echo_key_in_401 = True
    try:
        wrong = fc(
            "run", QUESTION, "-p", "bedrock", "--base-url", server.url, "-o", "w",
            env=clean_env(AWS_BEARER_TOKEN_BEDROCK="ABSK-wrong-key-0123456789"),
        )  # fmt: skip
    finally:
        server.echo_key_in_401 = False
    assert wrong.returncode == 3
    assert "Invalid API Key format" in wrong.stderr and "ABSK-wrong-key" not in wrong.stderr


@pytest.mark.server
@pytest.mark.parametrize(
    ("quirk", "said"),
    [
        ("cut", "the connection closed mid-stream"),
        ("bad_crc", "has a bad message checksum"),
        ("error_event", "modelStreamErrorException"),
    ],
)
def test_a_broken_stream_exits_3_with_nothing_executed(
    fc: Any, server: FakeProvider, tmp_path: Path, quirk: str, said: str
) -> None:
    server.stream_quirks = {quirk}
    try:
        ran = fc(
            "run",
            QUESTION,
            "-p",
            "bedrock",
            "--stream",
            "--base-url",
            server.url,
            "-o",
            "t",
            env=_env(),
        )
    finally:
        server.stream_quirks = set()
    assert ran.returncode == 3, ran.stderr
    assert said in " ".join(ran.stderr.split())
    manifest = _json(tmp_path / "t" / "manifest.json")
    assert not any(s.get("tool_runs") for s in manifest["steps"])  # no call ran
    assert (tmp_path / "t" / "1-response.bedrock.sse").exists()  # what came is kept


def test_without_a_key_or_credentials_it_says_what_to_set(fc: Any, tmp_path: Path) -> None:
    refused = fc("run", QUESTION, "-p", "bedrock", "--tool-choice", "none", env=_env())
    assert refused.returncode == 2 and "tool_choice none has no place" in refused.stderr
    elsewhere = fc("run", QUESTION, "-p", "deepseek", "--region", "eu-west-1", env=clean_env())
    assert elsewhere.returncode == 2 and "--region has no meaning for deepseek" in elsewhere.stderr
    ran = fc(
        "run", QUESTION, "-p", "bedrock", "--base-url", "http://127.0.0.1:9",
        env=clean_env(AWS_CONFIG_FILE="/dev/null", AWS_SHARED_CREDENTIALS_FILE="/dev/null",
                      AWS_EC2_METADATA_DISABLED="true"),
    )  # fmt: skip
    assert ran.returncode == 2
    assert "no AWS credentials found" in ran.stderr and "AWS_BEARER_TOKEN_BEDROCK" in ran.stderr


# ---------------------------------------------------------------------------------------------
# the codec's choices


def test_an_error_result_travels_as_status_error_and_a_none_choice_has_no_place() -> None:
    request = Request(
        model=MODEL,
        messages=[
            Message(role="user", content=[TextBlock(text="q")]),
            Message(role="assistant", content=[ToolUseBlock(id="t1", name="f", input={})]),
            Message(
                role="user",
                content=[ToolResultBlock(tool_use_id="t1", content="boom", is_error=True)],
            ),
        ],
    )
    wire = BEDROCK.to_wire_request(request)
    result = wire["messages"][2]["content"][0]["toolResult"]
    assert result == {"toolUseId": "t1", "content": [{"text": "boom"}], "status": "error"}
    back = BEDROCK.from_wire_request(wire)
    assert back.messages == request.messages
    # A json block is read as its JSON text.
    result["content"] = [{"json": {"ok": True}}]
    assert BEDROCK.from_wire_request(wire).messages[2].content[0].content == '{"ok": true}'


def _own(blocks: list[Any]) -> list[Any]:
    """fc's own blocks: a provider's block kept verbatim is the provider's to be valid."""
    return [b for b in blocks if not isinstance(b, ProviderBlock)]


@settings(max_examples=12)
@given(request=requests())
def test_every_request_fc_writes_passes_botocores_validator(request: Request) -> None:
    messages = [m.model_copy(update={"content": _own(m.content)}) for m in request.messages]
    _valid(BEDROCK.to_wire_request(request.model_copy(update={"messages": messages})), "Converse")


@settings(max_examples=12)
@given(response=responses())
def test_every_answer_fc_writes_has_botocores_output_shape(response: Response) -> None:
    wire = BEDROCK.to_wire_response(response.model_copy(update={"content": _own(response.content)}))
    # What fc has no value for, a real answer always has: the usage and the metrics.
    wire.setdefault("usage", {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0})
    _valid({**wire, "metrics": {"latencyMs": 1}}, "Converse", output=True)


def test_the_corpus_s_clean_requests_pass_botocores_validator() -> None:
    for case in sorted((REPO / "tests/corpus/check/bedrock").glob("*.ok.json")):
        _valid(_json(case), "Converse")


# ---------------------------------------------------------------------------------------------
# every reader on the trace


@pytest.mark.server
def test_check_passes_the_run_and_quotes_bedrock_on_a_broken_history(
    fc: Any, trace: Path, tmp_path: Path
) -> None:
    assert fc("check", str(trace)).returncode == 0
    body = _json(trace / "2-request.bedrock.json")
    body["messages"][2]["content"].pop()
    result = body["messages"][2]["content"][0]["toolResult"]
    result["content"] = [{"json": ["not", "an", "object"]}]
    path = tmp_path / "broken.bedrock.json"
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    ran = fc("check", str(path))
    out = " ".join(ran.stdout.split())
    assert ran.returncode == 1
    assert "FC101" in out and "`tool_use` ids were found without `tool_result` blocks" in out
    assert "FC125" in out and "Provide a json object for the field" in out


@pytest.mark.server
def test_an_id_another_format_made_is_flagged_after_convert(fc: Any, tmp_path: Path) -> None:
    long_id = "call_" + "0123456789abcdef" * 4  # 69 characters: fine for OpenAI, not Bedrock
    chat = {
        "model": "gpt-4.1-mini",
        "messages": [
            {"role": "user", "content": QUESTION},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": long_id, "type": "function",
                 "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}}]},
            {"role": "tool", "tool_call_id": long_id, "content": "晴"},
        ],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}],
    }  # fmt: skip
    (tmp_path / "chat.json").write_text(json.dumps(chat, ensure_ascii=False), encoding="utf-8")
    ran = fc("convert", "chat.json", "--to", "bedrock", "-o", "out.bedrock.json")
    assert ran.returncode == 0, ran.stderr
    assert "Bedrock names the model in the URL" in ran.stderr
    checked = fc("check", "out.bedrock.json")
    assert checked.returncode == 1 and "FC107" in checked.stdout
    assert "length less than or equal to 64" in " ".join(checked.stdout.split())


@pytest.mark.server
@pytest.mark.parametrize("target", ["anthropic", "openai", "gemini"])
def test_convert_keeps_every_call_and_result_and_says_what_it_lost(
    fc: Any, trace: Path, tmp_path: Path, target: str
) -> None:
    there = tmp_path / f"there.{target}.json"
    ran = fc("convert", str(trace / "2-request.bedrock.json"), "--to", target, "-o", str(there))
    assert ran.returncode == 0, ran.stderr
    back = tmp_path / "back.bedrock.json"
    again = fc("convert", str(there), "--to", "bedrock", "-o", str(back))
    assert again.returncode == 0, again.stderr
    original = _json(trace / "2-request.bedrock.json")
    assert _json(back)["messages"] == original["messages"]
    if target != "gemini":  # a format that names the model in the body is told where it went
        assert "the model in the URL" in ran.stderr + again.stderr


@pytest.mark.server
def test_a_stream_file_is_read_through_the_stream_decoder(fc: Any, trace: Path) -> None:
    sse = str(trace / "1-response.bedrock.sse")
    shown = fc("show", sse)
    assert shown.returncode == 0, shown.stderr
    assert "folded into its answer" in shown.stdout and "call get_weather" in shown.stdout
    as_json = json.loads(fc("show", sse, "--json").stdout)
    assert as_json["internal"] == _json(trace / "1-response.json")  # what fc run assembled
    assert "\ncontentBlockStart {" in fc("show", sse, "--wire").stdout  # as it came: frames
    checked = fc("check", sse)
    assert checked.returncode == 2 and len(checked.stderr.splitlines()) == 1
    assert (
        "a streamed response (bedrock format)" in checked.stderr
        and f"fc show {sse}" in checked.stderr
    )


@pytest.mark.server
def test_a_corrupt_frame_is_said_where_it_is(fc: Any, trace: Path, tmp_path: Path) -> None:
    good = (trace / "1-response.bedrock.sse").read_bytes()
    third = sum(
        struct.unpack_from(">I", good, at)[0] for at in (0, struct.unpack_from(">I", good)[0])
    )
    changed, huge = bytearray(good), bytearray(good)
    changed[third + 20] ^= 1  # its payload: the message checksum fails
    huge[third : third + 4] = struct.pack(">I", 0xFFFFFF00)  # a length no message has
    huge[third + 8 : third + 12] = struct.pack(">I", zlib.crc32(bytes(huge[third : third + 8])))
    for corrupt, said in ((changed, "bad message checksum"), (huge, "impossible lengths")):
        copy = tmp_path / "copy"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(trace, copy)
        (copy / "1-response.bedrock.sse").write_bytes(bytes(corrupt))
        wire = fc("show", str(copy), "--wire", "--step", "1").stdout
        lines = wire[wire.index("messageStart") :].splitlines()
        assert lines[2].startswith("(corrupt: message 3 of the event stream") and said in lines[2]
        assert f"the {len(good) - third:,} bytes from there are not shown" in lines[2]
        as_json = json.loads(fc("show", str(copy), "--wire", "--json", "--step", "1").stdout)
        assert said in as_json["steps"][0]["files"][-1]["text"]
        shown = fc("show", str(copy / "1-response.bedrock.sse"))
        assert shown.returncode == 2 and said in shown.stderr
        assert f"fc show {copy} --wire --step 1 shows it" in shown.stderr


@pytest.mark.server
@pytest.mark.parametrize("size", [64, 5], ids=["whole", "cut-across-frames"])
def test_a_key_the_stream_echoes_is_masked_and_the_frames_still_read(
    fc: Any, server: FakeProvider, tmp_path: Path, size: int
) -> None:
    server.text_fragment_size = size
    server.script = [{"echo_auth": ["content"]}]
    try:
        ran = fc("run", QUESTION, "-p", "bedrock", "--stream", "--base-url", server.url, "-o", "t",
                 env=_env())  # fmt: skip
    finally:
        server.text_fragment_size = 8
    assert ran.returncode == 0, ran.stderr
    trace = tmp_path / "t"
    for file in trace.iterdir():
        assert DEFAULT_KEY.encode() not in file.read_bytes(), file.name
    assert DEFAULT_KEY not in ran.stdout + ran.stderr
    assert "Bearer ***" in json.dumps(_json(trace / "1-response.bedrock.json"))
    raw = (trace / "1-response.bedrock.sse").read_bytes()
    theirs = EventStreamBuffer()
    theirs.add_data(raw)
    assert len(list(theirs)) > 3  # every frame, masked, still reads (botocore checks the CRCs)
    assert "corrupt" not in fc("show", "t", "--wire", "--step", "1").stdout


@pytest.mark.server
def test_diff_maps_the_internal_request_field_by_field(fc: Any, trace: Path) -> None:
    ran = fc("diff", "2-request.json", "2-request.bedrock.json", "--exit-code", cwd=trace)
    assert ran.returncode == 0, ran.stderr
    out = ran.stdout
    assert "`id` → `toolUseId`" in out and "`tool_use_id` → `toolUseId`" in out
    assert 'wrapped in {"toolResult": {…}}' in out and "`content` → `text`" in out


@pytest.mark.server
def test_show_and_the_html_page_read_the_trace(fc: Any, trace: Path, tmp_path: Path) -> None:
    ran = fc("show", str(trace))
    assert ran.returncode == 0, ran.stderr
    assert "get_weather" in ran.stdout and "streamed" in ran.stdout
    wire = fc("show", str(trace), "--wire", "--step", "1")
    assert "\ncontentBlockStart {" in wire.stdout and "\\x00" not in wire.stdout  # frames as lines
    page = fc("show", str(trace), "--html", str(tmp_path / "page.html"))
    assert page.returncode == 0, page.stderr
    html = (tmp_path / "page.html").read_text("utf-8")
    assert "toolUseId" in html and "2-response.bedrock.sse" in html


@pytest.mark.server
def test_curl_signs_with_aws_sigv4_or_sends_the_key_as_a_variable(fc: Any, trace: Path) -> None:
    file = str(trace / "2-request.bedrock.json")
    signed = fc("curl", file, env=clean_env(AWS_REGION="eu-west-1"))
    assert signed.returncode == 0, signed.stderr
    assert "https://bedrock-runtime.eu-west-1.amazonaws.com/model/" in signed.stdout
    assert '--aws-sigv4 "aws:amz:eu-west-1:bedrock"' in signed.stdout
    assert '--user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY"' in signed.stdout
    assert "accept: application/vnd.amazon.eventstream" in signed.stdout  # the trace streamed
    bearer = fc("curl", file, env=_env())
    assert '-H "authorization: Bearer $AWS_BEARER_TOKEN_BEDROCK"' in bearer.stdout
    assert DEFAULT_KEY not in bearer.stdout + bearer.stderr


@pytest.mark.server
def test_send_and_replay_post_to_the_model_the_trace_asked(
    fc: Any, trace: Path, server: FakeProvider, tmp_path: Path
) -> None:
    before = len(server.received)
    sent = fc(
        "send",
        str(trace / "2-request.bedrock.json"),
        "--base-url",
        server.url,
        "-o",
        "a.bin",
        env=_env(),
    )
    assert sent.returncode == 0, sent.stderr
    assert server.received[before].path.endswith("%3A0/converse-stream")
    first = _json(trace / "1-response.json")["content"][1]["id"]
    ran = fc(
        "replay", str(trace), "--set", f"{first}=暴雨", "--error", first,
        "--base-url", server.url, "-o", "replayed", env=_env(),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    body = server.received[-1].json
    result = body["messages"][2]["content"][0]["toolResult"]
    assert result == {"toolUseId": first, "content": [{"text": "暴雨"}], "status": "error"}


@pytest.mark.server
def test_the_otel_export_names_aws_bedrock(fc: Any, trace: Path, tmp_path: Path) -> None:
    ran = fc("export", "otel", str(trace), "-o", str(tmp_path / "s.json"), "--format", "json")
    assert ran.returncode == 0, ran.stderr
    assert '"aws.bedrock"' in (tmp_path / "s.json").read_text("utf-8")


# ---------------------------------------------------------------------------------------------
# botocore's own client as the agent: fc serve plays the trace, fc proxy records one


@pytest.mark.server
def test_fc_serve_answers_botocore_from_the_trace(trace: Path) -> None:
    lines: list[str] = []
    server = InThread(make_app(load_recordings([trace]), lines.append), bind("127.0.0.1", 0))
    server.start()
    try:
        client = _client(server.url)
        body = _json(trace / "1-request.bedrock.json")
        answer = client.converse(modelId=MODEL, **body)
        streamed = [next(iter(e)) for e in client.converse_stream(modelId=MODEL, **body)["stream"]]
    finally:
        server.stop()
    recorded = _json(trace / "1-response.bedrock.json")
    assert answer["output"] == recorded["output"] and answer["stopReason"] == "tool_use"
    assert streamed[0] == "messageStart" and streamed[-2:] == ["messageStop", "metadata"]
    assert any("streamed as recorded" in line for line in lines)


@pytest.mark.server
def test_fc_proxy_records_what_botocore_sends(
    trace: Path, server: FakeProvider, tmp_path: Path
) -> None:
    body = _json(trace / "1-request.bedrock.json")
    with proxy(tmp_path / "px", "bedrock", base_url=server.url) as px:
        client = _client(px.url)
        assert client.converse(modelId=MODEL, **body)["stopReason"] == "tool_use"
        events = list(client.converse_stream(modelId=MODEL, **body)["stream"])
        assert events[-1]["metadata"]["usage"]["outputTokens"] > 0
    recorded = px.traces()
    assert len(recorded) == 2  # two conversations: each asks the question anew
    for one in recorded:
        manifest = _json(one / "manifest.json")
        assert (manifest["wire_format"], manifest["model"]) == ("bedrock", MODEL)
        assert _json(one / "1-response.json")["stop_reason"] == "tool_use"
    assert sorted((one / "1-response.bedrock.sse").exists() for one in recorded) == [False, True]
    assert SIGV4["AWS_SECRET_ACCESS_KEY"] not in px.printed


def _signature_holds(got: Any, url: str) -> bool:
    """Whether a received SigV4 signature is the one botocore makes of the same request."""
    auth = got.headers["authorization"]
    signed = auth.split("SignedHeaders=")[1].split(",")[0].split(";")
    scope = auth.split("Credential=")[1].split(",")[0].split("/")
    request = AWSRequest(
        method="POST",
        url=url + got.path,
        data=got.body,
        headers={h: got.headers[h] for h in signed},
    )
    request.context["timestamp"] = got.headers["x-amz-date"]
    credentials = Credentials(SIGV4["AWS_ACCESS_KEY_ID"], SIGV4["AWS_SECRET_ACCESS_KEY"])
    signer = SigV4Auth(credentials, scope[3], scope[2])
    canonical = signer.canonical_request(request)
    expected = signer.signature(signer.string_to_sign(request, canonical), request)
    return bool(auth.endswith(f"Signature={expected}"))


@pytest.mark.process
@pytest.mark.skipif(shutil.which("curl") is None, reason="no curl here")
def test_the_curl_line_fc_prints_signs_as_botocore_signs(
    fc: Any, trace: Path, server: FakeProvider, tmp_path: Path
) -> None:
    env = clean_env(**SIGV4)
    # A model id without a `:`, whose path curl and AWS sign alike (the note below says why).
    (tmp_path / "manifest.json").write_text('{"model": "amazon.titan-text-express-v1"}', "utf-8")
    file = tmp_path / "2-request.bedrock.json"
    file.write_bytes((trace / "2-request.bedrock.json").read_bytes())
    printed = fc("curl", str(file), "--base-url", server.url, env=env)
    assert printed.returncode == 0 and printed.stderr == "", printed.stderr
    before = len(server.received)
    ran = subprocess.run(["bash", "-c", printed.stdout], env=env, capture_output=True, timeout=30)
    assert ran.returncode == 0, ran.stderr
    got = server.received[before]
    assert got.path == "/model/amazon.titan-text-express-v1/converse"
    assert got.body == file.read_bytes() and _signature_holds(got, server.url)
    with_colon = fc("curl", str(trace / "2-request.bedrock.json"), env=env)
    assert "the signature may not hold" in " ".join(with_colon.stderr.split())


def test_tools_in_bedrock_form(fc: Any) -> None:
    ran = fc("tools", "-f", "bedrock")
    assert ran.returncode == 0, ran.stderr
    spec = json.loads(ran.stdout)[0]["toolSpec"]
    assert spec["name"] == "get_weather" and spec["inputSchema"]["json"]["type"] == "object"


@pytest.mark.server
def test_a_key_the_stream_echoes_is_masked_by_fc_proxy_and_fc_send_and_the_frames_read(
    fc: Any, trace: Path, server: FakeProvider, tmp_path: Path
) -> None:
    """Cut across frames: what fc proxy records and what fc send saves are masked frame by frame
    (their checksums hold); the proxy's client gets the bytes the server sent."""

    def frames_of(raw: bytes) -> list[Any]:
        theirs = EventStreamBuffer()
        theirs.add_data(raw)
        return list(theirs)  # botocore checks every length and checksum

    server.text_fragment_size = 5
    server.script = [{"echo_auth": ["content"]}] * 2
    body = (trace / "1-request.bedrock.json").read_bytes()
    try:
        with proxy(tmp_path / "px", "bedrock", base_url=server.url) as px:
            got = local_http.post(
                f"{px.url}/model/{MODEL}/converse-stream",
                content=body,
                headers={"authorization": f"Bearer {DEFAULT_KEY}"},
            )
        sent = fc("send", str(trace / "1-request.bedrock.json"), "--base-url", server.url,
                  "-o", "a.bin", env=_env())  # fmt: skip
    finally:
        server.text_fragment_size = 8
    assert DEFAULT_KEY.encode() not in got.content  # cut across frames, as the server sent it
    assert "Bearer ***" not in got.text and len(frames_of(got.content)) > 3
    (one,) = px.traces()
    assert DEFAULT_KEY not in px.printed
    for file in one.iterdir():
        assert DEFAULT_KEY.encode() not in file.read_bytes(), file.name
    assert (
        "***" in _json(one / "1-response.bedrock.json")["output"]["message"]["content"][0]["text"]
    )
    assert len(frames_of((one / "1-response.bedrock.sse").read_bytes())) > 3
    assert sent.returncode == 0, sent.stderr
    saved = (tmp_path / "a.bin").read_bytes()
    assert DEFAULT_KEY not in sent.stdout + sent.stderr
    payloads = b"".join(frame.payload for frame in frames_of(saved))
    assert DEFAULT_KEY.encode() not in saved and b"***" in payloads
