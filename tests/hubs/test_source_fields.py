"""What a source page says of its source: its address without credentials, its date as the source gives it."""

from __future__ import annotations

import datetime as dt

import pytest

from wikic.hubs.source_page import public_url, source_page_name


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("https://ana:s3cret@example.com/post?id=4&api_key=XYZ#top", "https://example.com/post?id=4#top"),
        ("https://tok3n@example.com/a?access_token=1&session=2&page=3", "https://example.com/a?page=3"),
        ("https://www.youtube.com/watch?v=abc", "https://www.youtube.com/watch?v=abc"),
    ],
)
def test_a_source_page_shows_no_credentials_of_the_url_it_was_captured_from(given: str, shown: str) -> None:
    assert public_url(given) == shown


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("raw/articles/rag-in-practice.md", "rag-in-practice"),
        ("raw/papers/Paper Title (2024).pdf.md", "paper-title-2024-pdf"),
        ("raw/transcripts/2026-10-20-sync.md", "2026-10-20-sync"),
    ],
)
def test_a_source_page_is_named_after_its_raw_file(raw: str, name: str) -> None:
    assert source_page_name(raw) == name


def test_dates_are_what_the_source_gives() -> None:
    from wikic.hubs.source_page import _date

    assert _date(dt.date(2026, 9, 1)) == "2026-09-01"
    assert _date("2026-09") == "2026-09" and _date("2026-09-01T10:00:00Z") == "2026-09-01"
    assert _date("September 2026") is None and _date(2026) is None
