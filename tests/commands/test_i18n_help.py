"""`--help` of every command and option, and click's own words, in Chinese under zh.

The help texts are marked `N_` (a text with values in it: `help_text(Msg(...))`) and said in the
chosen language as the page is written (fccli/commands/help_format.py); click's words (the usage line, the
headings, `[default: …]`, `[required]`, the usage errors) go through the same catalog. Chinese
characters are two columns wide: the pages are wrapped by display width, so they hold at 60, 80
and 120 columns in both languages.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import pytest

from fccli import i18n
from fccli.commands.app import COMMANDS as DECLARED
from tests.conftest import clean_env
from tests.support import golden


def _commands() -> list[tuple[list[str], Any]]:
    """Every command of fc as (its path of names, its click command), `fc` itself first."""
    from typer.main import get_command

    from fccli.commands.app import full_app
    from fccli.commands.help_format import prepared

    found: list[tuple[list[str], Any]] = []

    def walk(path: list[str], command: Any) -> None:
        found.append((path, command))
        for name, sub in getattr(command, "commands", {}).items():
            walk([*path, name], sub)

    walk([], prepared(get_command(full_app())))
    return found


COMMANDS = _commands()
PATHS = [path for path, _ in COMMANDS]
IDS = [" ".join(path) or "fc" for path in PATHS]


def _helps(command: Any) -> list[str]:
    """The command's help and its parameters' help texts, as click holds them (English)."""
    from typer import Context

    ctx = Context(command, info_name="fc")
    texts = [command.help] if command.help else []
    texts += [p.help for p in command.get_params(ctx) if getattr(p, "help", None)]
    return texts


def _squashed(text: str) -> str:
    return "".join(text.split())


def cells(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_every_help_text_of_every_command_is_said_in_chinese(fc, path: list[str]) -> None:
    from fccli.commands.help_format import said

    command = dict(zip(IDS, COMMANDS, strict=True))[" ".join(path) or "fc"][1]
    english = _helps(command)
    page = fc(*path, "--help", "--lang", "zh")
    assert page.returncode == 0, page.stderr
    squashed = _squashed(page.stdout)
    i18n.set_language("zh")
    for text in english:
        chinese = said(text)
        assert chinese != text, f"no Chinese for {text!r}"
        assert re.search(r"[\u4e00-\u9fff]", chinese), chinese
        assert _squashed(chinese) in squashed, chinese
        assert _squashed(text) not in squashed, f"English left on the page: {text!r}"
    # click's own words
    assert page.stdout.startswith(f"用法：fc {' '.join(path)}".rstrip() + " ")
    assert "选项：" in page.stdout and "显示本帮助并退出。" in page.stdout
    for word in ("Usage:", "Options:", "Arguments:", "Commands:", "Show this message"):
        assert word not in page.stdout
    for word in ("[default:", "[required]", "[env var:", "default: "):
        assert word not in page.stdout


def test_the_run_page_in_chinese(fc) -> None:
    page = fc("--lang", "zh", "run", "--help", env=clean_env(COLUMNS="80")).stdout
    for line in (
        "用法：fc run [OPTIONS] QUESTION",
        "  带着工具定义提问，执行模型要求的调用，把结果回填给模型，如此反复。",
        "参数：",
        "  QUESTION  要问的问题，例如 杭州今天适合跑步吗？  [必填]",
        "  --system <str>                  系统提示。",
        "  -h, --help                      显示本帮助并退出。",
    ):
        assert line in page.splitlines(), line
    squashed = _squashed(page)
    assert "[默认：8；x>=1]" in squashed  # --max-steps: default and range
    assert "[环境变量：FC_OTLP]" in squashed
    # a help text with values in it: the values as they are, in the Chinese sentence
    assert "看harness（执行框架）如何处理：bad-json,missing-arg," in squashed
    assert "fccheck如何发现它：ignore-stop-reason," in squashed
    golden.check("zh/help-run-80.txt", page)


def test_the_list_of_commands_in_chinese(fc) -> None:
    page = fc("--help", "--lang", "zh", env=clean_env(COLUMNS="80")).stdout
    assert "命令：" in page.splitlines()
    assert "  tools      打印工具定义，和发送时一模一样（模型读到的 JSON）。" in page.splitlines()
    assert "..." not in page.partition("命令：")[2]  # each summary whole, wrapped
    assert "把结果回填给模型，如此反复。" in _squashed(page)
    golden.check("zh/help-fc-80.txt", page)


def test_the_list_of_commands_shows_each_summary_whole(fc) -> None:
    page = fc("--help", env=clean_env(COLUMNS="80")).stdout
    listed = " ".join(page.partition("Commands:")[2].split())
    for name, (_module, _attribute, help) in DECLARED.items():
        assert f"{name} {help}" in listed, name
    otel = " ".join(fc("export", "--help", env=clean_env(COLUMNS="80")).stdout.split())
    assert "Needs the otel extra." in otel.partition("Commands:")[2]


@pytest.mark.parametrize(
    "env",
    [{"FC_LANG": "zh"}, {"LANG": "zh_CN.UTF-8"}, {"LC_ALL": "zh_CN.UTF-8", "LANG": "C"}],
    ids=["FC_LANG", "LANG", "LC_ALL"],
)
def test_the_environment_chooses_chinese_help(fc, env: dict[str, str]) -> None:
    page = fc("--help", env=clean_env(**env))
    assert page.returncode == 0
    assert page.stdout.startswith("用法：fc [OPTIONS] COMMAND [ARGS]...")
    assert "让 LLM 工具调用看得见" in page.stdout


def test_english_help_is_unchanged(fc) -> None:
    page = fc("run", "--help", env=clean_env(COLUMNS="80")).stdout
    lines = page.splitlines()
    assert lines[0] == "Usage: fc run [OPTIONS] QUESTION"
    assert "Options:" in lines and "Arguments:" in lines
    assert "  -h, --help                      Show this message and exit." in lines
    assert "  --system <str>                  A system prompt." in lines
    assert "[default: 8; x>=1]" in " ".join(page.split())
    assert not re.search(r"[\u4e00-\u9fff]", page.replace("杭州今天适合跑步吗", ""))


@pytest.mark.parametrize("columns", [60, 80, 120])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_help_fits_the_width_and_its_columns_align(
    fc, path: list[str], lang: str, columns: int
) -> None:
    page = fc(*path, "--help", "--lang", lang, env=clean_env(COLUMNS=str(columns))).stdout
    width = max(min(columns, 80) - 2, 50)  # click's page width
    for line in page.splitlines():
        assert cells(line) <= width, f"{cells(line)} > {width}: {line!r}"
    for section in re.split(r"\n\n", page):
        lines = section.splitlines()
        if not lines or not re.fullmatch(
            r"(选项|参数|命令|Options|Arguments|Commands)[:：]", lines[0]
        ):
            continue
        starts = set()
        for line in lines[1:]:
            row = re.match(r"  (\S.*?)  +(?=\S)", line)
            if line.startswith("   "):  # the help's next line, under the help
                starts.add(cells(line) - cells(line.lstrip()))
            elif row:
                starts.add(cells(row.group(0)))
        assert len(starts) == 1, (lines[0], starts)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["run"], "错误：缺少参数 'QUESTION'。"),
        (["run", "q", "--zzz"], "错误：没有这个选项：--zzz"),
        (
            ["run", "q", "--max-tokenz", "2"],
            "错误：没有这个选项：--max-tokenz（可能是：--max-steps, --max-tokens）",
        ),
        (["show", "--step", "x"], "错误：'--step' 的值无效：'x' 不是有效的整数。"),
        (["show", "--step", "0"], "错误：'--step' 的值无效：0 不在范围 x>=1 内。"),
        (["rn"], "错误：没有命令 'rn'。你是想用 'run' 吗？"),
        (["run", "q", "extra"], "错误：多出了意料之外的参数（extra）"),
        (["run", "q", "--max-steps"], "错误：选项 '--max-steps' 需要一个值。"),
    ],
    ids=[
        "missing",
        "no-such-option",
        "possible-options",
        "not-int",
        "range",
        "command",
        "extra",
        "value",
    ],
)
def test_usage_errors_in_chinese(fc, args: list[str], said: str) -> None:
    ran = fc("--lang", "zh", *args)
    assert ran.returncode == 2
    lines = ran.stderr.splitlines()
    assert lines[-1] == said
    assert "Error" not in ran.stderr and "Usage" not in ran.stderr and "Try" not in ran.stderr
    if args[0] in ("run", "show") and len(lines) > 1:
        assert lines[0].startswith(f"用法：fc {args[0]} [OPTIONS]")
        assert lines[1] == f"运行 'fc {args[0]} -h' 查看帮助。"


def test_usage_errors_in_english_are_clicks(fc) -> None:
    ran = fc("run", "q", "--bogus")
    assert ran.returncode == 2
    assert ran.stderr.splitlines() == [
        "Usage: fc run [OPTIONS] QUESTION",
        "Try 'fc run -h' for help.",
        "",
        "Error: No such option: --bogus (Possible options: --out)",
    ]
    ran = fc("show", "--step", "x")
    assert ran.stderr.splitlines()[-1] == (
        "Error: Invalid value for '--step': 'x' is not a valid int range."
    )


def test_no_command_shows_the_chinese_help(fc) -> None:
    ran = fc(env=clean_env(FC_LANG="zh"))
    assert ran.returncode == 2
    assert "用法：fc [OPTIONS] COMMAND [ARGS]..." in ran.stderr + ran.stdout
    assert "命令：" in ran.stderr + ran.stdout


def test_fc_own_words_in_a_usage_error_are_localized() -> None:
    """A `typer.BadParameter` with fc's own words (a Msg) is said by click in the language."""
    from typer import BadParameter

    from fccli.commands.help_format import click_error

    i18n.set_language("zh")
    error = BadParameter(
        i18n.Msg("step {step}: {message}", step=2, message="x"), param_hint="'--x'"
    )
    assert click_error(error) == "'--x' 的值无效：第 2 步：x"


def test_wrapping_by_display_width() -> None:
    from fccli.commands.help_format import wrapped

    lines = wrapped("模型只说出调用意图（stop_reason 是 tool_use），程序执行。", 20)
    assert all(cells(line) <= 20 for line in lines)
    assert (
        "".join(lines).replace(" ", "") == "模型只说出调用意图（stop_reason是tool_use），程序执行。"
    )
    assert not any(line.startswith(("，", "。", "）")) for line in lines)
    assert not any(line.endswith("（") for line in lines)
    # a word longer than a line is cut, as click cuts it
    assert [cells(line) <= 10 for line in wrapped("x" * 25, 10)] == [True, True, True]


@pytest.mark.parametrize("width", [58, 78])
@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_english_help_in_ascii_is_clicks_own_word_for_word(path: list[str], width: int) -> None:
    """fc's English context changes nothing click writes, but for a text that is not ASCII and
    a required argument in the usage line."""
    from typer import Context

    from fccli.commands.help_format import WideContext as english

    command = dict(zip(IDS, COMMANDS, strict=True))[" ".join(path) or "fc"][1]
    name = " ".join(["fc", *path])
    ours = command.get_help(english(command, info_name=name, terminal_width=width))
    clicks = command.get_help(Context(command, info_name=name, terminal_width=width))
    usage, blank, rest = clicks.partition("\n\n")  # but a usage line's `{ARG}` is `ARG`
    clicks = re.sub(r"\{([^\s{}]+)\}", r"\1", usage) + blank + rest
    if path == ["run"]:  # its QUESTION's example is Chinese: the only line click wraps wrong
        example = "  QUESTION  What to ask, e.g. 杭州今天适合跑步吗？"
        ours, clicks = (
            "\n".join(line for line in text.splitlines() if not line.startswith(example))
            for text in (ours, clicks)
        )
        ours = ours.replace("\n            [required]", "")
    assert ours == clicks


def test_usage_lines_write_arguments_as_cli_md_does() -> None:
    # typer marks a required argument `{QUESTION}`; CLI.md writes `fc run QUESTION`.
    usages = {}
    for path, command in COMMANDS:
        ctx = command.context_class(command, info_name=" ".join(["fc", *path]))
        usages[" ".join(path)] = ctx.get_usage()
    assert usages["run"] == "Usage: fc run [OPTIONS] QUESTION"
    assert usages["diff"] == "Usage: fc diff [OPTIONS] A B"
    for name, usage in usages.items():
        assert "{" not in usage, (name, usage)
