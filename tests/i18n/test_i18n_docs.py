"""The Chinese docs (README.zh.md, docs/course.zh.md) keep to the Chinese style fc's messages
keep to (docs/glossary.md): full-width punctuation in Chinese sentences, a space between Chinese
and Latin words or numbers, and the course's words. Their commands run in tests/docs/test_readme.py
and tests/docs/test_course.py."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO

PAGES = [
    "README.zh.md",
    "docs/course.zh.md",
    *sorted(f"docs/reference/{p.name}" for p in (REPO / "docs" / "reference").glob("*.zh.md")),
]
CJK = r"[\u3400-\u4dbf\u4e00-\u9fff]"


def _prose(text: str) -> list[str]:
    """The page's lines as a reader reads them: code blocks and check comments blanked, inline
    code as one Latin word (`C`), link targets dropped."""
    for block in (r"```.*?```", r"<!--.*?-->"):
        text = re.sub(block, lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    lines = []
    for line in text.splitlines():
        line = re.sub(r"`[^`]*`", "C", line)
        lines.append(re.sub(r"\]\([^)]*\)", "]", line))
    return lines


@pytest.mark.parametrize("page", PAGES)
def test_chinese_sentences_are_spaced_and_punctuated_as_chinese(page: str) -> None:
    wrong = []
    for number, line in enumerate(_prose((REPO / page).read_text("utf-8")), 1):
        for pattern, why in [
            (CJK + r"[A-Za-z0-9]|[A-Za-z0-9%]" + CJK, "no space between Chinese and Latin"),
            (CJK + r"\s*[,;:?!()]|[,;:?!(]\s*" + CJK, "ASCII punctuation in a Chinese sentence"),
        ]:
            wrong += [f"{page}:{number}: {why}: {m.group(0)!r}" for m in re.finditer(pattern, line)]
    assert not wrong, "\n".join(wrong)


def test_the_style_check_sees_what_it_checks() -> None:
    assert _prose("中文 `x`，好\n```\n中文abc\n```") == ["中文 C，好", "", ""]


def test_the_chinese_readme_says_the_lesson_and_how_to_choose_chinese() -> None:
    text = (REPO / "README.zh.md").read_text("utf-8")
    for said in ["模型只说出意图，程序来执行", "LANG=zh_CN.UTF-8", "FC_LANG=zh", "--lang zh"]:
        assert said in text, said
    assert "docs/glossary.md" in text and "docs/course.zh.md" in text


def test_the_chinese_pages_use_the_glossary_words() -> None:
    # The course's words, as the glossary pairs them, not a synonym a translator might pick.
    for page in PAGES:
        text = (REPO / page).read_text("utf-8")
        for word in ["调用意图", "回填", "校验", "harness（执行框架）", "演示模型", "轨迹"]:
            # every word on each page a learner starts from; a reference page uses those it needs
            assert word in text or page.startswith("docs/reference/"), f"{page}: {word}"
        for avoided in ["函数调用意图", "回传", "验证参数", "严格模式", "用户消息"]:
            assert avoided not in text, f"{page}: {avoided}"


def test_the_chinese_readme_gives_a_command_for_each_lesson() -> None:
    text = (REPO / "README.zh.md").read_text("utf-8")
    lessons = [*(f"# 实验 {n}：" for n in range(1, 5)), *(f"# 坑 {n}：" for n in range(1, 7))]
    for lesson in lessons:
        assert lesson in text, lesson  # as the comment of the command that plays it
