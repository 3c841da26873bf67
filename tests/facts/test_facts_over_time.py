"""Facts over time, end to end through `ingest` with a scripted model that reads the prompt: dated claims,
supersession in either ingest order, contradictions, `facts --as-of`, and every bad pairing refused with a
reason while its claim is still written."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from fake_llm import FakeLLM
from library import facts_for, ingest, run_lint
from testkit import init_wiki, llm_toml

from wikic.ingest.pipeline import IngestOptions, IngestReport
from wikic.lint.run import LintOptions
from wikic.vault.formats.claims import scan

TODAY = dt.date(2026, 11, 29)
LISTED = re.compile(r"^- (c[0-9a-f]{8}) \| (.+?) \| (.+)$", re.M)


def _vault(tmp_path: Path) -> Path:
    # compose = false: the extraction requests are the ones the tests read
    return init_wiki(tmp_path / "wiki", min_references=1, toml=llm_toml(strategy="single", compose=False))


def _listed(messages: Sequence[Mapping[str, str]]) -> list[tuple[str, str, str]]:
    """The claims the prompt lists: (id, page title, claim)."""
    return LISTED.findall(messages[-1]["content"])


def _model(facts: dict[str, list[dict[str, Any]]],
           pair: Callable[[list[tuple[str, str, str]], str], str | None] | None = None) -> FakeLLM:
    """A model that answers each source (found by its key phrase) with `facts` (entity -> facts), and fills
    `replaces` with `pair(listed claims, entity)` when the fact asks for it (`"replaces": "?"`)."""

    def reply(messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
        user = messages[-1]["content"]
        source = user[user.find('Source: "') :]
        for key, items in facts.items():
            if key not in source:
                continue
            entities = []
            for item in items:
                fact = dict(item["fact"])
                if fact.get("replaces") == "?":
                    fact["replaces"] = pair(_listed(messages), item["entity"]) if pair else None
                entities.append({"name": item["entity"], "kind": "organization", "aliases": [], "summary": "",
                                 "facts": [fact]})
            return {"summary": "", "entities": entities, "concepts": [], "comparisons": [], "relations": []}
        return {"summary": "", "entities": [], "concepts": [], "comparisons": [], "relations": []}

    return FakeLLM().respond_with(reply)


def _latest_of(entity: str) -> Callable[[list[tuple[str, str, str]], str], str | None]:
    def pair(listed: list[tuple[str, str, str]], name: str) -> str | None:
        return next((cid for cid, page, _ in listed if page == name == entity), None)

    return pair


def _source(tmp_path: Path, name: str, day: str, sentence: str) -> str:
    path = tmp_path / "inbox" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"---\ndate: {day}\n---\n# {name.removesuffix('.md')}\n\n{sentence}\n", encoding="utf-8")
    return str(path)


def _ingest(root: Path, llm: FakeLLM, *inputs: str) -> IngestReport:
    report = ingest(root, IngestOptions(inputs=inputs, use_palace=False, lint_after=False, today=TODAY), llm=llm)
    assert all(s.status == "compiled" for s in report.sources), [(s.raw_path, s.error) for s in report.sources]
    return report


POSTGRES = "Since January 2023 Acme runs its platform on PostgreSQL."
MONGO = "In March 2025 Acme moved its platform to MongoDB, which it runs on."
COCKROACH = "From March 2025 Acme runs its platform on CockroachDB."
PLANS = {
    "PostgreSQL": [{"entity": "Acme", "fact": {"text": "Acme runs its platform on PostgreSQL", "quote": POSTGRES,
                                               "valid_from": "2023-01", "replaces": "?"}}],
    "MongoDB": [{"entity": "Acme", "fact": {"text": "Acme runs its platform on MongoDB", "quote": MONGO,
                                            "valid_from": "2025-03", "replaces": "?"}}],
    "CockroachDB": [{"entity": "Acme", "fact": {"text": "Acme runs its platform on CockroachDB", "quote": COCKROACH,
                                                "valid_from": "2025-03", "replaces": "?"}}],
}


def _inputs(tmp_path: Path) -> dict[str, str]:
    return {
        "postgres": _source(tmp_path, "acme-2023.md", "2023-01-10", POSTGRES),
        "mongo": _source(tmp_path, "acme-2025.md", "2025-03-20", MONGO),
        "cockroach": _source(tmp_path, "acme-cockroach.md", "2025-03-25", COCKROACH),
    }


def _texts(root: Path, as_of: str) -> list[str]:
    return [p.claim.text for p in facts_for(root, "Acme", as_of).held]


@pytest.mark.parametrize("order", [("postgres", "mongo"), ("mongo", "postgres")])
def test_a_later_value_supersedes_the_earlier_one_whatever_order_the_sources_come_in(
    tmp_path: Path, order: tuple[str, str]
) -> None:
    root = _vault(tmp_path)
    inputs = _inputs(tmp_path)
    llm = _model(PLANS, _latest_of("Acme"))
    for key in order:
        _ingest(root, llm, inputs[key])

    text = (root / "entities/acme.md").read_text(encoding="utf-8")
    facts, history = text.split("## History")
    assert "Acme runs its platform on MongoDB (since 2025-03)" in facts and "PostgreSQL" not in facts
    assert "Acme runs its platform on PostgreSQL (2023-01 – 2025-03) ^[[[raw/articles/acme-2023.md" in history
    claims = scan(text)
    assert len(claims) == 2 and {c.topic_id for c in claims} == {claims[0].topic_id}  # one topic, both kept
    assert _texts(root, "2024-06-30") == ["Acme runs its platform on PostgreSQL"]
    assert _texts(root, "2025-03") == ["Acme runs its platform on MongoDB"]
    assert _texts(root, "2022") == []
    # the observed day and how it was found are kept off the reading line, for a program to read
    postgres = next(c for c in claims if "PostgreSQL" in c.text)
    assert f"{postgres.id} src=raw/articles/acme-2023.md seen=2023-01-10 via=frontmatter" in history
    assert f"{postgres.id} from=2023-01" in history
    assert "%%" not in text and "as of" not in text


def test_the_prompt_lists_current_claims_with_their_ids(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    inputs = _inputs(tmp_path)
    llm = _model(PLANS, _latest_of("Acme"))
    _ingest(root, llm, inputs["postgres"])
    _ingest(root, llm, inputs["mongo"])
    (claim,) = [c for c in scan((root / "entities/acme.md").read_text(encoding="utf-8")) if "PostgreSQL" in c.text]
    listed = _listed(llm.history[-1].messages)
    assert listed == [(claim.id, "Acme", "Acme runs its platform on PostgreSQL (since 2023-01)")]


def test_the_claims_listed_to_the_model_are_bounded(tmp_path: Path) -> None:
    from library import page_names

    from wikic.facts.lookup import MAX_PROMPT_LISTING_CHARS, listed_claims

    root = _vault(tmp_path)
    for batch in range(5):  # six facts a source, as the wire model allows
        said = [f"Acme runs service {batch}{i} on host {i} of its long-named cluster." for i in range(6)]
        many = {f"service {batch}0 ": [{"entity": "Acme", "fact": {"text": s.rstrip("."), "quote": s}} for s in said]}
        _ingest(root, _model(many), _source(tmp_path, f"acme-services-{batch}.md", "2024-01-01", " ".join(said)))
    names, _ = page_names(root)
    listed = listed_claims(root, names, ["Acme"])
    assert 10 <= len(listed) <= 20 and sum(len(line) + 3 for line in listed) <= MAX_PROMPT_LISTING_CHARS


def test_claims_that_hold_at_the_same_time_and_disagree_are_contested_until_a_later_source_settles_it(
    tmp_path: Path,
) -> None:
    root = _vault(tmp_path)
    inputs = _inputs(tmp_path)
    llm = _model(PLANS, _latest_of("Acme"))
    _ingest(root, llm, inputs["mongo"])
    report = _ingest(root, llm, inputs["cockroach"])
    assert report.sources[0].contested == ["entities/acme.md"]

    page = root / "entities/acme.md"
    assert "\ncontested: true\n" in page.read_text(encoding="utf-8")
    found = [f for f in run_lint(root, LintOptions(select=("contradiction",), today=TODAY)).findings]
    assert len(found) == 1 and found[0].severity == "warning"
    assert "^[raw/articles/acme-2025.md:L6]" in found[0].message
    assert "^[raw/articles/acme-cockroach.md:L6]" in found[0].message
    assert {p.claim.text for p in facts_for(root, "Acme", "2025-06").held} == {
        "Acme runs its platform on MongoDB", "Acme runs its platform on CockroachDB"}
    from library import vault_status

    from wikic.status import render_status

    status = vault_status(root, lint=False)
    assert status.contested == ["entities/acme.md"]
    assert "Contested: 1 page(s) with contradicting claims: entities/acme.md" in render_status(status)

    settled = {"Postgres again": [{"entity": "Acme", "fact": {
        "text": "Acme runs its platform on PostgreSQL",
        "quote": "Since July 2025 Acme runs its platform on PostgreSQL.",
        "valid_from": "2025-07", "replaces": "?"}}]}
    later = _source(tmp_path, "acme-later.md", "2025-07-02",
                    "Postgres again. Since July 2025 Acme runs its platform on PostgreSQL.")
    _ingest(root, _model(settled, _latest_of("Acme")), later)
    text = page.read_text(encoding="utf-8")
    assert "contested" not in text.split("---")[1]
    assert not run_lint(root, LintOptions(select=("contradiction",), today=TODAY)).findings
    assert _texts(root, "2025-08") == ["Acme runs its platform on PostgreSQL"]
    assert len(scan(text)) == 3  # nothing lost: the two contested claims are in the history
    status = vault_status(root, lint=False)
    assert not status.contested and status.extraction["superseded"] == 2
    assert "Facts over time: 2 claim(s) superseded" in render_status(status)


# -- bad pairings: refused with a reason, the claim still written -------------------------------------------


def _one_source(tmp_path: Path, fact: dict[str, Any], entity: str = "Acme") -> tuple[Path, IngestReport]:
    root = _vault(tmp_path)
    inputs = _inputs(tmp_path)
    other = {"Brevo": [{"entity": "Brevo", "fact": {"text": "Brevo sells routers", "quote": "Brevo sells routers."}}]}
    llm = _model({**PLANS, **other}, _latest_of("Acme"))
    _ingest(root, llm, inputs["postgres"], _source(tmp_path, "brevo-news.md", "2024-01-01", "Brevo sells routers."))
    bad = {"Acme again": [{"entity": entity, "fact": fact}]}
    later = _source(tmp_path, "acme-again.md", "2025-05-01", "Acme again. " + fact["quote"])
    return root, _ingest(root, _model(bad), later)


def _brevo_claim(root: Path) -> str:
    return scan((root / "entities/brevo.md").read_text(encoding="utf-8"))[0].id


QUOTE = "Acme runs its platform on MariaDB."


@pytest.mark.parametrize(
    ("fact", "reason"),
    [
        ({"text": "Acme runs its platform on MariaDB", "quote": QUOTE, "replaces": "c0000beef"},
         "no page has a claim with that id"),
        ({"text": "Acme runs its platform on MariaDB", "quote": QUOTE, "replaces": "the-pg-one"},
         "not a claim id"),
        ({"text": "Acme runs its platform on MariaDB", "quote": "From 2031 Acme runs its platform on MariaDB.",
          "valid_from": "2031-01"},
         "from 2031-01 is in the future"),
        ({"text": "Acme runs its platform on MariaDB",
          "quote": "From May 2024 to 2023 Acme ran its platform on MariaDB.",
          "valid_from": "2024-05", "valid_to": "2023"},
         "the interval ends (2023) before it starts (2024-05)"),
        ({"text": "Acme runs its platform on MariaDB", "quote": QUOTE, "valid_from": "2019"},
         "from 2019 is not stated by its quote (no 2019 in it)"),
        ({"text": "Acme runs its platform on MariaDB", "quote": QUOTE, "valid_from": "spring"},
         "from 'spring' is not a date"),
    ],
)
def test_a_bad_pairing_or_interval_is_refused_with_its_reason_and_nothing_is_lost(
    tmp_path: Path, fact: dict[str, Any], reason: str
) -> None:
    root, report = _one_source(tmp_path, fact)
    (refused,) = report.sources[0].rejected
    assert reason in refused and "MariaDB" in refused
    text = (root / "entities/acme.md").read_text(encoding="utf-8")
    claims = {c.text: c for c in scan(text)}
    assert set(claims) == {"Acme runs its platform on PostgreSQL", "Acme runs its platform on MariaDB"}
    assert all(c.topic is None for c in claims.values())  # no pairing was made
    assert claims["Acme runs its platform on MariaDB"].valid_from is None  # the bad interval is not kept
    assert "## History" not in text  # nothing was superseded


def test_a_pairing_across_subjects_is_refused(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    inputs = _inputs(tmp_path)
    other = {"Brevo": [{"entity": "Brevo", "fact": {"text": "Brevo sells routers", "quote": "Brevo sells routers."}}]}
    _ingest(root, _model({**PLANS, **other}), inputs["postgres"],
            _source(tmp_path, "brevo-news.md", "2024-01-01", "Brevo sells routers."))
    brevo = _brevo_claim(root)
    bad = {"Acme again": [{"entity": "Acme", "fact": {"text": "Acme runs its platform on MariaDB", "quote": QUOTE,
                                                      "replaces": brevo}}]}
    later = _source(tmp_path, "acme-again.md", "2025-05-01", "Acme again. " + QUOTE)
    report = _ingest(root, _model(bad), later)
    (refused,) = report.sources[0].rejected
    assert f"replaces {brevo}: that claim is about entities/brevo.md, not entities/acme.md" in refused
    brevo_text = (root / "entities/brevo.md").read_text(encoding="utf-8")
    assert [c.text for c in scan(brevo_text)] == ["Brevo sells routers"] and "## History" not in brevo_text
    assert len(scan((root / "entities/acme.md").read_text(encoding="utf-8"))) == 2


def test_a_person_s_edit_in_a_claim_block_wins(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    inputs = _inputs(tmp_path)
    llm = _model(PLANS, _latest_of("Acme"))
    _ingest(root, llm, inputs["postgres"])
    page = root / "entities/acme.md"
    edited = page.read_text(encoding="utf-8").replace("on PostgreSQL (since", "on PostgreSQL 15 (since")
    page.write_text(edited, encoding="utf-8")
    report = _ingest(root, llm, inputs["mongo"])
    text = page.read_text(encoding="utf-8")
    assert "Acme runs its platform on PostgreSQL 15 (since 2023-01)" in text  # left exactly as the person wrote it
    assert "MongoDB" in text and any("section:key-facts" in k for k in report.sources[0].kept_edits)
    # what the compiler has for that section now sits beside the person's block, not in it
    assert "<!-- wikic:begin section:key-facts:more " in text


# -- ending a claim by hand, and the commands ---------------------------------------------------------------


def test_invalidate_ends_a_claim_with_a_dated_note_and_keeps_it_in_the_history(tmp_path: Path) -> None:
    from library import invalidate

    from wikic.ingest.compiled import Compiled

    root = _vault(tmp_path)
    _ingest(root, _model(PLANS), _inputs(tmp_path)["postgres"])
    page = root / "entities/acme.md"
    (claim,) = scan(page.read_text(encoding="utf-8"))
    raw_before = sorted(p.relative_to(root) for p in (root / "raw").rglob("*") if p.is_file())

    done = invalidate(root, claim.id, "Acme shut the platform down.", on="2026-06", today=TODAY)

    assert done.page == "entities/acme.md" and done.ended == dt.date(2026, 6, 1)
    note = (root / done.note).read_text(encoding="utf-8")
    assert done.note.startswith("raw/notes/") and f"invalidates: {claim.id}" in note and "shut the platform" in note
    raw_after = sorted(p.relative_to(root) for p in (root / "raw").rglob("*") if p.is_file())
    assert [p for p in raw_after if p not in raw_before] == [Path(done.note)]  # one new file; none changed
    text = page.read_text(encoding="utf-8")
    history = text.split("## History")[1]
    assert "Acme runs its platform on PostgreSQL (2023-01 – 2026-06-01)" in history
    assert f"to=2026-06-01 ended={done.note}" in history
    assert _texts(root, "2026-05") == ["Acme runs its platform on PostgreSQL"] and _texts(root, "2026-07") == []
    assert Compiled.load(root).is_current(done.note, str(Compiled.load(root).entries[done.note].sha256))
    assert f"| invalidate | [[acme\\|Acme]] | {done.claim} ended 2026-06-01; note [[{done.note}]] |" in (
        root / "log.md"
    ).read_text(encoding="utf-8")


def test_a_claim_ended_once_is_not_ended_again_and_the_other_claims_of_its_page_still_can(tmp_path: Path) -> None:
    from library import invalidate

    from wikic.errors import UsageError

    root = _vault(tmp_path)
    source = _source(tmp_path, "acme-stack.md", "2024-01-10", f"{POSTGRES}\nAcme is based in Lisbon.")
    llm = FakeLLM().respond_with({"summary": "", "concepts": [], "comparisons": [], "relations": [], "entities": [
        {"name": "Acme", "kind": "organization", "aliases": [], "summary": "", "facts": [
            {"text": "Acme runs its platform on PostgreSQL", "quote": POSTGRES, "valid_from": "2023-01"},
            {"text": "Acme is based in Lisbon", "quote": "Acme is based in Lisbon."}]}]})
    _ingest(root, llm, source)
    page = root / "entities/acme.md"
    postgres, lisbon = scan(page.read_text(encoding="utf-8"))
    first = invalidate(root, postgres.id, "Acme moved to MongoDB.", on="2025-03", today=TODAY)

    text, notes = page.read_text(encoding="utf-8"), sorted((root / "raw/notes").iterdir())
    for reason, on in (("Acme moved to MongoDB.", "2025-03"), ("Another reason.", None)):  # a retry; a second thought
        with pytest.raises(UsageError) as info:
            invalidate(root, postgres.id, reason, on=on, today=TODAY)
        assert info.value.message == (
            f"{postgres.id} on entities/acme.md already ended on 2025-03-01 (ended by {first.note}): nothing changed"
        )
        assert page.read_text(encoding="utf-8") == text and sorted((root / "raw/notes").iterdir()) == notes

    other = invalidate(root, lisbon.id, "Acme moved\x00 to Porto.", today=TODAY)  # the other claim of the page
    assert other.page == "entities/acme.md" and other.note != first.note
    note = (root / other.note).read_text(encoding="utf-8")
    assert "Reason: Acme moved to Porto.\n" in note and "\x00" not in note
    ended = {c.id: (c.valid_to, c.ended) for c in scan(page.read_text(encoding="utf-8"))}
    assert ended == {postgres.id: ("2025-03-01", first.note), lisbon.id: (TODAY.isoformat(), other.note)}


@pytest.mark.parametrize(
    ("claim", "on", "reason", "message"),
    [
        ("c00000000", None, "gone", "no page has the claim c00000000"),
        ("acme", None, "gone", "'acme' is not a claim id"),
        (None, "2030-01-01", "gone", "is in the future"),
        (None, "2022-05", "gone", "holds from 2023-01: it cannot end on 2022-05-01"),
        (None, None, "  ", "give the reason"),
    ],
)
def test_invalidate_refuses_what_cannot_be_and_writes_nothing(
    tmp_path: Path, claim: str | None, on: str | None, reason: str, message: str
) -> None:
    from library import invalidate

    from wikic.errors import UsageError

    root = _vault(tmp_path)
    _ingest(root, _model(PLANS), _inputs(tmp_path)["postgres"])
    page = root / "entities/acme.md"
    before = page.read_text(encoding="utf-8")
    notes = root / "raw/notes"
    with pytest.raises(UsageError, match=re.escape(message)):
        invalidate(root, claim or scan(before)[0].id, reason, on=on, today=TODAY)
    assert page.read_text(encoding="utf-8") == before
    assert not notes.exists() or not any(notes.iterdir())


def test_the_facts_command_prints_and_exits_as_documented(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from wikic.cli import app

    root = _vault(tmp_path)
    inputs = _inputs(tmp_path)
    llm = _model(PLANS, _latest_of("Acme"))
    _ingest(root, llm, inputs["postgres"])
    _ingest(root, llm, inputs["mongo"])
    runner = CliRunner()
    result = runner.invoke(app, ["facts", "Acme", "--as-of", "2024-02-29", "--vault", str(root)])
    assert result.exit_code == 0, result.output
    assert "Acme (entities/acme.md) as of 2024-02-29:" in result.output
    assert "Acme runs its platform on PostgreSQL (2023-01 – 2025-03) ^[raw/articles/acme-2023.md:L6]" in result.output
    data = json.loads(runner.invoke(app, ["facts", "acme", "--json", "--vault", str(root)]).output)
    assert [c["text"] for c in data["claims"]] == ["Acme runs its platform on MongoDB"]
    assert data["claims"][0]["anchor"] == "raw/articles/acme-2025.md:L6" and data["claims"][0]["from"] == "2025-03"
    bad = runner.invoke(app, ["facts", "Acme", "--as-of", "soon", "--vault", str(root)])
    assert bad.exit_code == 2 and "--as-of 'soon' is not a date" in bad.output
    missing = runner.invoke(app, ["facts", "Nobody", "--vault", str(root)])
    assert missing.exit_code == 2 and "no page is named 'Nobody'" in missing.output


def test_an_answer_as_of_a_date_is_given_the_claims_that_held_then(tmp_path: Path) -> None:
    from library import open_palace

    from wikic.query.answer import context_messages
    from wikic.query.retrieve import retrieve

    root = _vault(tmp_path)
    (root / "wikic.toml").write_text('[llm]\nstrategy = "single"\n[embedding]\nprovider = "static"\n', encoding="utf-8")
    inputs = _inputs(tmp_path)
    llm = _model(PLANS, _latest_of("Acme"))
    _ingest(root, llm, inputs["postgres"])
    _ingest(root, llm, inputs["mongo"])
    with open_palace(root) as palace:
        palace.sync()
        then = retrieve(palace, "What database does Acme run its platform on?", as_of=dt.date(2024, 6, 30))
        now = retrieve(palace, "What database does Acme run its platform on?")
    (page,) = [item for item in then.items if item.path == "entities/acme.md"]
    assert "PostgreSQL (2023-01 – 2025-03) ^[raw/articles/acme-2023.md:L6]" in page.text
    assert "MongoDB" not in page.text and "%%" not in page.text and "^c" not in page.text
    asked = context_messages(then)[-1]["content"]
    assert "Answer as of 2024-06-30: the pages show only the claims that held on that day" in asked
    (page,) = [item for item in now.items if item.path == "entities/acme.md"]
    assert "MongoDB (since 2025-03)" in page.text and "PostgreSQL (2023-01 – 2025-03)" in page.text  # the history
    assert "Answer as of" not in context_messages(now)[-1]["content"]


def test_a_fact_s_time_fields_are_asked_for_only_where_they_can_hold() -> None:
    """A small model decodes under the schema: fields it cannot fill from the chunk are not in it."""
    from wikic.ingest.extract.prompt import PromptContext, asked_schema, build_messages, fact_fields
    from wikic.ingest.extract.windows import Chunk
    from wikic.ingest.plan_model import ChunkPlan

    def fact_props(schema: dict[str, Any]) -> set[str]:
        fact = schema["properties"]["entities"]["items"]["properties"]["facts"]["items"]
        assert set(fact["required"]) == set(fact["properties"])
        return set(fact["properties"])

    plain, dated = Chunk("Acme runs on PostgreSQL.", 1, 1), Chunk("Since 2023 Acme runs on PostgreSQL.", 1, 1)
    listed = ["c0123abcd | Acme | Acme runs on MySQL"]
    assert fact_props(asked_schema(ChunkPlan, fact_fields(plain, ()))) == {"text", "quote"}
    assert fact_props(asked_schema(ChunkPlan, fact_fields(dated, ()))) == {"text", "quote", "valid_from", "valid_to"}
    assert fact_props(asked_schema(ChunkPlan, fact_fields(plain, listed))) == {"text", "quote", "replaces"}
    system = build_messages(plain, title="t", source_path="raw/t.md", context=PromptContext())[0]["content"]
    assert "valid_from" not in system and "replaces" not in system
    asked = build_messages(dated, title="t", source_path="raw/t.md", context=PromptContext(), existing_claims=listed)
    assert "`valid_from` / `valid_to`" in asked[0]["content"] and "`replaces`" in asked[0]["content"]
    assert "- c0123abcd | Acme | Acme runs on MySQL" in asked[-1]["content"]


def test_compiling_a_superseded_claim_s_source_again_changes_nothing(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    inputs = _inputs(tmp_path)
    llm = _model(PLANS, _latest_of("Acme"))
    _ingest(root, llm, inputs["postgres"])
    _ingest(root, llm, inputs["mongo"])
    page = root / "entities/acme.md"
    before = page.read_text(encoding="utf-8")
    again = ingest(root, IngestOptions(inputs=[inputs["postgres"]], use_palace=False, lint_after=False, today=TODAY,
                                       force=True), llm=llm)
    assert [s.status for s in again.sources] == ["compiled"]
    assert page.read_text(encoding="utf-8") == before
    assert [c.block for c in scan(before)] == ["section:key-facts", "history"]


def test_an_interval_that_is_the_sources_own_date_is_its_date_not_a_claim_to_prove() -> None:
    import datetime as dt

    from wikic.facts.intervals import checked_claim
    from wikic.vault.formats.claims import Claim
    from wikic.vault.formats.mentions import ClaimMeta

    claim = Claim("c0000aaaa", "Brightline is a sync service for local-first apps.", ())
    refused: list[str] = []
    # the model copied the source's frontmatter date into valid_from: dropped without a refusal
    kept = checked_claim(claim, ClaimMeta(seen="2026-08-15", valid_from="2026-08-15", years=()),
                         dt.date(2026, 12, 1), refused)
    assert refused == [] and kept.valid_from is None
    # another date the quote does not state is still refused
    checked_claim(claim, ClaimMeta(seen="2026-08-15", valid_from="2019", years=()), dt.date(2026, 12, 1), refused)
    assert refused == ["'Brightline is a sync service for local-first apps.': from 2019 is not stated by its quote "
                       "(no 2019 in it)"]
