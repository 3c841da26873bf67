"""`wikic init`: lay out a new vault (contract §1). Never overwrites; running it twice changes nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from wikic.errors import UsageError, VaultError
from wikic.vault.layout import INBOX_DIR, PAGE_FOLDERS, RAW_DIR, RAW_SUBDIRS, STATE_DIR
from wikic.vault.write import write_new

# template name inside wikic/templates/vault -> path in the vault
TEMPLATE_FILES = {
    "SCHEMA.md": "SCHEMA.md",
    "index.md": "index.md",
    "log.md": "log.md",
    "wikic.toml": "wikic.toml",
    "gitignore": ".gitignore",
    ".obsidian/app.json": ".obsidian/app.json",
    ".obsidian/graph.json": ".obsidian/graph.json",
    ".obsidian/types.json": ".obsidian/types.json",
}


@dataclass
class InitReport:
    root: Path
    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)


def template_text(name: str) -> str:
    return resources.files("wikic.templates").joinpath("vault", name).read_text(encoding="utf-8")


def init_vault(root: Path) -> InitReport:
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise UsageError(f"{root} exists and is not a folder")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VaultError(f"cannot create {root}: {exc.strerror}") from exc
    report = InitReport(root=root.resolve())
    folders = [*(f"{RAW_DIR}/{sub}" for sub in RAW_SUBDIRS), *PAGE_FOLDERS.values(), INBOX_DIR, STATE_DIR, ".obsidian"]
    for folder in folders:
        path = root / folder
        if path.is_dir():
            report.existing.append(folder + "/")
            continue
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise VaultError(f"cannot create {path}: {exc.strerror}") from exc
        report.created.append(folder + "/")
    for name, rel in TEMPLATE_FILES.items():
        if write_new(root / rel, template_text(name)):
            report.created.append(rel)
        else:
            report.existing.append(rel)
    return report


__all__ = ["InitReport", "init_vault", "template_text"]
