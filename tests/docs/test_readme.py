"""The README points only at what a reader of the repository can open."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.conftest import REPO, clean_env
from tests.support.doc_claims import examples, failures, run

README = (REPO / "README.md").read_text("utf-8")


def test_every_markdown_file_the_readme_names_is_in_the_repository() -> None:
    for name in re.findall(r"[\w./-]+\.md\b", README):
        assert (REPO / name).is_file(), f"README names {name}, which the repository does not hold"


def test_every_link_to_a_section_finds_its_heading() -> None:
    headings = re.findall(r"^#+ (.+)$", README, flags=re.MULTILINE)
    anchors = {re.sub(r"[^\w -]", "", h.lower()).replace(" ", "-") for h in headings}
    for anchor in re.findall(r"\]\(#([^)]+)\)", README):
        assert anchor in anchors, f"README links to #{anchor}, which no heading makes"


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
    wrong = []
    for example in blocks:
        outcome = run(example, tmp_path, clean_env(LANG="zh_CN.UTF-8"))
        wrong += [
            f"README.zh.md line {example.line} ({example.heading}): {problem}"
            + f"\n--- stdout\n{outcome.stdout[-1500:]}\n--- stderr\n{outcome.stderr[-1500:]}"
            for problem in failures(example, outcome, tmp_path)
        ]
    assert not wrong, "\n".join(wrong)
