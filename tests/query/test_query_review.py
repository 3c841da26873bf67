"""`query --save --review`: the filing kept as a proposal, the vault as it was; accepted, it is the filing a
direct `--save` makes; made against pages changed since, it is refused, never applied over them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from querykit import QueryWiki
from standin_openai import StandinServer

QUESTION = "Who is the CEO of OpenAI?"
PAGE = "queries/who-is-the-ceo-of-openai.md"


def _notes(root: Path) -> dict[str, str]:
    """The vault's notes and log.md, by sha1 (the palace and the tool's caches aside)."""
    return {p.relative_to(root).as_posix(): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in root.rglob("*.md") if ".wikic" not in p.parts}


def test_a_filing_kept_for_review_lands_as_the_direct_filing(wiki: QueryWiki, template_vault: Path,
                                                             tmp_path: Path, standin: StandinServer) -> None:
    before = _notes(wiki.root)
    result = wiki.cli("query", QUESTION, "--save", "--review", "--json")
    assert result.exit_code == 0, result.stderr
    proposal = json.loads(result.stdout)["proposal"]
    assert _notes(wiki.root) == before and not (wiki.root / PAGE).exists()
    listed = wiki.cli("review", "--json")
    assert [p["id"] for p in json.loads(listed.stdout)] == [proposal]
    assert json.loads(listed.stdout)[0]["kind"] == "query" and json.loads(listed.stdout)[0]["title"] == QUESTION
    accepted = wiki.cli("review", "accept", proposal, "--json")
    assert accepted.exit_code == 0, accepted.stderr
    done = json.loads(accepted.stdout)
    assert done["closed"] and not done["replayed"] and PAGE in done["written"] and done["lint_errors"] == 0

    direct = QueryWiki.copy(template_vault, tmp_path / "direct", standin)
    assert direct.cli("query", QUESTION, "--save").exit_code == 0
    assert _notes(wiki.root) == _notes(direct.root)


def test_a_filing_made_against_pages_changed_since_is_refused(wiki: QueryWiki) -> None:
    result = wiki.cli("query", QUESTION, "--save", "--review", "--json")
    proposal = json.loads(result.stdout)["proposal"]
    page = "entities/openai.md"
    edited = wiki.read(page) + "\nA line of my own.\n"
    wiki.write(page, edited)
    refused = wiki.cli("review", "accept", proposal)
    assert refused.exit_code == 2 and "accepted whole, on the pages it was made against" in refused.stderr
    assert wiki.read(page) == edited and not (wiki.root / PAGE).exists()
    assert wiki.cli("review", "reject", proposal).exit_code == 0
    assert json.loads(wiki.cli("review", "--json").stdout) == []
