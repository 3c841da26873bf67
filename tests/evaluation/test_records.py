"""The eval cache's rows: typed from where they are read to where they are written, the file's shape unchanged."""

from __future__ import annotations

from wikic.evaluation.checks import Said
from wikic.evaluation.records import AnchorsChecked, PageRead, PageRecord

READ = PageRead(4, 3, 2, 2, 3, 3, (Said("Chroma is a store.", ("raw/a.md:L3",), True),), "Chroma", ("Chroma",), 5)


def test_a_record_is_written_as_the_rows_it_was_read_from() -> None:
    record = PageRecord(120, 17, READ, AnchorsChecked("ab12", 1, 1, 1, 1))
    row = record.to_json()
    said = [["Chroma is a store.", ["raw/a.md:L3"], True]]
    assert row == [120, 17, [4, 3, 2, 2, 3, 3, said, "Chroma", ["Chroma"], 5], ["ab12", 1, 1, 1, 1]]
    assert PageRecord.from_json(row) == record
    assert PageRecord.from_json([120, 17, None, None]) == PageRecord(120, 17, None, None)  # a page that is not text


def test_a_row_of_another_shape_is_read_as_missing() -> None:
    row = PageRecord(120, 17, READ).to_json()
    assert PageRecord.from_json(row[:3]) is None
    assert PageRecord.from_json(["120", 17, row[2], None]) is None
    assert PageRecord.from_json([120, 17, row[2][:5], None]) is None  # a page's read cut short: read it again
    assert PageRecord.from_json([120, 17, [*row[2][:5], "x", *row[2][6:]], None]) is None
    # what its anchors gave, malformed, is checked again; what the page gave stands
    assert PageRecord.from_json([120, 17, row[2], ["ab12", 1]]) == PageRecord(120, 17, READ, None)
