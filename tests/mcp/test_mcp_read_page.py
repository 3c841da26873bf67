"""read_page takes what facts takes: a vault path, a page's file name, its title or one of its aliases."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from wikic.mcp_server import WikiTools


@pytest.mark.parametrize("name", ["entities/sam-altman.md", "sam-altman", "[[sam-altman|Sam]]", "Sam Altman",
                                  "sam altman", "Samuel Altman"])
def test_read_page_takes_a_path_a_file_name_a_title_or_an_alias(make_vault: Callable[..., Path],
                                                                  page: Callable[..., str], name: str) -> None:
    root = make_vault({"entities/sam-altman.md": page("Sam Altman", aliases=["Samuel Altman"],
                                                      body="# Sam Altman\n\nSam Altman leads a company.\n"),
                       "entities/openai.md": page("OpenAI")})
    tools = WikiTools(root)
    text = tools.read_page(name)
    assert text.startswith("entities/sam-altman.md\n\n") and "Sam Altman leads a company." in text
    if "/" not in name and "[" not in name:  # facts takes a title, an alias or a file name
        assert tools.facts(name).startswith("Sam Altman (entities/sam-altman.md)")


def test_a_name_no_page_has_is_still_no_page(make_vault: Callable[..., Path], page: Callable[..., str]) -> None:
    root = make_vault({"entities/sam-altman.md": page("Sam Altman")})
    assert WikiTools(root).read_page("Sam Altmann").startswith("No page “Sam Altmann” in this vault.")
