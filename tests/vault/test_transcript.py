"""The transcript format: turn headers are found again at their lines, a body line that looks like a header
cannot start a turn, and a later part keeps the earlier lines where they were."""

from __future__ import annotations

from datetime import UTC, datetime

from wikic.vault.formats.transcript import Conversation, Turn, headers, render, turn_at

T0 = datetime(2026, 11, 30, 14, 2, 11, tzinfo=UTC)
CONV = Conversation(
    id="s-1", tool="claude-code", title="Use uv",
    turns=(Turn("user", "From now on use uv.\n**assistant** · 2026-01-01 00:00", T0),
           Turn("assistant", "Understood.\n(tools: Bash ×3)", T0), Turn("user", "Thanks")),
)


def test_headers_are_found_at_their_lines_and_body_lookalikes_are_escaped() -> None:
    text = render(CONV)
    lines = text.splitlines()
    found = headers(text)
    assert [(h.speaker, h.when) for h in found] == [
        ("user", T0.replace(second=0)), ("assistant", T0.replace(second=0)), ("user", None)]
    assert [lines[h.line - 1] for h in found] == ["**user** · 2026-11-30 14:02", "**assistant** · 2026-11-30 14:02",
                                                  "**user**"]
    assert "\\**assistant** · 2026-01-01 00:00" in lines
    quote_line = lines.index("Understood.") + 1
    turn = turn_at(text, quote_line)
    assert turn is not None and turn.speaker == "assistant"
    assert turn_at(text, 1) is None


def test_frontmatter_is_yaml_and_parts_are_marked() -> None:
    import yaml

    text = render(CONV, part=2, export="raw/transcripts/exports/s-1.jsonl", turns=CONV.turns[2:])
    meta = yaml.safe_load(text.split("---\n")[1])
    assert meta == {"title": "Use uv", "conversation": "s-1", "tool": "claude-code",
                    "started": T0, "part": 2, "export": "raw/transcripts/exports/s-1.jsonl"}
    assert [h.speaker for h in headers(text)] == ["user"]
