"""Claim lines and dates: what a page line holds reads back exactly, and a source's date is found in the
documented order (frontmatter, file name, a transcript's turn, the capture day)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from wikic.compile.page import PageUpdate, render_page
from wikic.compile.plan import Entity, Fact, Plan
from wikic.ingest.anchor import anchor_plan
from wikic.pages.blocks import render_block
from wikic.vault.formats.claims import (
    CLAIMS_KEY,
    UNKNOWN_DAY,
    Citation,
    Claim,
    claim_id,
    normal_text,
    parse_line,
    rows_block,
    scan,
    strip_claim_meta,
)
from wikic.vault.formats.dates import first_day, partial, source_date
from wikic.vault.page_layout import layout_for


@pytest.mark.parametrize(
    ("given", "normal"),
    [("2025", "2025"), ("2025-3", "2025-03"), ("2025/03/07", "2025-03-07"), (dt.date(2024, 2, 29), "2024-02-29"),
     ("2025-13", None), ("2025-02-30", None), ("March 2025", None), ("", None), (None, None)],
)
def test_partial_dates_keep_their_precision_and_refuse_what_is_no_date(given: object, normal: str | None) -> None:
    assert partial(given) == normal


def test_a_partial_date_starts_on_its_first_day() -> None:
    assert [first_day(v) for v in ("2025", "2025-03", "2025-03-07")] == [
        dt.date(2025, 1, 1), dt.date(2025, 3, 1), dt.date(2025, 3, 7)]


def test_the_source_date_comes_from_frontmatter_then_the_file_name() -> None:
    assert source_date("---\ndate: 2024-05-02\n---\n# x\n", "raw/articles/2023-01-01-x.md") == (
        dt.date(2024, 5, 2), "frontmatter")
    assert source_date("# x\n", "raw/articles/2023-01-09-x.md") == (dt.date(2023, 1, 9), "filename")
    assert source_date("# x\n", "raw/articles/report-20221130.md") == (dt.date(2022, 11, 30), "filename")
    assert source_date("---\ndate: 2024\n---\n# x\n", "raw/articles/x.md") is None  # a year is no day
    assert source_date("# x\n", "raw/articles/x-123456789.md") is None


def test_claims_in_a_transcript_are_dated_by_their_turn_else_left_to_the_capture_day() -> None:
    text = ("---\ntitle: t\nstarted: 2026-11-30T14:02:11Z\n---\n\n"
            "**user** · 2026-11-30 14:02\nWe use uv for Python.\n\n"
            "**user** · 2026-12-01 09:00\nAcme moved to Rust.\n")
    plan = Plan("raw/transcripts/t.md", "", entities=(
        Entity("Acme", "organization", (), "", (Fact("Acme moved to Rust", "Acme moved to Rust."),)),))
    (fact,) = anchor_plan(plan, text).entities[0].facts
    assert (fact.seen, fact.via) == (dt.date(2026, 12, 1), "transcript")
    bare = Plan("raw/articles/a.md", "", entities=(
        Entity("Acme", "organization", (), "", (Fact("Acme moved to Rust", "Acme moved to Rust."),)),))
    (fact,) = anchor_plan(bare, "# a\n\nAcme moved to Rust.\n").entities[0].facts
    assert (fact.seen, fact.via) == (None, "")  # the compiler dates it by the capture day


CLAIM = Claim("c0123abcd", "[[acme|Acme]] runs on PostgreSQL",
              (Citation("^[[[raw/a.md|a.md]] L3]", dt.date(2024, 1, 2), "frontmatter"),),
              "2023-01", None, "c99990000", None)


def _page(*claims: Claim) -> str:
    body = "\n".join(c.render() for c in claims)
    return f"# Acme\n\n{render_block('section:key-facts', body)}\n\n{render_block(CLAIMS_KEY, rows_block(claims))}\n"


def test_a_claim_line_reads_back_as_written_with_what_its_page_keeps_of_it() -> None:
    line = CLAIM.render("2025-03")
    assert line == "- [[acme|Acme]] runs on PostgreSQL (2023-01 – 2025-03) ^[[[raw/a.md|a.md]] L3] ^c0123abcd"
    (read,) = scan(_page(CLAIM))
    assert read == replace(CLAIM, block="section:key-facts", line=4)
    assert strip_claim_meta(line) == "- [[acme|Acme]] runs on PostgreSQL (2023-01 – 2025-03) ^[[[raw/a.md|a.md]] L3]"
    # without its page's rows, a line still reads: its days are unknown
    bare = parse_line(CLAIM.render())
    assert bare is not None and bare.text == CLAIM.text and bare.seen == UNKNOWN_DAY


def test_a_page_read_again_gives_its_claims_again_whatever_the_caller_did_to_the_first_list() -> None:
    page = _page(CLAIM)
    first = scan(page)
    first.clear()  # a caller's list is its own: the parse kept for the next reader of the same text is not
    assert scan(page) == [replace(CLAIM, block="section:key-facts", line=4)]
    assert scan(page.replace("PostgreSQL", "SQLite"))[0].text == "[[acme|Acme]] runs on SQLite"


def test_the_same_claim_line_reads_with_the_rows_of_the_page_it_is_on() -> None:
    # a line parsed once is not parsed again: what its page's rows say of it must still count
    later = replace(CLAIM, citations=(replace(CLAIM.citations[0], seen=dt.date(2026, 2, 1), via="captured"),),
                    topic=None)
    assert later.render() == CLAIM.render()
    assert scan(_page(CLAIM)) == [replace(CLAIM, block="section:key-facts", line=4)]
    assert scan(_page(later)) == [replace(later, block="section:key-facts", line=4)]


def test_a_timeless_claim_shows_no_date_and_one_fact_carries_all_its_sources() -> None:
    two = Claim("c0000aaaa", "Acme keeps its data in SQLite",
                (Citation("^[[[raw/a.md|a.md]] L3]", dt.date(2026, 10, 30)),
                 Citation("^[[[raw/b.md|b.md]] L9]", dt.date(2026, 11, 2), "frontmatter", "sentence")))
    assert two.render() == ("- Acme keeps its data in SQLite ^[[[raw/a.md|a.md]] L3] ^[[[raw/b.md|b.md]] L9] "
                            "^c0000aaaa")
    (read,) = scan(_page(two))
    assert read.citations == two.citations and read.seen == dt.date(2026, 10, 30)
    assert read.without("raw/a.md").citations == (two.citations[1],)


def test_a_line_of_an_earlier_version_still_reads() -> None:
    old = ("- [[acme|Acme]] runs on PostgreSQL (as of 2024-01-02) ^[[[raw/a.md|a.md]] L3] "
           "%%claim seen=2024-01-02 via=frontmatter from=2023-01 topic=c99990000%% ^c0123abcd")
    assert parse_line(old) == CLAIM
    assert parse_line(old.replace("seen=2024-01-02", "seen=soon")) is None  # a damaged comment is no claim
    assert strip_claim_meta(old) == "- [[acme|Acme]] runs on PostgreSQL (as of 2024-01-02) ^[[[raw/a.md|a.md]] L3]"


def test_the_id_follows_the_words_not_their_spelling() -> None:
    linked = claim_id("Acme runs on [[postgresql|PostgreSQL]].")
    assert linked == claim_id("acme  runs on PostgreSQL")
    assert claim_id("Acme runs on PostgreSQL", taken={linked}) != linked
    assert normal_text("Acme runs on [[postgresql|PostgreSQL]].") == "acme runs on postgresql"


def test_an_earlier_versions_page_is_rendered_by_topic_and_an_edited_block_stays_as_it_is() -> None:
    old = ("- Acme runs on PostgreSQL (since 2023-01) ^[[[raw/a.md|a.md]] L3] "
           "%%claim seen=2024-01-02 via=frontmatter from=2023-01%% ^c0123abcd")
    new = ("- Acme runs on MongoDB (since 2025-03) ^[[[raw/b.md|b.md]] L4] "
           "%%claim seen=2025-03-02 via=frontmatter from=2025-03 topic=c0123abcd%% ^c0123beef")
    body = (f"# Acme\n\n## Facts\n\n{render_block('facts:raw/a.md', old)}\n\n"
            f"{render_block('facts:raw/b.md', new)}\n")
    done = render_page(body, layout_for({}, "entity"), PageUpdate(), today=dt.date(2026, 1, 1))
    assert done.moved == 1 and not done.conflicts
    claims = {c.id: c for c in scan(done.body)}
    assert claims["c0123abcd"].block == "history" and claims["c0123beef"].block == "section:key-facts"
    assert "## Facts" not in done.body and "facts:raw/" not in done.body
    assert "- Acme runs on PostgreSQL (2023-01 – 2025-03) ^[[[raw/a.md|a.md]] L3] ^c0123abcd" in done.body
    edited = body.replace("runs on MongoDB", "runs on MongoDB 7")
    kept = render_page(edited, layout_for({}, "entity"), PageUpdate(), today=dt.date(2026, 1, 1))
    assert "facts:raw/b.md" in kept.kept and "Acme runs on MongoDB 7 (since 2025-03)" in kept.body
