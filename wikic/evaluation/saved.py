"""The report written into the vault (`wikic eval --out reports/eval.md`): a note of its own, never a page.

It goes only where a person's own notes go: inside the vault, outside `raw/` (never modified), `.wikic/`, the
page folders (lint would read it as a page missing its frontmatter and index entry) and the files wikic keeps
at the vault's top (SCHEMA.md, index.md, log.md, overview.md, identity.md, wikic.toml).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from wikic.errors import UsageError, VaultError
from wikic.evaluation.report import EvalReport
from wikic.vault.layout import RAW_DIR, SPECIAL_FILES, STATE_DIR
from wikic.vault.paths import confined
from wikic.vault.schema_md import Schema
from wikic.vault.write import write_atomic

_HINT = "write it to a folder of your own notes, e.g. --out reports/eval.md"


def report_path(root: Path, out: str, schema: Schema) -> Path:
    """Where `out` (vault-relative, or absolute inside the vault) puts the report; UsageError where it may not
    go, naming why."""
    root = root.resolve()
    given = Path(out).expanduser()
    path = given if given.is_absolute() else root / given
    try:
        rel = PurePosixPath(path.resolve().relative_to(root).as_posix())
    except ValueError:
        raise UsageError(f"--out {out}: outside the vault ({root})", hint=_HINT) from None
    if not rel.parts or rel.as_posix() == ".":
        raise UsageError(f"--out {out}: the vault itself is no file", hint=_HINT)
    top = rel.parts[0]
    if top == RAW_DIR:
        raise UsageError(f"--out {out}: raw/ holds the sources and is never modified", hint=_HINT)
    if top == STATE_DIR or top.startswith("."):
        raise UsageError(f"--out {out}: {top}/ is no place for a note", hint=_HINT)
    folders = set(schema.page_folders.values()) if schema.present else set()
    if len(rel.parts) > 1 and top in folders:
        raise UsageError(f"--out {out}: {top}/ is a page folder, and the report is no page (lint would read it as "
                         "one)", hint=_HINT)
    if len(rel.parts) == 1 and rel.name in (*SPECIAL_FILES, "wikic.toml"):
        raise UsageError(f"--out {out}: {rel.name} is the vault's own", hint=_HINT)
    if path.is_dir():
        raise UsageError(f"--out {out}: a folder", hint=_HINT)
    return path


def save_report(report: EvalReport, text: str) -> str:
    """Write `text` where the report's `--out` put it (`report_path`), its folders made as needed; the
    vault-relative path written."""
    if report.out is None:
        raise UsageError("the report has no --out to be written to")
    root, path = Path(report.vault), report.out
    try:
        confined(root, path, verb="write")
        write_atomic(path, text, root=root)
    except OSError as exc:
        raise VaultError(f"cannot write the report to {path}: {exc.strerror or exc}") from exc
    return path.resolve().relative_to(root).as_posix()
