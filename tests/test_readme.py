"""The README points only at what a reader of the repository can open."""

from __future__ import annotations

import re

from tests.conftest import REPO

README = (REPO / "README.md").read_text("utf-8")


def test_every_markdown_file_the_readme_names_is_in_the_repository() -> None:
    for name in re.findall(r"[\w./-]+\.md\b", README):
        assert (REPO / name).is_file(), f"README names {name}, which the repository does not hold"


def test_every_link_to_a_section_finds_its_heading() -> None:
    headings = re.findall(r"^#+ (.+)$", README, flags=re.MULTILINE)
    anchors = {re.sub(r"[^\w -]", "", h.lower()).replace(" ", "-") for h in headings}
    for anchor in re.findall(r"\]\(#([^)]+)\)", README):
        assert anchor in anchors, f"README links to #{anchor}, which no heading makes"
