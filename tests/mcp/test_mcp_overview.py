"""The MCP tools hand out the overview: whole (`overview`), or in the briefing (`wake_up(overview=true)`)."""

from __future__ import annotations

from querykit import QueryWiki

from wikic.mcp_server import WikiTools


def test_the_overview_tool_and_the_briefing_hand_out_the_overview(mcp_wiki: QueryWiki) -> None:
    tools = WikiTools(mcp_wiki.root)
    text = tools.overview()
    assert text == "overview.md\n\n" + (mcp_wiki.root / "overview.md").read_text(encoding="utf-8")
    assert "## Main subjects" in text and "## Latest changes" in text
    assert "## What the wiki covers ([[overview]])" in tools.wake_up(overview=True)
    assert "What the wiki covers" not in tools.wake_up()
    pages = tools.list_pages(type="source")
    assert pages.startswith("3 page(s):\n- sources/")
