"""Prose whose every sentence is anchored (`wikic/compile/prose.py`): the model writes a page's claims as
sentences naming the claims they rest on; the code keeps a sentence only when its own section's claims state
everything specific in it, replaces a refused one by its claims as written, and keeps every claim under the
prose for the next recompile."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
from fake_llm import FakeLLM
from library import ingest
from testkit import init_wiki

from wikic.ingest.pipeline import IngestOptions, IngestReport
from wikic.vault.formats.claims import scan
from wikic.vault.state import compose_todos

SOURCE = ("# Field notes\n\nQuillstore is an embedded database.\nQuillstore keeps the whole database in a single "
          "file.\nQuillstore handled 40,000 writes per second.\nQuillstore allows one writer at a time.\n")
PLAN: dict[str, Any] = {"summary": "notes", "concepts": [], "comparisons": [], "relations": [], "entities": [{
    "name": "Quillstore", "kind": "product", "aliases": [], "summary": "",
    "facts": [{"text": s, "quote": s} for s in ("Quillstore keeps the whole database in a single file.",
                                                "Quillstore handled 40,000 writes per second.",
                                                "Quillstore allows one writer at a time.")]}]}


def _ids(user: str) -> dict[str, str]:
    """claim text -> id, as the compose request lists them."""
    return {text: cid for cid, text in re.findall(r"^\[(c[0-9a-f]{8})\] (.+)$", user, re.M)}


def _model(sentences: list[tuple[str, list[str]]], lead: list[tuple[str, list[str]]] | None = None,
           calls: list[str] | None = None) -> FakeLLM:
    """A model that extracts PLAN and composes `sentences` (text, the claims it names by their words)."""

    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        user = messages[-1]["content"]
        if not messages[0]["content"].startswith("You write one page of a wiki"):
            return PLAN
        if calls is not None:
            calls.append(user)
        ids = _ids(user)

        def cite(said: list[str]) -> list[str]:
            return [ids[next(t for t in ids if t.startswith(s))] for s in said]

        def said(text: str, claims: list[str]) -> dict[str, Any]:
            # "¶" before a sentence: the model starts a new paragraph there
            return {"text": text.removeprefix("¶"), "claims": cite(claims), "new_paragraph": text.startswith("¶")}

        return {"lead": [said(t, c) for t, c in lead or []],
                "sections": [{"section": "Key facts", "sentences": [said(t, c) for t, c in sentences]}]}

    return FakeLLM().respond_with(reply)


def _run(tmp_path: Path, llm: FakeLLM, **options: Any) -> tuple[Path, IngestReport]:
    root = tmp_path / "wiki"
    if not root.exists():
        init_wiki(root, min_references=1)
    source = tmp_path / "field-notes.md"
    source.write_text(SOURCE, encoding="utf-8")
    report = ingest(root, IngestOptions(inputs=[str(source)], use_palace=False, lint_after=False,
                                        today=dt.date(2026, 12, 3), **options), llm=llm)
    assert all(s.status == "compiled" for s in report.sources), [s.error for s in report.sources]
    return root, report


GOOD = [("Quillstore keeps the whole database in a single file and allows one writer at a time.",
         ["Quillstore keeps", "Quillstore allows"]),
        ("It handled 40,000 writes per second.", ["Quillstore handled"])]


def test_a_pages_claims_become_anchored_prose_and_stay_under_it(tmp_path: Path) -> None:
    root, report = _run(tmp_path, _model(GOOD))
    assert report.composed is not None and report.composed.pages == ["entities/quillstore.md"]
    assert report.composed.sentences == 2 and report.composed.refused == {}
    text = (root / "entities/quillstore.md").read_text(encoding="utf-8")
    section = text.split("## Key facts")[1].split("<!-- wikic:end")[0]
    prose, claims = section.split("> [!quote]- Claims")
    # a sentence carries the anchors of the claims it names: here the lines of both
    assert ("Quillstore keeps the whole database in a single file and allows one writer at a time. "
            "^[[[raw/articles/field-notes.md|field-notes.md]] L4] ^[[[raw/articles/field-notes.md|field-notes.md]] "
            "L6]") in prose
    assert "It handled 40,000 writes per second. ^[[[raw/articles/field-notes.md|field-notes.md]] L5]" in prose
    assert claims.count("> - Quillstore") == 3  # every claim kept, with its id, for the next recompile
    assert len([c for c in scan(text) if c.block == "section:key-facts"]) == 3
    # the lead is the source's own sentence saying what Quillstore is, and no composed lead replaced it
    assert "Quillstore is an embedded database. ^[[[raw/articles/field-notes.md|field-notes.md]] L3] ^c" in text
    assert "keeps everything in one file" not in text
    assert "| compose | 1 page(s) | composed [[quillstore\\|Quillstore]]; 2 sentences, 0 refused; " in (
        root / "log.md"
    ).read_text(encoding="utf-8")


def _lead_block(text: str) -> str:
    return text.split("<!-- wikic:begin summary ")[1].split("<!-- wikic:end summary -->")[0].split("\n", 1)[1]


def test_a_composed_lead_that_says_the_claim_the_page_opens_with_replaces_it_over_that_claim(
    tmp_path: Path,
) -> None:
    calls: list[str] = []
    lead = [("Quillstore is an embedded database that keeps the whole database in a single file.",
             ["Quillstore is an embedded", "Quillstore keeps"])]
    root, report = _run(tmp_path, _model(GOOD, lead=lead, calls=calls))
    # the model is shown the claim the page opens with, apart from the sections' claims
    assert re.search(r"opens with this claim now:\n\[c[0-9a-f]{8}\] Quillstore is an embedded database\.\n\n"
                     r"Claims, by section:", calls[0])
    assert report.composed is not None and report.composed.refused == {} and report.composed.sentences == 3
    page = root / "entities/quillstore.md"
    text = page.read_text(encoding="utf-8")
    opening = _lead_block(text)
    assert opening.startswith("Quillstore is an embedded database that keeps the whole database in a single file. "
                              "^[[[raw/articles/field-notes.md|field-notes.md]] L3] "
                              "^[[[raw/articles/field-notes.md|field-notes.md]] L4]\n\n> [!quote]- Claims\n"
                              "> - Quillstore is an embedded database. ^[")
    assert [c.block for c in scan(text) if c.text == "Quillstore is an embedded database."] == ["summary"]
    # a recompile reads the claim back as the lead, and composing writes the same page again
    _run(tmp_path, _model(GOOD, lead=lead, calls=calls), force=True, use_cache=False)
    assert page.read_text(encoding="utf-8") == text and len(calls) == 2


def test_a_composed_lead_that_leaves_out_the_claim_the_page_opens_with_is_not_written(tmp_path: Path) -> None:
    lead = [("Quillstore keeps the whole database in a single file.", ["Quillstore keeps"])]
    root, report = _run(tmp_path, _model(GOOD, lead=lead))
    assert report.composed is not None and report.composed.sentences == 2
    assert report.composed.refused == {"a lead that leaves out the claim the page opens with": 1}
    opening = _lead_block((root / "entities/quillstore.md").read_text(encoding="utf-8"))
    assert opening.startswith("Quillstore is an embedded database. ^[") and "[!quote]" not in opening


def _key_facts(root: Path) -> str:
    """The prose of the page's Key facts, above the claims folded under it."""
    text = (root / "entities/quillstore.md").read_text(encoding="utf-8")
    return text.split("## Key facts")[1].split("> [!quote]")[0]


def test_a_sentence_its_claims_do_not_support_is_replaced_by_them_as_written(tmp_path: Path) -> None:
    invented = [("Quillstore handled 90,000 writes per second in 2025.", ["Quillstore handled"]),
                ("Quillstore is fast.", []),
                ("Quillstore keeps the whole database in a single file.", ["Quillstore keeps"])]
    root, report = _run(tmp_path, _model(invented))
    assert report.composed is not None
    assert report.composed.refused == {"states what its claims do not": 1, "cites no claim": 1}
    prose = _key_facts(root)
    assert "90,000" not in prose and "is fast" not in prose
    # the refused sentence's claim, as written, and the claim no sentence named: nothing the list said is lost
    assert "Quillstore handled 40,000 writes per second. ^[" in prose
    assert "Quillstore allows one writer at a time. ^[" in prose


def test_a_sentence_with_a_word_its_claims_do_not_hold_is_replaced_by_them_as_written(tmp_path: Path) -> None:
    sentences = [("Quillstore is a toolbar that keeps one file.", ["Quillstore keeps"]),
                 ("Quillstore lets one writer at a time write.", ["Quillstore allows"])]
    root, report = _run(tmp_path, _model(sentences))
    assert report.composed is not None and report.composed.refused == {"says what its quote does not": 1}
    prose = _key_facts(root)
    assert "toolbar" not in prose and "Quillstore keeps the whole database in a single file. ^[" in prose
    assert "Quillstore lets one writer at a time write. ^[" in prose

def test_a_section_turning_to_another_aspect_starts_a_new_paragraph(tmp_path: Path) -> None:
    sentences = [("Quillstore keeps the whole database in a single file.", ["Quillstore keeps"]),
                 ("¶Quillstore handled 40,000 writes per second and allows one writer at a time.",
                  ["Quillstore handled", "Quillstore allows"])]
    root, report = _run(tmp_path, _model(sentences))
    assert report.composed is not None and report.composed.sentences == 2
    prose = (root / "entities/quillstore.md").read_text(encoding="utf-8").split("## Key facts")[1]
    prose = prose.split("-->\n", 1)[1].split("\n\n> [!quote]")[0]
    first, second = prose.split("\n\n")
    assert first.startswith("Quillstore keeps the whole database") and first.endswith("L4]")
    assert second.startswith("Quillstore handled 40,000 writes per second and allows one writer")


def test_each_sentence_of_a_text_of_two_carries_the_anchors(tmp_path: Path) -> None:
    two = [("Quillstore keeps the whole database in a single file. It allows one writer at a time.",
            ["Quillstore keeps", "Quillstore allows"])]
    root, report = _run(tmp_path, _model(two))
    assert report.composed is not None and report.composed.sentences == 1
    prose = (root / "entities/quillstore.md").read_text(encoding="utf-8").split("## Key facts")[1]
    cites = ("^[[[raw/articles/field-notes.md|field-notes.md]] L4] ^[[[raw/articles/field-notes.md|field-notes.md]] "
             "L6]")
    assert f"in a single file. {cites} It allows one writer at a time. {cites}" in prose.split("> [!quote]")[0]


DENIED = [("Quillstore does not keep the whole database in a single file.", ["Quillstore keeps"]),
          ("Quillstore never allows more than one writer at a time.", ["Quillstore allows"])]
# a small model's habit: "The page opens with the claim that..." (its claims hold no such word)
ABOUT_THE_PAGE = [("The page opens with the claim that Quillstore keeps the whole database in a single file.",
                   ["Quillstore keeps"]),
                  ("This section says Quillstore allows one writer at a time.", ["Quillstore allows"]),
                  ("Quillstore handled 40,000 writes per second.", ["Quillstore handled"])]


@pytest.mark.parametrize(("sentences", "reason", "gone"), [
    (DENIED, "denies what its claims state", ["does not keep", "never"]),
    (ABOUT_THE_PAGE, "speaks of the page, not its subject", ["page opens", "This section"]),
])
def test_a_sentence_that_denies_its_claims_or_speaks_of_the_page_is_refused(
    tmp_path: Path, sentences: list[tuple[str, list[str]]], reason: str, gone: list[str]
) -> None:
    root, report = _run(tmp_path, _model(sentences))
    assert report.composed is not None and report.composed.refused == {reason: 2}
    prose = _key_facts(root)
    assert not [text for text in gone if text in prose]
    # the refused sentences' claims, as written
    assert "Quillstore keeps the whole database in a single file. ^[" in prose
    assert "Quillstore allows one writer at a time. ^[" in prose


def test_composing_again_the_same_claims_costs_nothing_and_changes_nothing(tmp_path: Path) -> None:
    calls: list[str] = []
    root, _ = _run(tmp_path, _model(GOOD, calls=calls))
    page = root / "entities/quillstore.md"
    before = page.read_text(encoding="utf-8")
    _, again = _run(tmp_path, _model(GOOD, calls=calls), force=True)
    assert page.read_text(encoding="utf-8") == before
    assert again.composed is not None and again.composed.calls == again.composed.cached_calls == 1
    assert len(calls) == 1  # the second compose came from the cache


def test_no_compose_keeps_the_claim_lists(tmp_path: Path) -> None:
    root, report = _run(tmp_path, _model(GOOD), compose=False)
    text = (root / "entities/quillstore.md").read_text(encoding="utf-8")
    assert report.composed is None and "[!quote]" not in text
    assert "- Quillstore handled 40,000 writes per second. ^[" in text


def test_a_model_that_cannot_compose_leaves_the_claim_lists_and_fails_nothing(tmp_path: Path) -> None:
    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        return PLAN  # also to the compose request: not a composed page, twice

    root, report = _run(tmp_path, FakeLLM().respond_with(reply))
    assert report.composed is not None and list(report.composed.failed) == ["entities/quillstore.md"]
    assert report.exit_code() == 0
    assert "- Quillstore handled 40,000 writes per second. ^[" in (root / "entities/quillstore.md").read_text()


def test_a_composed_section_a_person_edited_is_not_composed_again(tmp_path: Path) -> None:
    root, _ = _run(tmp_path, _model(GOOD))
    page = root / "entities/quillstore.md"
    edited = page.read_text(encoding="utf-8").replace("It handled 40,000", "By my count it handled 40,000")
    page.write_text(edited, encoding="utf-8")
    _, report = _run(tmp_path, _model(GOOD), force=True, use_cache=False)
    assert "By my count it handled 40,000" in page.read_text(encoding="utf-8")
    assert report.composed is not None and "entities/quillstore.md" not in report.composed.pages


def test_composed_prose_links_the_names_its_claims_link_once_a_paragraph(tmp_path: Path) -> None:
    source = tmp_path / "cache.md"
    source.write_text("# Cache notes\n\nQuillstore is an embedded store.\nBrightline uses Quillstore as its local "
                      "cache.\nBrightline restarts Quillstore every night.\nBrightline is a delivery app.\n",
                      encoding="utf-8")
    facts = ["Brightline uses Quillstore as its local cache.", "Brightline restarts Quillstore every night."]
    plan = {"summary": "notes", "concepts": [], "comparisons": [], "relations": [], "entities": [
        {"name": "Quillstore", "kind": "product", "aliases": [], "summary": "Quillstore is an embedded store.",
         "facts": [{"text": f, "quote": f} for f in facts]},
        {"name": "Brightline", "kind": "product", "aliases": [], "summary": "",
         "facts": [{"text": "Brightline is a delivery app.", "quote": "Brightline is a delivery app."}]}]}

    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        if not messages[0]["content"].startswith("You write one page of a wiki"):
            return plan
        ids = _ids(messages[-1]["content"])
        return {"lead": [], "sections": [{"section": "Key facts", "sentences": [
            {"text": "Brightline uses Quillstore as its local cache.", "claims": [ids[facts[0]]]},
            {"text": "Brightline restarts it every night.", "claims": [ids[facts[1]]]}]}]}

    root = init_wiki(tmp_path / "wiki", min_references=1)
    report = ingest(root, IngestOptions(inputs=[str(source)], use_palace=False, lint_after=False,
                                        today=dt.date(2026, 12, 3)), llm=FakeLLM().respond_with(reply))
    assert report.composed is not None and report.composed.refused == {}
    text = (root / "entities/quillstore.md").read_text(encoding="utf-8")
    prose = text.split("## Key facts")[1].split("> [!quote]")[0]
    # the claims link Brightline's page, and so does the prose: once, where it first names it
    assert "[[brightline|Brightline]] uses Quillstore as its local cache. ^[" in prose
    assert "Brightline restarts it every night. ^[" in prose and prose.count("[[brightline") == 1


def test_a_composed_lead_is_what_the_index_and_the_overview_say_the_page_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the source's sentence that says what Quillstore is leads the page until composing writes a lead that
    # says it too (the model's summary in its own words gives way to it)
    summary = "Quillstore is an embedded database that keeps the whole database in a single file."
    monkeypatch.setitem(PLAN, "entities", [{**PLAN["entities"][0], "summary": summary}])
    lead = "Quillstore is an embedded database that allows one writer at a time."
    root, _ = _run(tmp_path, _model(GOOD, lead=[(lead, ["Quillstore is an embedded", "Quillstore allows"])]))
    page = (root / "entities" / "quillstore.md").read_text(encoding="utf-8")
    assert "<!-- wikic:end summary -->" in page and f"\n{lead} ^[[[raw/articles/field-notes.md" in page
    index = (root / "index.md").read_text(encoding="utf-8")
    assert f"- [[quillstore]] — {lead}\n" in index  # the composed lead, not the summary it was listed with
    overview = (root / "overview.md").read_text(encoding="utf-8")
    assert f"- [[quillstore|Quillstore]] — {lead}\n" in overview
    assert "- 2026-12-03 · wrote as prose: [[quillstore|Quillstore]]\n" in overview
    assert f"\nsummary: {lead}\n" in page  # and the frontmatter's summary: the page holds one summary, not two


def test_a_lead_a_person_rewrote_is_what_the_summary_and_the_index_say_after_a_recompile(tmp_path: Path) -> None:
    root, _ = _run(tmp_path, _model(GOOD))
    page = root / "entities" / "quillstore.md"
    text = page.read_text(encoding="utf-8")
    mine = "Quillstore is the embedded store our desktop app uses."
    edited = text.replace("Quillstore is an embedded database. ^[", f"{mine} ^[", 1)
    assert edited != text
    page.write_text(edited, encoding="utf-8")
    _run(tmp_path, _model(GOOD), force=True)
    after = page.read_text(encoding="utf-8")
    assert f"{mine} ^[" in after and f"\nsummary: {mine}\n" in after
    assert f"- [[quillstore]] — {mine}\n" in (root / "index.md").read_text(encoding="utf-8")


def test_pages_a_stopped_run_wrote_are_composed_by_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import wikic.ingest.pipeline as pipeline

    with monkeypatch.context() as stopped:  # the run ends (killed, say) once its pages are written
        stopped.setattr(pipeline, "_compose_left", lambda *args, **kwargs: [])
        root, first = _run(tmp_path, _model(GOOD))
    page = root / "entities/quillstore.md"
    assert first.composed is None and "[!quote]" not in page.read_text(encoding="utf-8")
    assert [paths for _, paths in compose_todos(root)] == [["entities/quillstore.md"]]
    # nothing to compile: the source is unchanged
    again = ingest(root, IngestOptions(inputs=[str(tmp_path / "field-notes.md")], use_palace=False, lint_after=False,
                                       today=dt.date(2026, 12, 3)), llm=_model(GOOD))
    assert [s.status for s in again.sources] == ["unchanged"]
    assert again.composed is not None and again.composed.pages == ["entities/quillstore.md"]
    assert "It handled 40,000 writes per second. ^[" in page.read_text(encoding="utf-8")
    assert compose_todos(root) == []


def test_a_claim_cut_where_its_sentence_goes_on_is_written_with_a_full_stop_not_after_its_comma() -> None:
    from wikic.compile.prose import _sentence

    assert _sentence("Quillstore handled 25,000 writes per second on the same load test,") == (
        "Quillstore handled 25,000 writes per second on the same load test.")
    assert _sentence("Quillstore 由一家公司维护，") == "Quillstore 由一家公司维护。"
    assert _sentence("向量存进 ChromaDB") == "向量存进 ChromaDB."  # a Latin word last: a Latin full stop
    assert _sentence("ベクトルはローカルで作られる") == "ベクトルはローカルで作られる。"
    assert _sentence("It stays on Quillstore.") == "It stays on Quillstore."


def test_a_claim_a_sentence_cites_and_does_not_draw_on_adds_no_anchor_to_it(tmp_path: Path) -> None:
    # the writes claim cited under a sentence about the single file: its anchor (L6) would sit under words
    # its line does not say; and a sentence drawing on none of its claims is not written
    sentences = [("Quillstore keeps the whole database in a single file.", ["Quillstore keeps", "Quillstore handled"]),
                 ("Quillstore is loved by its users.", ["Quillstore allows"])]
    root, report = _run(tmp_path, _model(sentences))
    assert report.composed is not None
    assert report.composed.refused == {"draws on none of the claims it cites": 1}
    prose = _key_facts(root)
    cite = "^[[[raw/articles/field-notes.md|field-notes.md]] L{}]".format
    assert "loved" not in prose
    # the one sentence that stands is its own claim word for word (L4 alone), and each claim no written sentence
    # drew on is written as itself: prose that says each claim again is the list, each claim once
    assert re.search(rf"^- Quillstore keeps the whole database in a single file. {re.escape(cite(4))} \^c", prose,
                     re.MULTILINE)
    assert f"- Quillstore handled 40,000 writes per second. {cite(5)}" in prose
    assert f"- Quillstore allows one writer at a time. {cite(6)}" in prose
    assert "[!quote]" not in prose and prose.count("Quillstore keeps the whole database") == 1
    assert report.composed.sentences == 0  # nothing was written as prose


def test_a_word_of_the_subjects_own_name_is_no_talk_of_the_page() -> None:
    """"In the LLM wiki pattern, ..." speaks of its subject, whose name holds "wiki"; on another page it would be
    the page talking about itself."""
    from wikic.compile.prose import ABOUT_THE_PAGE, _refusal
    from wikic.vault.formats.claims import Claim

    claim = Claim("c00000001", "A language model reads each source once and folds it into pages.", ())
    sentence = "In the wiki pattern, a language model reads each source once and folds it into pages."
    assert _refusal(sentence, [claim], {claim.id}, ("Wiki pattern",)) is None
    assert _refusal(sentence, [claim], {claim.id}, ("Quillstore",)) == ABOUT_THE_PAGE


@pytest.mark.parametrize("asked", ["flag", "setting"])
def test_a_judged_run_keeps_out_what_the_judge_refuses_and_counts_it_by_its_verdict(tmp_path: Path, asked: str) -> None:
    sentences = [("Quillstore keeps the whole database in a single file and allows one writer at a time.",
                  ["Quillstore keeps", "Quillstore allows"])]
    composing = _model(sentences)
    judged: list[str] = []

    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        if not messages[0]["content"].startswith("You check sentences"):
            return composing._next(messages, "", {}, 0)
        listed = re.findall(r"^(\d+)\. sentence: (.*)$", messages[-1]["content"], re.M)
        judged.extend(s for _, s in listed)

        def verdict(s: str) -> str:
            return "contradicted" if "40,000" in s else "unsupported" if "and allows" in s else "supported"

        return {"verdicts": [{"index": int(n), "verdict": verdict(s), "words": s[:20]} for n, s in listed]}

    if asked == "setting":  # `[ingest] judge = true` in wikic.toml, no option given
        init_wiki(tmp_path / "wiki", min_references=1)
        with (tmp_path / "wiki" / "wikic.toml").open("a", encoding="utf-8") as toml:
            toml.write("\n[ingest]\njudge = true\n")
    root, report = _run(tmp_path, FakeLLM().respond_with(reply), **({"judge": True} if asked == "flag" else {}))
    [source] = report.sources
    assert source.dropped == {"judged contradicted": 1}  # the claim, counted by the judge's verdict
    text = (root / "entities/quillstore.md").read_text(encoding="utf-8")
    assert "40,000" not in text
    # the composed sentence the judge refused: its claims stay, as they are written
    assert report.composed is not None and report.composed.refused == {"judged unsupported": 1}
    prose = _key_facts(root)
    assert "and allows one writer" not in prose
    assert "Quillstore keeps the whole database in a single file. ^[" in prose
    assert "Quillstore allows one writer at a time. ^[" in prose
    assert "Quillstore handled 40,000 writes per second." in judged  # claims judged against their quotes
    assert sentences[0][0] in judged  # and the composed sentence against its claims

