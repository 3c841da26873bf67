""""The project" of a coding assistant's session is the folder the session ran in.

A Claude Code or Codex session is about one repository, and its turns call it "the project" ("The project
already uses uv; tests pass."). A model files what it learns under that word, so a page "project" would
gather every repository's decisions, and wait for a second session to be made at all. The transcript records
the session's folder (`cwd` in its frontmatter, `/home/ana/proj/billing`): a subject the model names only
generically ("project", "the repo", "this codebase") is that folder's project ("billing"), whose page then
holds its decisions and lessons session after session, and whose name the source writes (in its
frontmatter). A folder that names no project (the root, a home folder, `src`, `tmp`...) leaves the subject as
the model gave it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from wikic.compile.plan import Entity, Plan
from wikic.vault.frontmatter import split_page
from wikic.vault.names import normalize_name

_NOUNS = ("project", "repo", "repository", "codebase", "code base")
# what names the project in a session's words, as `terms.words` cuts them ("the project", "this repo")
GENERIC_FORMS = [tuple(noun.split()) for noun in _NOUNS]
_GENERIC = frozenset(
    f"{det}{noun}".strip()
    for det in ("", "the ", "this ", "our ", "my ", "current ", "the current ")
    for noun in _NOUNS
)
# last folders of a path that are no project's name
_NOT_A_PROJECT = frozenset(
    """src app code dev work workspace workspaces projects project proj repos repo git github tmp temp
    home root desktop documents downloads""".split()
)
_SEPARATORS = re.compile(r"[\\/]+")


def generic(name: str) -> bool:
    return " ".join(name.casefold().split()) in _GENERIC


def session_project(text: str) -> str | None:
    """The project a session's transcript ran in: the last folder of its `cwd`, when that names one."""
    data, _ = split_page(text)
    cwd = (data or {}).get("cwd")
    if not isinstance(cwd, str):
        return None
    parts = [p for p in _SEPARATORS.split(cwd.strip()) if p and p not in ("~", ".", "..")]
    if not parts or (len(parts) <= 2 and parts[0].casefold() in ("home", "users")):
        return None  # the root, or a home folder
    name = parts[-1].strip()
    if not name or name.startswith(".") or name.casefold() in _NOT_A_PROJECT or name.endswith(":"):
        return None
    return name


def to_project(plan: Plan, project: str) -> Plan:
    """`plan` with every subject named only generically ("the project") named `project`: entities (merged
    into the plan's entity of that name, when it has one), relations' ends and memories' subjects."""
    def named(name: str) -> str:
        return project if generic(name) else name

    entities: dict[str, Entity] = {}
    for e in plan.entities:
        name = named(e.name)
        key = normalize_name(name)
        aliases = tuple(a for a in e.aliases if not generic(a))
        if key in entities:
            known = entities[key]
            entities[key] = replace(known, aliases=tuple(dict.fromkeys((*known.aliases, *aliases))),
                                    summary=known.summary or e.summary, facts=known.facts + e.facts)
        else:
            entities[key] = replace(e, name=name, aliases=aliases)
    relations = tuple(replace(r, source=named(r.source), target=named(r.target)) for r in plan.relations)
    memories = tuple(replace(m, subject=named(m.subject)) for m in plan.memories)
    return replace(plan, entities=tuple(entities.values()), relations=relations, memories=memories)
