"""The one slug function: names Windows reserves (COM0 and LPT0 too, and COM¹ once NFKC made it com1) never
become file names as they are, "İstanbul" is "istanbul" (not "i-stanbul"), and a vault whose pages were
named by the earlier rules still has them found under the new names."""

from __future__ import annotations

from pathlib import Path

import pytest
from library import page_names
from testkit import make_vault, page

from wikic.vault.slug import PAGE, SOURCE, WINDOWS_RESERVED, slugify


@pytest.mark.parametrize(
    ("name", "as_page", "as_source"),
    [
        ("COM0", "com0-page", "com0-source"),
        ("lpt0", "lpt0-page", "lpt0-source"),
        ("COM⁰", "com0-page", "com0-source"),  # a superscript zero: Windows reads it as COM0
        ("LPT¹", "lpt1-page", "lpt1-source"),
        ("Con", "con-page", "con-source"),
        ("COM10", "com10", "com10"),  # not a device
    ],
)
def test_names_windows_reserves_get_a_suffix(name: str, as_page: str, as_source: str) -> None:
    assert slugify(name) == as_page
    assert slugify(name, rules=SOURCE) == as_source


def test_every_device_name_is_reserved() -> None:
    devices = {"con", "prn", "aux", "nul"} | {f"{port}{n}" for port in ("com", "lpt") for n in range(10)}
    assert devices <= WINDOWS_RESERVED
    for rules in (PAGE, SOURCE):
        assert all(slugify(device.upper(), rules=rules) not in WINDOWS_RESERVED for device in devices)


@pytest.mark.parametrize("name", ["İstanbul", "İSTANBUL", "I\u0307stanbul", "i\u0307stanbul"])
def test_the_dot_of_a_turkish_capital_i_does_not_cut_a_page_name(name: str) -> None:
    assert slugify(name) == "istanbul"
    assert slugify(f"{name} Airport") == "istanbul-airport"
    assert slugify("Diyarbakır") == "diyarbakır"  # the dotless i is a letter of its own


def test_pages_named_by_the_earlier_rules_are_still_found(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {
        "entities/i-stanbul.md": page("İstanbul"),  # what the slug made of it before
        "entities/com0.md": page("COM0"),
        "entities/city.md": page("Constantinople"),
    })
    (root / "entities" / "city.md").rename(root / "entities" / "i-stanbul-2.md")  # titled otherwise
    names, _ = page_names(root)
    assert names.lookup("İstanbul") == "entities/i-stanbul.md"
    assert names.lookup("COM0") == "entities/com0.md"
    assert names.lookup("Constantinople") == "entities/i-stanbul-2.md"
    assert names.lookup("İstanbul 2") == "entities/i-stanbul-2.md"  # by its file name, hyphens aside
