"""The embeddings of memory texts are kept from one run to the next: a page's items are not embedded again in
every run that adds a memory to it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wikic.embed import make_embedder
from wikic.memory import kept_vectors
from wikic.memory.kept_vectors import KeptVectors
from wikic.memory.merge import PACKAGED_DIM, PACKAGED_MODEL, Deduplicator
from wikic.settings import EmbeddingSettings
from wikic.vault.init import init_vault
from wikic.vault.state import MEMORY_VECTORS, state_file

ITEMS = ["The user keeps notes in Obsidian.", "The user runs Linux at home.", "The user drinks tea."]


class CountingModel:
    """Each text its own fixed direction; counts the texts it was asked to embed."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.embedded += texts
        rows = [np.random.default_rng(sum(map(ord, t))).standard_normal(8).astype(np.float32) for t in texts]
        return np.stack([r / np.linalg.norm(r) for r in rows])


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    init_vault(tmp_path / "wiki")
    return tmp_path / "wiki"


def run(vault: Path, model: CountingModel, text: str, *, name: str = "m") -> int | None:
    """One run's merge of `text` into a page holding ITEMS, its vectors kept at its end."""
    dedup = Deduplicator(lambda: model, KeptVectors(vault, name, 8))
    found = dedup.best(text, ITEMS)
    dedup.keep()
    return found


def test_a_later_run_embeds_only_the_texts_no_run_embedded_before(vault: Path) -> None:
    first = CountingModel()
    assert run(vault, first, "The user uses Emacs.") is None
    assert sorted(first.embedded) == sorted(["The user uses Emacs.", *ITEMS])
    later = CountingModel()
    assert run(vault, later, "The user uses Vim.") is None
    assert later.embedded == ["The user uses Vim."]


def test_the_kept_vectors_are_the_models_own_bit_for_bit_and_decide_alike(vault: Path) -> None:
    model = CountingModel()
    alone = Deduplicator(lambda: model).best("The user uses Emacs.", ITEMS)
    run(vault, model, "The user uses Emacs.")
    kept = KeptVectors(vault, "m", 8).get(ITEMS)
    assert all(np.array_equal(kept[t], model([t])[0]) for t in ITEMS)
    assert run(vault, CountingModel(), "The user uses Emacs.") == alone


def test_vectors_of_another_model_or_a_damaged_file_are_not_used(vault: Path) -> None:
    run(vault, CountingModel(), "The user uses Emacs.")
    other = CountingModel()
    run(vault, other, "The user uses Emacs.", name="another-model")
    assert sorted(other.embedded) == sorted(["The user uses Emacs.", *ITEMS])
    path = state_file(vault, MEMORY_VECTORS)
    assert path is not None
    path.write_bytes(b"PK\x03\x04 not an archive")
    damaged = CountingModel()
    run(vault, damaged, "The user uses Emacs.")
    assert sorted(damaged.embedded) == sorted(["The user uses Emacs.", *ITEMS])
    assert sorted(KeptVectors(vault, "m", 8).get(ITEMS)) == sorted(ITEMS)  # written anew, readable


def test_at_most_the_vectors_used_last_are_kept(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_vectors, "MAX_KEPT", 3)
    run(vault, CountingModel(), "The user uses Emacs.")  # the new text first, then the items: it drops out
    assert sorted(KeptVectors(vault, "m", 8).get(["The user uses Emacs.", *ITEMS])) == sorted(ITEMS)
    later = CountingModel()
    run(vault, later, "The user uses Vim.")  # the items used again, then the new text made: the first item drops
    assert later.embedded == ["The user uses Vim."]
    assert sorted(KeptVectors(vault, "m", 8).get([*ITEMS, "The user uses Vim."])) == sorted(
        [*ITEMS[1:], "The user uses Vim."]
    )


def test_the_packaged_models_name_and_size_are_the_ones_its_vectors_are_kept_under() -> None:
    embedder = make_embedder(EmbeddingSettings(provider="use"))
    assert (embedder.model, embedder.dim) == (PACKAGED_MODEL, PACKAGED_DIM)


def test_vectors_of_another_size_or_type_are_not_used(vault: Path) -> None:
    """A file that says it holds this model's vectors but whose rows could not be compared with the model's:
    read as none, so a crafted cache cannot stop an ingest."""
    import io

    for vectors in (np.zeros((3, 5), dtype=np.float32), np.zeros((3, 8), dtype=np.float64)):
        buffer = io.BytesIO()
        keys = np.array([kept_vectors._key(t) for t in ITEMS], dtype="S20")
        np.savez(buffer, identity=np.array(f"{kept_vectors.FORMAT}|m"), keys=keys, vectors=vectors)
        path = state_file(vault, MEMORY_VECTORS)
        assert path is not None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(buffer.getvalue())
        assert KeptVectors(vault, "m", 8).get(ITEMS) == {}
        model = CountingModel()
        run(vault, model, "The user uses Emacs.")
        assert sorted(model.embedded) == sorted(["The user uses Emacs.", *ITEMS])
