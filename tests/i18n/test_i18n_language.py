"""Which language fc speaks: `--lang`, else `$FC_LANG`, else the locale, else English."""

from __future__ import annotations

import pytest

from fccli import i18n
from fccli.commands.help_format import language_in
from tests.conftest import REPO, clean_env

LANG_LINE_ZH = "fc 说话用的语言"
LANG_LINE_EN = "The language fc speaks in"


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "en"),
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "zh_TW.UTF-8"}, "zh"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}, "en"),  # LC_ALL decides first
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_CN"}, "zh"),
        ({"FC_LANG": "zh"}, "zh"),
        ({"FC_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"FC_LANG": "zh-Hans", "LANG": "C"}, "zh"),
        ({"FC_LANG": "fr", "LANG": "zh_CN.UTF-8"}, "zh"),  # one fc lacks: the locale decides
    ],
)
def test_language_from_the_environment(environ: dict[str, str], expected: str) -> None:
    assert i18n.language_from_environment(environ) == expected


def test_lang_is_found_anywhere_before_a_double_dash() -> None:
    assert language_in(["run", "--help", "--lang", "zh"]) == "zh"
    assert language_in(["--lang=zh", "show"]) == "zh"
    assert language_in(["run", "--", "--lang", "zh"]) is None
    with pytest.raises(ValueError):
        language_in(["--lang", "fr"])


def test_lang_option_wins_over_the_environment(fc) -> None:
    zh = fc("run", "--help", "--lang", "zh", env=clean_env(FC_LANG="en"))
    assert zh.returncode == 0 and LANG_LINE_ZH in zh.stdout
    en = fc("--lang", "en", "show", "--help", env=clean_env(LANG="zh_CN.UTF-8"))
    assert en.returncode == 0 and LANG_LINE_EN in en.stdout


def test_the_locale_chooses_when_nothing_else_does(fc) -> None:
    ran = fc("show", "--help", env=clean_env(LANG="zh_CN.UTF-8"))
    assert LANG_LINE_ZH in ran.stdout


def test_a_language_fc_does_not_speak_is_a_usage_error(fc) -> None:
    ran = fc("--lang", "fr", "show")
    assert ran.returncode == 2
    assert ran.stderr.startswith("fc: error: --lang:") and "'fr'" in ran.stderr
    assert "Traceback" not in ran.stderr
    bare = fc("show", "--lang")
    assert bare.returncode == 2
    assert bare.stderr.strip() == "fc: error: --lang: fc speaks en or zh (fc 只会说 en 或 zh)"


def test_a_msg_is_english_text_said_in_chinese_when_localized() -> None:
    message = i18n.Msg("step {step}: {message}", step=2, message="x")
    assert message == "step 2: x" and isinstance(message, str)
    i18n.set_language("zh")
    assert i18n.localized(message) == "第 2 步：x"
    assert message == "step 2: x"  # what a trace keeps does not change
    import pickle

    assert pickle.loads(pickle.dumps(message)).localized() == "第 2 步：x"


def test_the_readme_section_on_chinese_shows_what_it_says(tmp_path) -> None:
    from tests.support.doc_claims import examples, failures, run

    readme = (REPO / "README.md").read_text("utf-8")
    (block,) = [e for e in examples(readme) if e.heading.startswith("fc in Chinese")]
    outcome = run(block, tmp_path, clean_env())
    assert failures(block, outcome, tmp_path) == []
