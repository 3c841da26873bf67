""""The project" of a coding session is the folder it ran in: its memories and claims land on that project."""

from __future__ import annotations

import pytest

from wikic.compile.plan import Entity, Fact, Memory, Plan, Relation
from wikic.ingest.anchor import anchor_plan
from wikic.ingest.session_project import session_project, to_project


@pytest.mark.parametrize(("cwd", "project"), [
    ("/home/ana/proj/billing", "billing"),
    ("/home/ana/proj/billing/", "billing"),
    ("C:\\\\Users\\\\ana\\\\code\\\\shop", "shop"),
    ("~/dev/ledger", "ledger"),
    ("/home/ana", None),  # a home folder names no project
    ("/Users/ana", None),
    ("/", None),
    ("/srv/app", None),  # nor does a generic folder
    ("/home/ana/src", None),
    ("/home/ana/.config", None),
    ("C:\\\\", None),
])
def test_the_project_is_the_last_folder_that_names_one(cwd: str, project: str | None) -> None:
    assert session_project(f'---\ntitle: "x"\ncwd: "{cwd}"\n---\n\n**user** · 2026-11-30 14:02\nHi.\n') == project


def test_a_transcript_without_a_folder_has_no_project() -> None:
    assert session_project("---\ntitle: x\n---\n\n**user** · 2026-11-30 14:02\nHi.\n") is None
    assert session_project("no frontmatter at all") is None


def test_subjects_named_only_generically_are_the_project() -> None:
    fact = Fact("The project already uses uv.", "The project already uses uv.")
    plan = Plan("raw/transcripts/s.md", "", (
        Entity("the project", "project", ("repo", "billing-svc"), "", (fact,)),
        Entity("billing", "project", (), "The billing service.", ()),
        Entity("uv", "tool", (), "", ())),
        relations=(Relation("uv", "used by", "this repo", fact),),
        memories=(Memory("lesson", "Project", 0.6, fact), Memory("instruction", "user", 0.9, fact)))
    moved = to_project(plan, "billing")
    assert [(e.name, e.aliases, e.summary, len(e.facts)) for e in moved.entities] == [
        ("billing", ("billing-svc",), "The billing service.", 1), ("uv", (), "", 0)]
    assert [(r.source, r.target) for r in moved.relations] == [("uv", "billing")]
    assert [m.subject for m in moved.memories] == ["billing", "user"]


SESSION = ('---\ntitle: "Use uv"\ntool: claude-code\ncwd: "/home/ana/proj/wikic"\n---\n\n'
           "**user** · 2026-11-30 14:02\nFrom now on use uv, never pip.\n\n**assistant** · 2026-11-30 14:02\n"
           "The project already uses uv; tests pass.\n")


def test_a_sessions_lesson_about_the_project_lands_on_the_folders_project() -> None:
    lesson = Memory("lesson", "project", 0.6, Fact("The project already uses uv; tests pass.",
                                                   "The project already uses uv; tests pass."))
    plan = Plan("raw/transcripts/2026-11-30-claude-code-use-uv.md", "", memories=(lesson,))
    (moved, _rule) = anchor_plan(plan, SESSION).memories
    assert moved.subject == "wikic" and moved.fact.anchored
    # an article is no session: its frontmatter's folder is no subject's
    article = anchor_plan(Plan("raw/articles/notes.md", "", memories=(lesson,)), SESSION.replace("**", ""))
    assert [m.subject for m in article.memories] == ["project"]


def test_the_projects_claims_name_it_as_the_session_does() -> None:
    # the exchange names uv, another subject of the plan, and the project only as "the project": the claim
    # is about the project all the same
    facts = (Fact("The project already uses uv.", "The project already uses uv; tests pass."),)
    plan = Plan("raw/transcripts/2026-11-30-claude-code-use-uv.md", "", (
        Entity("project", "project", (), "", facts), Entity("uv", "tool", (), "", ())))
    wikic, _uv = anchor_plan(plan, SESSION).entities
    assert wikic.name == "wikic" and [(f.text, f.anchored) for f in wikic.facts] == [
        ("The project already uses uv.", True)]
