"""`wikic init`: lay out a new vault (docs/vault-format.md). Never overwrites; running it twice changes nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from wikic.errors import UsageError, VaultError
from wikic.resources import SCHEMA, TEMPLATES, file_names, read_text
from wikic.vault.layout import INBOX_DIR, PAGE_FOLDERS, RAW_DIR, RAW_SUBDIRS, STATE_DIR
from wikic.vault.paths import confined, make_folder
from wikic.vault.write import write_new

# Shipped without its dot, so git does not apply it to wikic's own repository.
_RENAMED = {"gitignore": ".gitignore"}


def vault_files() -> dict[tuple[str, str], str]:
    """(shipped folder, file in it) -> path in a new vault: the default SCHEMA.md, and every file of
    templates/vault/."""
    files = {
        (TEMPLATES, name): name.removeprefix("vault/") for name in file_names(TEMPLATES) if name.startswith("vault/")
    }
    files = {key: _RENAMED.get(rel, rel) for key, rel in files.items()}
    # the vault's own files first, then its folders' (as a person reads the report)
    return {
        (SCHEMA, "SCHEMA.md"): "SCHEMA.md",
        **dict(sorted(files.items(), key=lambda item: (item[1].count("/"), item[1].lower()))),
    }


@dataclass
class InitReport:
    root: Path
    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)


def init_vault(root: Path) -> InitReport:
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise UsageError(
            f"{root} exists and is not a folder", hint="give the name of a new folder, or of an existing one"
        )
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VaultError(f"cannot create {root}: {exc.strerror}") from exc
    report = InitReport(root=root.resolve())
    folders = [*(f"{RAW_DIR}/{sub}" for sub in RAW_SUBDIRS), *PAGE_FOLDERS.values(), INBOX_DIR, STATE_DIR, ".obsidian"]
    for folder in folders:
        path = confined(root, root / folder)
        if path.is_dir():
            report.existing.append(folder + "/")
            continue
        try:
            make_folder(root, path)
        except OSError as exc:
            raise VaultError(f"cannot create {path}: {exc.strerror}") from exc
        report.created.append(folder + "/")
    for (shipped, name), rel in vault_files().items():
        if write_new(root / rel, read_text(shipped, name), root=root):
            report.created.append(rel)
        else:
            report.existing.append(rel)
    return report


__all__ = ["InitReport", "init_vault"]
