"""`wikic index --rebuild` SIGKILLed midway: the next `wikic index` goes on from the files the killed rebuild
indexed (it neither cuts nor embeds them again) and leaves the palace whole, as one uninterrupted rebuild would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from library import open_palace, sync
from testkit import palace_drawer_problems

from wikic.palace import palace as palace_module
from wikic.palace.chunking import chunk_document

FILES = 600  # more than two of the rebuild's batches (palace.WRITE_BATCH files at most each)

# A rebuild in its own process that SIGKILLs itself as it is about to write the manifest rows of its second
# batch: the first batch is in both stores, the second (and maybe the third) in chromadb alone.
KILLED_REBUILD = """
import os, signal, sys
from pathlib import Path
from wikic.palace import palace
from wikic.palace import open_palace
from wikic.context import VaultContext

settled = []
real = palace.Palace._settle

def settle(self, stored, *args):
    if stored is not None:
        settled.append(stored)
        if len(settled) == 2:
            os.kill(os.getpid(), signal.SIGKILL)
    return real(self, stored, *args)

palace.Palace._settle = settle
root = Path(sys.argv[1])
with VaultContext(root) as context, open_palace(root, context.settings) as p:
    p.sync(rebuild=True)
"""


def _pages(count: int) -> dict[str, str]:
    return {
        f"concepts/topic-{i:04d}.md": (f"---\ntitle: Topic {i}\ntype: concept\n---\n# Topic {i}\n\n"
                                       f"Topic {i} is measured on rig {i % 13} with widget {i % 97}.\n")
        for i in range(count)
    }


@pytest.mark.slow  # a process killed with SIGKILL
def test_index_after_a_killed_rebuild_goes_on_from_what_it_indexed(
    make_vault: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault: Path = make_vault(_pages(FILES))  # type: ignore[operator]
    with open_palace(vault) as palace:
        first = palace.sync()
        palace.store.release()  # the files let go of, as by a `wikic index` that ended
    assert first.files_total >= FILES

    killed = subprocess.run([sys.executable, "-c", KILLED_REBUILD, str(vault)], capture_output=True, text=True,
                            timeout=600, check=False)
    assert killed.returncode == -9, killed.stderr[-3000:]
    with open_palace(vault) as palace:
        kept = len(palace.manifest.files())
    assert 0 < kept < first.files_total, "the rebuild was not killed midway"

    cut: list[str] = []

    def chunk(doc: object, *args: object) -> object:
        cut.append(getattr(doc, "path", ""))
        return chunk_document(doc, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(palace_module, "chunk_document", chunk)
    resumed = sync(vault)
    # the files the killed rebuild finished are neither cut nor embedded again
    assert len(cut) <= first.files_total - kept, f"{len(cut)} files cut again, {kept} were indexed already"
    assert resumed.drawers_embedded <= first.drawers_total - kept
    assert resumed.files_total == first.files_total and resumed.drawers_total == first.drawers_total
    with open_palace(vault) as palace:
        assert palace_drawer_problems(palace) == []
        assert palace.manifest.get_meta("dirty") == "0"
    again = sync(vault)
    assert (again.added, again.updated, again.removed, again.drawers_embedded) == ([], [], [], 0)
