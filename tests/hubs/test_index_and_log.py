"""index.md and log.md as a reader uses them: the overview first, sections counted, each page by its lead, an
entry a person rewrote kept; log rows that link, read back by status whatever version wrote them."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from wikic.ingest.report import SourceReport, log_notes
from wikic.pages.index_file import Entry, recounted, remove_lines, upsert_entry, with_entries, with_overview
from wikic.pages.log_file import read_rows, row
from wikic.status import read_log, token_totals
from wikic.vault.layout import PAGE_FOLDERS
from wikic.vault.lead import page_lead

TYPES = list(PAGE_FOLDERS)
OLD_INDEX = (
    "# Wiki Index\n\n## Entities\n- [[openai]] — AI company.\n- [[sam-altman]] — CEO.\n## Concepts\n## Queries\n"
)


def test_new_entries_go_in_counted_sections_under_a_line_leading_to_the_overview() -> None:
    new = with_entries(OLD_INDEX, [Entry("entity", "gpt-4", "A model."), Entry("source", "sources/x", "An article.")],
                       TYPES, overview=True)
    assert new == (
        "# Wiki Index\n\nStart with the [[overview]]: what this wiki covers, its main subjects and what changed "
        "lately.\n\n## Entities\n*3 pages*\n- [[gpt-4]] — A model.\n- [[openai]] — AI company.\n- [[sam-altman]] — "
        "CEO.\n## Concepts\n## Queries\n## Sources\n*1 page*\n- [[sources/x]] — An article.\n"
    )
    # written again with the same entries, nothing moves; one page given twice is listed once
    assert with_entries(new, [Entry("entity", "gpt-4", "A model.")], TYPES, overview=True) == new
    twice = with_entries(OLD_INDEX, [Entry("entity", "gpt-4", "A model."), Entry("entity", "gpt-4", "A model.")],
                         TYPES)
    assert twice.count("[[gpt-4]]") == 1
    assert with_overview(new) == new


def test_many_entries_land_each_before_the_first_it_sorts_before_even_in_an_order_a_person_changed() -> None:
    # the Entities list put out of order by hand; a new Concepts section goes before Queries
    text = "# Wiki Index\n\n## Entities\n- [[b]] — B.\n- [[x]] — X.\n- [[c]] — C.\n\n## Queries\n- [[q]] — Q.\n"
    entries = [Entry("entity", name, name.upper() + ".") for name in ("d", "a", "y", "c2")]
    new = with_entries(text, [*entries, Entry("concept", "k", "K.")], TYPES)
    assert new == (
        "# Wiki Index\n\n## Entities\n*7 pages*\n- [[a]] — A.\n- [[b]] — B.\n- [[c2]] — C2.\n- [[d]] — D.\n"
        "- [[x]] — X.\n- [[c]] — C.\n- [[y]] — Y.\n\n## Concepts\n*1 page*\n- [[k]] — K.\n## Queries\n*1 page*\n"
        "- [[q]] — Q.\n"
    )


def test_an_entry_is_brought_to_the_pages_new_lead_unless_a_person_rewrote_it() -> None:
    text = OLD_INDEX.replace("— CEO.", "— my words for Sam.")
    was = {"openai": ["AI company."], "sam-altman": ["CEO."]}
    entries = [Entry("entity", "openai", "OpenAI is an AI lab."), Entry("entity", "sam-altman", "Leads.")]
    new = with_entries(text, entries, TYPES, was=was)
    assert "- [[openai]] — OpenAI is an AI lab.\n" in new
    assert "- [[sam-altman]] — my words for Sam.\n" in new


def test_counts_follow_removed_and_replaced_entries() -> None:
    counted = recounted(OLD_INDEX, TYPES)
    assert "## Entities\n*2 pages*\n" in counted
    assert "## Entities\n*1 page*\n- [[sam-altman]]" in remove_lines(counted, {5}, TYPES)
    added = upsert_entry(counted, Entry("query", "why", "Because."), TYPES)
    assert "## Queries\n*1 page*\n- [[why]] — Because.\n" in added and "## Entities\n*2 pages*\n" in added


def test_a_pages_lead_is_its_lead_block_without_anchors_ids_or_links() -> None:
    page = (
        "---\ntitle: Chroma\nsummary: old summary\n---\n# Chroma\n\n<!-- wikic:begin summary sha=000000000000 -->\n"
        "[[chroma|Chroma]] is an open-source vector database for [[embeddings|embeddings]]. "
        "^[[[raw/articles/x.md|x.md]] L3] ^c1234abcd\n<!-- wikic:end summary -->\n"
    )
    assert page_lead(page) == "Chroma is an open-source vector database for embeddings."
    assert page_lead("---\ntitle: Chroma\nsummary: A store.\n---\n# Chroma\n") == "A store."
    # a composed lead keeps the claims it says folded under it: they are not the lead a second time
    composed = page.replace(" ^c1234abcd\n<!--", "\n\n> [!quote]- Claims\n> - Chroma is open-source. "
                                                "^[[[raw/articles/x.md|x.md]] L3] ^c1234abcd\n<!--")
    assert page_lead(composed) == "Chroma is an open-source vector database for embeddings."
    assert page_lead("---\ntitle: Chroma\n---\n# Chroma\n\n[[a]] [[b]]\n") == "Chroma"
    # what a person left unclosed on a page opens nothing in the index or the overview
    unclosed = "---\ntitle: X\nsummary: Costs <!-- more [[x and %% y\n---\n# X\n"
    assert page_lead(unclosed) == "Costs &lt;!-- more [x and % y"


def test_an_ingest_row_links_its_source_page_and_pages_and_ends_with_its_cost() -> None:
    report = SourceReport("raw/articles/x.md", "X", "compiled", created=["entities/a.md", "entities/b.md"],
                          updated=["entities/c.md"], pending=["Q"], dropped={"no quote": 2}, prompt_tokens=4_000,
                          completion_tokens=120, cost=0.0123)
    notes = log_notes(report, lambda path: f"[[{path.rsplit('/', 1)[1][:-3]}|{path[9:10].upper()}]]")
    assert notes == ("created [[a|A]], [[b|B]]; updated [[c|C]]; 1 pending; 2 claims dropped (2 no quote); "
                     "4,120 tokens, $0.0123")
    line = row(dt.date(2026, 11, 29), "ingest", "[[sources/x|X]]", notes)
    assert line.startswith("| 2026-11-29 | ingest | [[sources/x\\|X]] | created [[a\\|A]], [[b\\|B]]; ")
    (read,) = read_rows(line)
    assert read.target == "[[sources/x|X]]" and read.target_link == "sources/x"
    assert [link for link, _ in read.links] == ["a", "b", "c"]
    assert read.tokens == 4_120 and read.cost == 0.0123


def test_status_reads_the_rows_of_every_version(tmp_path: Path) -> None:
    (tmp_path / "log.md").write_text(
        "# Wiki Log\n\n| Date | Action | Target | Notes |\n|------|--------|--------|-------|\n"
        "| 2026-09-08 | ingest | raw/articles/a.md | 1 created, 0 updated, 4,296 tokens, 4 pending |\n"
        "| 2026-11-20 | query | queries/q.md | 3 cited, 4,813 tokens, $0.0100 |\n"
        "| 2026-11-29 | ingest | [[sources/b\\|B]] | created [[x\\|X]]; 1,000 tokens, $0.0020 |\n"
        "| 2026-11-30 | query | [[q\\|Why?]] | refreshed; cited [[x\\|X]]; 500 tokens (cached) |\n",
        encoding="utf-8",
    )
    rows = read_log(tmp_path)
    assert [r.target for r in rows] == ["raw/articles/a.md", "queries/q.md", "[[sources/b|B]]", "[[q|Why?]]"]
    assert [r.target_link for r in rows] == [None, None, "sources/b", "q"]
    assert token_totals(rows) == {"total": 10_609, "cost": 0.012, "by_action": {
        "ingest": {"tokens": 5_296, "operations": 2}, "query": {"tokens": 5_313, "operations": 2}}}


def test_log_notes_count_one_thing_in_the_singular() -> None:
    from wikic.ingest.report import SourceReport, log_notes

    one = SourceReport("raw/articles/a.md", "A", "compiled", created=["entities/x.md"], repaired_quotes=1,
                       sentences_found=1)
    two = SourceReport("raw/articles/a.md", "A", "compiled", created=["entities/x.md"], repaired_quotes=2,
                       sentences_found=3)
    assert "1 quote repaired" in log_notes(one, str) and "1 sentence found" in log_notes(one, str)
    assert "2 quotes repaired" in log_notes(two, str) and "3 sentences found" in log_notes(two, str)
