"""The README points only at what a reader of the repository can open."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, clean_env
from tests.support.doc_claims import examples, walk
from tests.support.inprocess import run_in_process

README = (REPO / "README.md").read_text("utf-8")


def test_every_markdown_file_the_readme_names_is_in_the_repository() -> None:
    # named in the text, linked or not, by its path from the repository's root
    for name in re.findall(r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+\.md|README[\w.]*\.md)\b", README):
        assert (REPO / name).is_file(), f"README names {name}, which the repository does not hold"


PAGES = [REPO / "README.md", REPO / "README.zh.md", *sorted((REPO / "docs").rglob("*.md"))]


def _anchors(page: Path) -> set[str]:
    headings = re.findall(r"^#+ (.+)$", page.read_text("utf-8"), flags=re.MULTILINE)
    return {re.sub(r"[^\w -]", "", h.lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_every_link_of_a_page_finds_its_file_and_heading(page: Path) -> None:
    """Each relative link, `[text](path)`, `[text](path#anchor)` or `[text](#anchor)`, from the
    page's own folder: the file is in the repository and the heading is in the file."""
    for target, anchor in re.findall(
        r"\]\((?!https?:)([^)#\s]*)(?:#([^)\s]+))?\)", page.read_text("utf-8")
    ):
        linked = (page.parent / target).resolve() if target else page
        where = f"{page.relative_to(REPO)} links {target}#{anchor}"
        assert linked.exists(), f"{where}: no such file in the repository"
        if anchor:
            assert anchor in _anchors(linked), f"{where}: no heading makes that anchor"


def test_the_readme_stays_a_front_page() -> None:
    """Under 300 lines, each reference page it lists in its "More" section there."""
    assert README.count("\n") < 300
    # its first screen: what fc is, the two set-up commands, where to go next
    first_screen = "\n".join(README.splitlines()[:24])
    for said in ["fc is a command-line tool", "```bash", "**Where to go next:**", "docs/course.md"]:
        assert said in first_screen, said
    more = README.split("\n## More\n", 1)[1]
    for page in (REPO / "docs" / "reference").glob("*.md"):
        if not page.name.endswith(".zh.md"):
            assert f"docs/reference/{page.name}" in more, page.name


def test_the_chinese_readme_stands_on_its_own() -> None:
    """Under 300 lines; every Chinese page in its "更多" list; it sends a reader to the English
    README for nothing (English pages it links say so: （英文）)."""
    assert README_ZH.count("\n") < 300
    first_screen = "\n".join(README_ZH.splitlines()[:24])
    for said in ["fc 是一个命令行工具", "```bash", "**下一步去哪：**", "docs/course.zh.md"]:
        assert said in first_screen, said
    more = README_ZH.split("\n## 更多\n", 1)[1]
    for page in (REPO / "docs" / "reference").glob("*.zh.md"):
        assert f"docs/reference/{page.name}" in more, page.name
    assert "](README.md#" not in README_ZH and "见英文 [README" not in README_ZH
    for line in README_ZH.splitlines():
        for page in re.findall(r"\]\((docs/[\w./-]+\.md)", line):
            english = not page.endswith(".zh.md") and page not in ("docs/glossary.md",)
            if english and not page.startswith("docs/course"):
                assert "英文" in line, f"{page}: a line linking an English page says so"


# README.zh.md: the Chinese README, linked from the top of README.md

README_ZH = (REPO / "README.zh.md").read_text("utf-8")


def _bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def test_the_readme_links_the_chinese_readme_right_under_its_title() -> None:
    lines = README.splitlines()
    assert lines[0].startswith("# fc ")
    assert "[README.zh.md](README.zh.md)" in next(line for line in lines[1:] if line.strip())
    # ... and its first two commands are still the first thing after that line.
    first_block = README.index("```bash")
    assert "```" not in README[:first_block] and README.count("\n", 0, first_block) <= 5


def test_the_two_readmes_start_with_the_same_two_commands() -> None:
    english, chinese = _bash_blocks(README)[0], _bash_blocks(README_ZH)[0]
    assert chinese == english
    assert english.count("\n") == 2 and english.startswith("python3 -m venv .venv && ")
    assert README_ZH.index("```bash") < README_ZH.index("\n## ")  # before any section


def test_every_file_and_section_the_chinese_readme_names_exists() -> None:
    for name in re.findall(r"\]\(([\w./-]+\.md)(?:#[^)]*)?\)", README_ZH):
        assert (REPO / name).is_file(), f"README.zh.md links {name}, which is not in the repository"
    headings = re.findall(r"^#+ (.+)$", README_ZH, flags=re.MULTILINE)
    anchors = {re.sub(r"[^\w -]", "", h.lower()).replace(" ", "-") for h in headings}
    for anchor in re.findall(r"\]\(#([^)]+)\)", README_ZH):
        assert anchor in anchors, f"README.zh.md links to #{anchor}, which no heading makes"
    english = {
        re.sub(r"[^\w -]", "", h.lower()).replace(" ", "-")
        for h in re.findall(r"^#+ (.+)$", README, flags=re.MULTILINE)
    }
    for anchor in re.findall(r"\]\(README\.md#([^)]+)\)", README_ZH):
        assert anchor in english, (
            f"README.zh.md links to README.md#{anchor}, which no heading makes"
        )


def test_every_command_of_the_chinese_readme_shows_what_it_says(tmp_path: Path) -> None:
    """The blocks after the set-up commands, run in order in one directory, as a reader goes
    down the page (a later block opens the trace an earlier one wrote), under a Chinese locale.
    Each block's claims are the comment under it (tests/support/doc_claims.py)."""
    blocks = examples(README_ZH)[1:]
    assert len(blocks) >= 8
    shutil.copytree(REPO / "docs" / "course", tmp_path / "docs" / "course")
    wrong = walk("README.zh.md", blocks, tmp_path, clean_env(LANG="zh_CN.UTF-8"))
    assert not wrong, "\n".join(wrong)


def test_the_readme_runs_top_to_bottom(tmp_path: Path) -> None:
    """Every block after the set-up commands, in order, in one fresh directory, as a reader
    goes down the page; each block's claims are the comment under it."""
    blocks = examples(README)[1:]
    assert len(blocks) >= 4
    wrong = walk("README.md", blocks, tmp_path, clean_env())
    assert not wrong, "\n".join(wrong)


def _normalized(transcript: str) -> list[str]:
    """The lines of a run's transcript without what changes from run to run: times, prices, the
    rule lines' width, the trace's time stamp."""
    lines = []
    for line in transcript.strip("\n").splitlines():
        line = re.sub(r"\d+(\.\d+)? ms", "N ms", line)
        line = re.sub(r"; at the prices of [^;]*\(they change with the time of day\)", "", line)
        line = re.sub(r"\$\d+(\.\d+)?", "$N", line)  # prices change with the time of day
        line = re.sub(r"─+", "─", line)
        lines.append(re.sub(r"traces/\d{8}-\d{6}-", "traces/TIME-", line))
    return lines


def test_the_transcript_the_readme_shows_is_what_fc_run_prints(tmp_path: Path) -> None:
    shown = re.search(r"```\n(step 1 .*?)```", README, re.S)
    assert shown is not None
    ran = run_in_process(["run", "杭州今天适合跑步吗？"], cwd=tmp_path, env=clean_env())
    assert ran.returncode == 0, ran.stderr
    assert _normalized(shown[1]) == _normalized(ran.stdout)
    # ... and the trace directory it draws holds exactly those files
    tree = re.search(r"```\ntraces/\d{8}-\d{6}-hangzhou/\n(.*?)```", README, re.S)
    assert tree is not None
    drawn = re.findall(r"^  (\S+\.json)", tree[1], re.M)
    (trace,) = (tmp_path / "traces").iterdir()
    assert sorted(drawn) == sorted(f.name for f in trace.iterdir())
