"""The library's entry points called with a vault folder, as the tests call them.

The library takes a `VaultContext` (or, below the context's layer, the settings or the SCHEMA.md it read),
never a folder: the faces open one context per command. A test that has a folder calls these instead: each
opens a context of the folder for the one call and closes it after (the palace it opened with it), as a
command does. Given a context, each passes it on as it is (its giver closes it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikic.context import VaultContext

if TYPE_CHECKING:
    import datetime as dt

    from wikic.facts.lookup import FactsAnswer
    from wikic.ingest.invalidate import Invalidated
    from wikic.ingest.pipeline import IngestOptions, IngestReport
    from wikic.ingest.remember import Remembered
    from wikic.lint.fix import FileChange, FixResult
    from wikic.lint.run import LintOptions, LintReport
    from wikic.memory.briefing import Briefing
    from wikic.memory.confirm import Confirmed
    from wikic.memory.item_index import Memories
    from wikic.memory.recall import Recalled
    from wikic.palace.hybrid import SearchHit
    from wikic.palace.palace import Palace, SyncReport
    from wikic.query.answer import QueryResult
    from wikic.query.writeback import Refreshed, SavedQuery
    from wikic.settings import Settings
    from wikic.status import VaultStatus
    from wikic.vault.link_text import LinkNames
    from wikic.vault.load import Vault
    from wikic.vault.names import PageNames
    from wikic.vault.schema_md import Schema

Vault_ = VaultContext | Path | str


@contextmanager
def opened(vault: Vault_) -> Iterator[VaultContext]:
    """`vault` itself when it is a context; else a context of that folder for the block, closed after it."""
    if isinstance(vault, VaultContext):
        yield vault
        return
    with VaultContext(Path(vault).resolve()) as context:
        yield context


def _call(fn: Callable[..., Any], vault: Vault_, *args: Any, **kwargs: Any) -> Any:
    with opened(vault) as context:
        return fn(context, *args, **kwargs)


def schema_of(root: Path | str) -> Schema:
    """SCHEMA.md as a context reads it (a plain folder's when there is none)."""
    return VaultContext(Path(root)).schema


def settings_of(root: Path | str) -> Settings:
    """wikic.toml and the environment, as a context reads them."""
    return VaultContext(Path(root)).settings


# -- the entry points that take a context ----------------------------------------------------------------
def ingest(vault: Vault_, options: IngestOptions, **kwargs: Any) -> IngestReport:
    from wikic.ingest.pipeline import ingest as ingest_

    return _call(ingest_, vault, options, **kwargs)


def watch(vault: Vault_, *args: Any, **kwargs: Any) -> None:
    from wikic.ingest.watch import watch as watch_

    _call(watch_, vault, *args, **kwargs)


def remember(vault: Vault_, *args: Any, **kwargs: Any) -> Remembered:
    from wikic.ingest.remember import remember as remember_

    return _call(remember_, vault, *args, **kwargs)


def invalidate(vault: Vault_, *args: Any, **kwargs: Any) -> Invalidated:
    from wikic.ingest.invalidate import invalidate as invalidate_

    return _call(invalidate_, vault, *args, **kwargs)


def run_lint(vault: Vault_, *args: Any, **kwargs: Any) -> LintReport:
    from wikic.lint.run import run_lint as run_lint_

    return _call(run_lint_, vault, *args, **kwargs)


def fix_vault(vault: Vault_, options: LintOptions | None = None, **kwargs: Any) -> FixResult:
    from wikic.lint.fix import fix_vault as fix_vault_
    from wikic.lint.run import LintOptions

    return _call(fix_vault_, vault, options or LintOptions(), **kwargs)


def plan_fixes(vault: Vault_, *args: Any, **kwargs: Any) -> list[FileChange]:
    from wikic.lint.fix import plan_fixes as plan_fixes_

    return _call(plan_fixes_, vault, *args, **kwargs)


def vault_status(vault: Vault_, **kwargs: Any) -> VaultStatus:
    from wikic.status import vault_status as vault_status_

    return _call(vault_status_, vault, **kwargs)


def answer_question(vault: Vault_, *args: Any, **kwargs: Any) -> QueryResult:
    from wikic.query.answer import answer_question as answer_question_

    return _call(answer_question_, vault, *args, **kwargs)


def save_answer(vault: Vault_, *args: Any, **kwargs: Any) -> SavedQuery:
    from wikic.query.writeback import save_answer as save_answer_

    return _call(save_answer_, vault, *args, **kwargs)


def check_can_file(vault: Vault_) -> None:
    from wikic.query.writeback import check_can_file as check_can_file_

    _call(check_can_file_, vault)


def refresh_query(vault: Vault_, *args: Any, **kwargs: Any) -> Refreshed:
    from wikic.query.writeback import refresh_query as refresh_query_

    return _call(refresh_query_, vault, *args, **kwargs)


def confirm_lesson(vault: Vault_, *args: Any, **kwargs: Any) -> Confirmed:
    from wikic.memory.confirm import confirm_lesson as confirm_lesson_

    return _call(confirm_lesson_, vault, *args, **kwargs)


def wake_up(vault: Vault_, **kwargs: Any) -> Briefing:
    from wikic.memory.briefing import wake_up as wake_up_

    return _call(wake_up_, vault, **kwargs)


def recall(vault: Vault_, *args: Any, **kwargs: Any) -> list[Recalled]:
    from wikic.memory.recall import recall as recall_

    return _call(recall_, vault, *args, **kwargs)


def load_memories(vault: Vault_, **kwargs: Any) -> Memories:
    from wikic.memory.item_index import load_memories as load_memories_

    return _call(load_memories_, vault, **kwargs)


# -- below the context: what it read is handed over -------------------------------------------------------
def facts_for(root: Path, subject: str, as_of: str | dt.date | None = None) -> FactsAnswer:
    from wikic.facts.lookup import facts_for as facts_for_

    return facts_for_(root, schema_of(root), subject, as_of)


def graph_report(root: Path, **kwargs: Any) -> dict[str, Any]:
    from wikic.graph_export import graph_report as graph_report_

    return graph_report_(root, schema_of(root), **kwargs)


def load_vault(root: Path, *, schema: Schema | None = None, **kwargs: Any) -> Vault:
    from wikic.vault.load import load_vault as load_vault_

    return load_vault_(root, schema=schema if schema is not None else schema_of(root), **kwargs)


def page_names(root: Path, schema: Schema | None = None) -> tuple[PageNames, LinkNames]:
    from wikic.vault.names import page_names as page_names_

    return page_names_(root, schema if schema is not None else schema_of(root))


def open_palace(vault: Path, settings: Settings | None = None, **kwargs: Any) -> Palace:
    from wikic.palace import open_palace as open_palace_

    return open_palace_(vault, settings if settings is not None else settings_of(Path(vault).resolve()), **kwargs)


def sync(vault: Path, settings: Settings | None = None, **kwargs: Any) -> SyncReport:
    with open_palace(vault, settings) as palace:
        return palace.sync(**kwargs)


def update_paths(vault: Path, paths: Iterable[str | Path], **kwargs: Any) -> SyncReport:
    with open_palace(vault) as palace:
        return palace.update_paths(paths, **kwargs)


def search_vault(vault: Path, query: str, k: int = 10, **kwargs: Any) -> list[SearchHit]:
    from wikic.palace import search

    with open_palace(vault) as palace:
        return search(palace, query, k, **kwargs)
