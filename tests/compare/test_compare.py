"""`fc compare`: every pair of example traces, a trace and its replay, traces and step files of
different formats; the first-divergence line; the terminal side by side and one under the
other; --json; what it refuses.

The weak and the strong demo runs, and a replay, are made once for the module, in-process.
"""

from __future__ import annotations

import io
import itertools
import json
import shutil
from pathlib import Path

import pytest
from rich.cells import cell_len

from fccli.compare.comparison import compare, said
from fccli.compare.fields import ABSENT
from fccli.cost.money import as_number
from fccli.cost.trace import price_trace
from fccli.i18n import set_language
from fccli.render.compare_view import render_comparison
from fccli.render.console import make_console
from fccli.trace.reader import read_trace
from tests.conftest import REPO, clean_env
from tests.support.hostile import hostile_trace
from tests.support.inprocess import run_in_process

EXAMPLES = REPO / "traces" / "examples"
NAMES = sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir())
QUESTION = "杭州今天适合跑步吗？"
FIRST = "step 1: call get_weather city 杭州 ≠ 杭州今天适合跑步吗？"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """strong, weak (--demo-skill weak), sunny (strong's step 2 replayed with a sunny result),
    and strict (--strict --effort high)."""
    root = tmp_path_factory.mktemp("compare")
    for args in (
        ["run", QUESTION, "-o", "strong"],
        ["run", QUESTION, "--demo-skill", "weak", "-o", "weak"],
        ["replay", "strong", "--set", "call_3a=晴，35°C", "-o", "sunny"],
        ["run", QUESTION, "--strict", "--effort", "high", "-o", "strict"],
    ):
        ran = run_in_process(args, cwd=root, env=clean_env())
        assert ran.returncode == 0, ran.stderr
    return root


def fc(root: Path, *args: str, **env: str):
    return run_in_process(list(args), cwd=root, env=clean_env(**env))


def shown(result, width: int = 100, terminal: bool = False) -> str:
    buffer = io.StringIO()
    console = make_console(file=buffer, width=width, force_terminal=terminal, color_system=None)
    render_comparison(console, result)
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------------
# every pair of examples


@pytest.mark.parametrize("pair", list(itertools.combinations(NAMES, 2)), ids="-".join)
def test_every_pair_of_examples(pair: tuple[str, str]) -> None:
    a, b = (str(EXAMPLES / n) for n in pair)
    there, back = compare(a, b), compare(b, a)
    data = json.loads(json.dumps(there.to_json()))  # all of it JSON
    assert data["a"]["name"] == a and data["b"]["name"] == b
    assert [s["a"] for s in data["steps"]] == [s["b"] for s in data["steps"]] == [1, 2]
    # Read the other way round, the same places differ, A's and B's values swapped.
    assert there.same == back.same
    for x, y in zip(there.pairs, back.pairs, strict=True):
        assert [(f.key, f.a, f.b) for f in x.fields] == [(f.key, f.b, f.a) for f in y.fields]
    if there.first is not None:
        assert back.first is not None and there.first.field.key == back.first.field.key
    # Every field that differs is marked on the terminal (side by side: a pair of formats).
    stacked = shown(there)
    layouts = [stacked]
    if there.a.format != there.b.format:
        layouts.append(shown(there, width=140, terminal=True))
    marked = sum(not f.same and f.kind != "measure" for p in there.pairs for f in p.fields)
    for out in layouts:
        assert sum(line.startswith("≠") for line in out.splitlines()) == marked
    if there.first is not None:
        assert f"first divergence: {there.first.text}" in stacked


def test_an_example_beside_itself_is_the_same_round_trip() -> None:
    for name in NAMES:
        result = compare(str(EXAMPLES / name), str(EXAMPLES / name))
        assert result.same and result.first is None and not result.setup_differences()
        assert all(f.same for p in result.pairs for f in p.fields)


def test_the_same_question_streamed_or_not_is_the_same_round_trip() -> None:
    result = compare(str(EXAMPLES / "hangzhou"), str(EXAMPLES / "hangzhou-stream"))
    assert result.same
    out = shown(result)
    assert "the same round trip: the same questions, calls, arguments" in out
    assert "first divergence" not in out


def test_what_differs_between_two_questions_is_the_question() -> None:
    result = compare(str(EXAMPLES / "hangzhou"), str(EXAMPLES / "three-cities"))
    assert result.first is not None
    assert (
        result.first.text
        == "step 1: question 杭州今天适合跑步吗？ ≠ 北京、上海、深圳今天适合跑步吗？"
    )
    # Three calls beside one: the two more are each `only in B`.
    names = {f.key: f for f in result.pairs[0].fields if f.key.endswith(".name")}
    assert list(names) == ["calls[0].name", "calls[1].name", "calls[2].name"]
    assert names["calls[1].name"].a is ABSENT and names["calls[1].name"].b == "get_weather"
    assert said(names["calls[1].name"]) == "call 2 get_weather only in B"


# ---------------------------------------------------------------------------------------------
# the first divergence


def test_the_first_divergence_of_the_weak_and_the_strong_demo(runs: Path) -> None:
    ran = fc(runs, "compare", "strong", "weak")
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[2] == f"first divergence: {FIRST}"  # under the two traces' names
    assert "≠   city         A 杭州" in ran.stdout
    assert "                 B 杭州今天适合跑步吗？" in ran.stdout
    data = json.loads(fc(runs, "compare", "strong", "weak", "--json").stdout)
    assert data["same"] is False
    assert data["first_divergence"] == {
        "a_step": 1,
        "b_step": 1,
        "field": "calls[0].input.city",
        "text": FIRST,
    }
    city = next(f for f in data["steps"][0]["fields"] if f["field"] == "calls[0].input.city")
    assert city == {
        "field": "calls[0].input.city",
        "kind": "behaviour",
        "same": False,
        "a": "杭州",
        "b": QUESTION,
    }
    # Step 2: the weak run's result was an error; the strong run's was not.
    error = next(f for f in data["steps"][1]["fields"] if f["field"] == "handed_back[0].is_error")
    assert (error["a"], error["b"]) == (False, True)


def test_the_first_divergence_in_chinese(runs: Path) -> None:
    ran = fc(runs, "compare", "strong", "weak", "--lang", "zh")
    assert "第一处分歧：第 1 步：调用 get_weather city 杭州 ≠ 杭州今天适合跑步吗？" in ran.stdout
    assert "合计" in ran.stdout and "提供的工具" in ran.stdout
    # --json stays English
    data = json.loads(fc(runs, "compare", "strong", "weak", "--json", "--lang", "zh").stdout)
    assert data["first_divergence"]["text"] == FIRST


def test_exit_codes_as_fc_diff_has_them(runs: Path) -> None:
    assert fc(runs, "compare", "strong", "weak").returncode == 0
    assert fc(runs, "compare", "strong", "weak", "--exit-code").returncode == 1
    assert fc(runs, "compare", "strong", "strong", "--exit-code").returncode == 0
    # A different model or format alone is not a difference in what was asked or answered.
    same = fc(runs, "compare", str(EXAMPLES / "hangzhou"), str(EXAMPLES / "hangzhou-stream"))
    assert same.returncode == 0


def test_the_same_round_trip_set_up_differently(runs: Path) -> None:
    data = json.loads(fc(runs, "compare", "strong", "strict", "--json", "--exit-code").stdout)
    assert data["same"] is True and data["first_divergence"] is None
    assert data["setup_differences"] == [
        {"field": "tools.get_weather.strict", "kind": "setup", "same": False, "b": True},
        {"field": "request.effort", "kind": "setup", "same": False, "b": "high"},
    ]
    out = fc(runs, "compare", "strong", "strict").stdout
    assert "set up differently: tool get_weather strict — ≠ yes, effort — ≠ high" in out
    assert "≠   get_weather strict  A —\n                        B yes" in out
    zh = fc(runs, "compare", "strong", "strict", "--lang", "zh").stdout
    assert "设置不同：工具 get_weather strict — ≠ 是，effort — ≠ high" in zh


# ---------------------------------------------------------------------------------------------
# a replay


def test_a_replay_alone_is_compared_with_its_original(runs: Path) -> None:
    ran = fc(runs, "compare", "sunny", "--json")
    assert ran.returncode == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert (data["a"]["name"], data["b"]["name"]) == ("strong", "sunny")
    assert data["notes"][0] == "sunny replays step 2 of strong: its step 1 stands beside step 2"
    # Strong's step 1 came before the replay: only step 2 stands beside the replay's step 1.
    assert [(s["a"], s["b"]) for s in data["steps"]] == [(2, 1)]
    first = data["first_divergence"]
    assert first["field"] == "handed_back[0]"
    assert first["text"].startswith("step 2 (B: step 1): result for get_weather {")
    assert first["text"].endswith(" ≠ 晴，35°C")
    # Given both, in either order, they line up the same way.
    both = json.loads(fc(runs, "compare", "strong", "sunny", "--json").stdout)
    assert both["steps"] == data["steps"]
    back = json.loads(fc(runs, "compare", "sunny", "strong", "--json").stdout)
    assert [(s["a"], s["b"]) for s in back["steps"]] == [(1, 2)]


def test_a_replay_found_beside_it_when_run_from_elsewhere(runs: Path, tmp_path: Path) -> None:
    ran = fc(tmp_path, "compare", str(runs / "sunny"), "--json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["a"]["name"] == str(runs / "strong")


def test_a_replay_whose_original_is_gone(runs: Path, tmp_path: Path) -> None:
    shutil.copytree(runs / "sunny", tmp_path / "sunny")
    ran = fc(tmp_path, "compare", "sunny")
    assert ran.returncode == 2
    assert "the original of replay sunny is not found here" in ran.stderr
    assert "Traceback" not in ran.stderr


# ---------------------------------------------------------------------------------------------
# different wire formats


def test_two_traces_of_different_formats_compare_in_the_internal_form() -> None:
    result = compare(str(EXAMPLES / "hangzhou"), str(EXAMPLES / "hangzhou-gemini"))
    setup = {f.key: (f.a, f.b) for f in result.setup_differences()}
    assert setup == {
        "model": ("fc-demo", "gemini-3-pro-preview"),
        "format": ("deepseek", "gemini"),
        "request.thinking": (ABSENT, True),  # asked for with --thinking
    }
    fields = {f.key: f for f in result.pairs[0].fields}
    # The same call and arguments, though chat sends a string and Gemini an object.
    assert fields["calls[0].name"].same and fields["calls[0].input"].same
    assert fields["calls[0].input"].a == {"city": "杭州"}
    step2 = {f.key: f for f in result.pairs[1].fields}
    assert step2["handed_back[0]"].same
    assert (
        result.first is not None
        and result.first.text == "step 1: text 我先查一下杭州的天气。 only in A"
    )


def test_two_step_files_of_different_formats() -> None:
    a = str(EXAMPLES / "hangzhou" / "2-request.deepseek.json")
    b = str(EXAMPLES / "hangzhou-responses" / "2-request.responses.json")
    result = compare(a, b)
    assert result.same  # the same result handed back, read from two shapes
    assert result.diff is not None and result.diff.mode == "meaning"
    data = result.to_json()
    assert data["diff"]["mode"] == "meaning"
    assert data["a"] == {
        "name": a,
        "kind": "file",
        "format": "deepseek",
        "file_kind": "request",
        "model": "fc-demo",
        "steps": 1,
    }
    out = shown(result)
    assert "as fc diff compares the two files:" in out
    assert "in all" not in out
    # Two responses: the call is compared, its arguments field by field.
    response = compare(
        str(EXAMPLES / "hangzhou-stream" / "1-response.deepseek.json"),
        str(EXAMPLES / "three-cities" / "1-response.json"),
    )
    assert response.first is not None
    assert response.first.text == "step 1: call get_weather city 杭州 ≠ 北京"


# ---------------------------------------------------------------------------------------------
# the terminal


def test_side_by_side_on_a_wide_terminal_one_under_the_other_otherwise(runs: Path) -> None:
    result = compare(str(runs / "strong"), str(runs / "weak"))
    wide = shown(result, width=120, terminal=True)
    header = next(line for line in wide.splitlines() if "A  " in line and "B  " in line)
    assert header.index("A  ") < header.index("B  ")
    city = next(line for line in wide.splitlines() if line.startswith("≠") and "city" in line)
    assert city.index("杭州") < city.index(QUESTION)

    assert all(cell_len(line) <= 120 for line in wide.splitlines())
    for narrow in (shown(result, width=80, terminal=True), shown(result)):
        assert "A  strong" not in narrow
        assert "≠   city         A 杭州\n" in narrow
    assert all(cell_len(line) <= 80 for line in shown(result, 80, terminal=True).splitlines())
    # Wrapped at 60 columns, B's tag stands where A's does, its lines hanging under its text.
    narrowest = shown(result, 60, terminal=True).splitlines()
    error = next(i for i, line in enumerate(narrowest) if "B get_weather failed" in line)
    a_line = next(line for line in reversed(narrowest[:error]) if " A " in line)
    assert narrowest[error].index("B ") == a_line.index("A ")
    assert narrowest[error + 1].startswith(" " * (a_line.index("A ") + 2))
    # A pipe: the stacked form, never cut.
    piped = fc(runs, "compare", "strong", "weak", COLUMNS="200").stdout
    assert "A  strong" not in piped and "≠   city" in piped


def test_a_hostile_trace_prints_no_control_characters_and_runs_no_markup(
    runs: Path, tmp_path: Path
) -> None:
    hostile = hostile_trace(tmp_path / "hostile")
    ran = fc(tmp_path, "compare", str(EXAMPLES / "three-cities"), str(hostile))
    assert ran.returncode == 0, ran.stderr
    assert "\x1b" not in ran.stdout and "\\x1b[31m" in ran.stdout
    assert "<script>window.__pwned=1</script>" in ran.stdout  # shown as text, as it is
    page = tmp_path / "page.html"
    made = fc(
        tmp_path, "compare", str(EXAMPLES / "three-cities"), str(hostile), "--html", str(page)
    )
    assert made.returncode == 0, made.stderr
    html = page.read_text("utf-8")
    assert "<script>window" not in html and "&lt;script&gt;window.__pwned=1" in html
    assert "\x1b" not in html


def test_a_long_result_is_cut_on_the_terminal_not_in_json(tmp_path: Path) -> None:
    for name in ("a", "b"):
        shutil.copytree(EXAMPLES / "hangzhou", tmp_path / name)
    request = tmp_path / "b" / "2-request.json"
    data = json.loads(request.read_text("utf-8"))
    data["messages"][2]["content"][0]["content"] = "x" * 5000
    request.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    result = compare(str(tmp_path / "a"), str(tmp_path / "b"))
    assert "… (4,600 more characters)" in shown(result)
    field = next(f for f in result.pairs[1].fields if f.key == "handed_back[0]")
    assert field.to_json()["b"] == "x" * 5000


# ---------------------------------------------------------------------------------------------
# what it refuses


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["strong"], "strong is not a replay: give the trace to compare it with"),
        (["strong/1-request.json"], "is a file: compare it with another file"),
        (["strong", "weak/1-request.json"], "strong is a trace and weak/1-request.json a file"),
        (["strong/1-request.json", "-"], "fc compare reads files, not stdin"),
        (["strong/1-request.json", "weak/1-response.json"], "is a request and"),
        (["strong", "nowhere"], "nowhere"),
        (["strong", "weak", "--json", "--html", "x.html"], "--html and --json: choose one"),
        (["strong", "weak", "--html", "-o"], "takes the page's file name"),
    ],
)
def test_what_it_refuses(runs: Path, args: list[str], said: str) -> None:
    ran = fc(runs, "compare", *args)
    assert ran.returncode == 2, ran.stdout
    assert said in ran.stderr and "Traceback" not in ran.stderr
    set_language("en")


def test_a_manifest_stands_for_its_trace(runs: Path) -> None:
    ran = fc(runs, "compare", "strong/manifest.json", "weak", "--json")
    assert json.loads(ran.stdout)["first_divergence"]["text"] == FIRST


# ---------------------------------------------------------------------------------------------
# cost


def test_cost_per_step_and_per_trace_as_fccli_cost_and_genai_prices_say(runs: Path) -> None:
    genai_prices = pytest.importorskip("genai_prices")
    data = json.loads(fc(runs, "compare", "strong", "weak", "--json").stdout)
    assert data["notes"] == [
        "A and B: the demo model priced as deepseek-flash, the model it stands in for"
    ]
    for side in ("a", "b"):
        trace = read_trace(runs / data[side]["name"])
        priced = price_trace(trace.record)
        per_step = [
            next(f[side] for f in s["fields"] if f["field"] == "cost_usd") for s in data["steps"]
        ]
        assert per_step == [as_number(priced.steps[n].usd) for n in (1, 2)]
        assert data["totals"][side]["cost_usd"] == as_number(priced.usd) > 0
        assert data["totals"][side]["unpriced_steps"] == []
        # and genai-prices' own calculation, from the step's usage in the manifest
        usage = trace.record.steps[0].usage or {}
        paid = genai_prices.calc_price(
            genai_prices.Usage(
                input_tokens=usage["input_tokens"],
                output_tokens=usage["output_tokens"],
                output_reasoning_tokens=usage["reasoning_tokens"],
            ),
            "deepseek-flash",
            provider_id="deepseek",
        )
        assert per_step[0] == float(paid.total_price)
    assert "cost" in fc(runs, "compare", "strong", "weak").stdout


def test_what_the_cache_saved_beside_each_format() -> None:
    pytest.importorskip("genai_prices")
    course = REPO / "docs" / "course"
    result = compare(str(course / "deepseek-chat"), str(course / "deepseek-anthropic"))
    step2 = {f.key: f for f in result.pairs[1].fields}
    assert step2["cache_saved_usd"].a > 0 and step2["cache_saved_usd"].b > 0
    totals = result.totals()
    assert totals["b"]["cache_saved_usd"] == step2["cache_saved_usd"].b  # step 1 had no cache hit
    out = shown(result)
    assert "saved by the cache" in out and "17 from the cache" in out


def test_priced_as_another_model_or_not_at_all(runs: Path) -> None:
    pytest.importorskip("genai_prices")
    data = json.loads(
        fc(runs, "compare", "strong", "weak", "--json", "--price-model", "nosuch").stdout
    )
    assert data["notes"] == ["A and B: priced as nosuch (--price-model)"]
    costs = [f["a"] for s in data["steps"] for f in s["fields"] if f["field"] == "cost_usd"]
    assert costs == ["price unknown for nosuch"] * 2  # never 0
    assert data["totals"]["a"]["cost_usd"] is None
    assert (
        "price unknown" in fc(runs, "compare", "strong", "weak", "--price-model", "nosuch").stdout
    )


def test_a_trace_cut_short_beside_a_whole_one(tmp_path: Path) -> None:
    cut = tmp_path / "cut"
    shutil.copytree(EXAMPLES / "hangzhou", cut)
    for name in ("2-response.json", "2-response.deepseek.json"):
        (cut / name).unlink()
    manifest = json.loads((cut / "manifest.json").read_text("utf-8"))
    error = {"step": 2, "kind": "ProviderError", "message": "step 2: HTTP 503", "http_status": 503}
    manifest.update(status="error", steps=manifest["steps"][:1], error=error)
    (cut / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), "utf-8")
    result = compare(str(EXAMPLES / "hangzhou"), str(cut))
    assert result.first is not None
    assert result.first.text == "step 2: stop reason end_turn only in A"
    out = shown(result)
    assert "B —" in out
    assert (
        "≠ stopped by              A —\n                          B ProviderError: HTTP 503" in out
    )
    # Without step 2's request either, the step is only in A.
    for name in ("2-request.json", "2-request.deepseek.json"):
        (cut / name).unlink()
    shorter = compare(str(EXAMPLES / "hangzhou"), str(cut))
    assert shorter.first is not None and shorter.first.text == "step 2: only in A"
    assert "step 2 only in A" in shown(shorter)
