"""The manifest in the export's folder (`.wikic-site.json`): each output the last export wrote, with the
digest of the inputs it was written from. It marks the folder as an export's (a later export may write
there), lets the next export skip what has not changed, and names the only files an export ever deletes:
outputs it wrote before that no file gives any more. A manifest that cannot be read is taken as empty (every
output is written again); a name in it that would lead outside the folder is never deleted.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.export.target import MANIFEST
from wikic.vault.layout import in_vault_tree
from wikic.vault.paths import within
from wikic.vault.write import write_bytes_atomic

FORMAT = 1


@dataclass
class Manifest:
    outputs: dict[str, str] = field(default_factory=dict)  # output (site-relative) -> its inputs' digest
    notes: dict[str, list[Any]] = field(default_factory=dict)  # note -> what was read of it (`Site.facts`)
    groups: list[Any] = field(default_factory=list)  # the clusters and what they were found from (`Around`)
    # what the whole site was made from (`site.Since`): the files and their outputs, the settings every page
    # shares, each raw source's stamp and each note's links, for the next export to tell which pages to check
    since: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def read(cls, out_dir: Path) -> Manifest:
        try:
            data = json.loads((out_dir / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return cls()
        outputs = data.get("outputs") if isinstance(data, dict) and data.get("format") == FORMAT else None
        if not isinstance(outputs, dict):
            return cls()
        notes, groups, since = data.get("notes"), data.get("groups"), data.get("since")
        return cls({k: v for k, v in outputs.items() if isinstance(k, str) and isinstance(v, str)},
                   {k: v for k, v in notes.items() if isinstance(v, list)} if isinstance(notes, dict) else {},
                   groups if isinstance(groups, list) else [], since if isinstance(since, dict) else {})

    def holds(self, output: str, digest: str) -> bool:
        return self.outputs.get(output) == digest

    def remove_stale(self, out_dir: Path, now: dict[str, str]) -> list[str]:
        """Delete the outputs this manifest names that `now` does not; the names deleted."""
        real = os.path.realpath(out_dir)
        removed = []
        for rel in sorted(set(self.outputs) - set(now)):
            path = out_dir / rel
            if not in_vault_tree(rel) or not within(real, os.path.realpath(path)) or not path.is_file():
                continue
            try:
                path.unlink()
            except OSError:
                continue
            removed.append(rel)
        return removed

    def save(self, out_dir: Path, outputs: dict[str, str], notes: dict[str, list[Any]], groups: list[Any],
             since: dict[str, Any]) -> None:
        self.outputs, self.notes, self.groups, self.since = dict(outputs), dict(notes), list(groups), dict(since)
        data = json.dumps({"format": FORMAT, "outputs": dict(sorted(outputs.items())),
                           "notes": dict(sorted(notes.items())), "groups": groups, "since": since},
                          ensure_ascii=False, separators=(",", ":"))
        write_bytes_atomic(out_dir / MANIFEST, data.encode("utf-8"), root=out_dir, durable=False)
