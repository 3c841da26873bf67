"""The vault opened once: what a command (or an MCP tool, or `wikic watch`) builds at its start and hands to
the library, so that nothing below the faces reads wikic.toml or SCHEMA.md or opens the palace again.

    context = VaultContext(root, overrides)   # the CLI's flags for [llm]; nothing is read yet
    context.settings          # wikic.toml, the environment and the overrides, validated (read on first use)
    context.schema            # SCHEMA.md as lint reads it, problems included (read on first use)
    context.checked_schema()  # ... as the commands that act on it need it: SchemaError when it is misread
    context.palace()          # the palace, opened on first use and kept until `close()`
    context.llm()             # the `[llm]` model client, made on first use (ConfigError: none configured)

Each file is read once, and again only if it changed since (its size, modification time and inode), so a
long-lived context (the MCP server's, `wikic watch`'s) sees an edit and a command's reads each file once.
Settings and SCHEMA.md are read when first needed, not when the context is made: a command reports the
problem of the file it reads first, as it always did.

The context is the only door: the library's entry points take one (never a folder), and nothing but this
module reads wikic.toml or SCHEMA.md; a layer below it (the palace, the facts, the vault model) is handed
what it needs, the settings or the schema, by whoever holds the context. A script opens one as the faces do:

    with VaultContext(root) as context:
        report = run_lint(context)
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikic.config_file import CONFIG_FILE, config_fingerprint, user_config_path
from wikic.vault.layout import SCHEMA_FILE
from wikic.vault.schema_md import Schema, checked, load as load_schema
from wikic.vault.state import SETTINGS_CHECKED, read_cache_json, write_cache

if TYPE_CHECKING:
    from wikic.llm.client import StreamingLLM
    from wikic.palace.palace import Palace
    from wikic.settings import Settings

_Stamp = tuple[int, int, int] | None


def _stamp(path: Path) -> _Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


class VaultContext:
    """One vault's settings, SCHEMA.md, palace and model, each read or opened once (see the module docstring).

    `settings`, `llm` and `palace` may be given instead (tests, a server that keeps its palace): a given
    palace is the giver's to close."""

    def __init__(
        self,
        root: Path,
        overrides: Mapping[str, Any] | None = None,
        *,
        settings: Settings | None = None,
        llm: StreamingLLM | None = None,
        palace: Palace | None = None,
    ) -> None:
        self.root = Path(root)
        self.overrides = dict(overrides or {})
        self._lock = threading.RLock()
        self._fixed_settings = settings
        self._settings: tuple[tuple[_Stamp, _Stamp], Settings] | None = None
        self._schema: tuple[_Stamp, Schema] | None = None
        self._llm: StreamingLLM | None = llm
        self._palace: Palace | None = palace
        self._palace_given = palace is not None
        # held by whoever uses the palace where threads share this context (the MCP server's tools)
        self.palace_lock = threading.RLock()

    # -- what is read ------------------------------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        if self._fixed_settings is not None:
            return self._fixed_settings
        with self._lock:
            # the user's own config holds settings too (endpoints trusted with the key, [mcp] allow)
            stamp = (_stamp(self.root / CONFIG_FILE), _stamp(user_config_path()))
            if self._settings is None or self._settings[0] != stamp:
                # imported here: a lint whose settings were checked before never loads pydantic (`lint_strict`)
                from wikic.settings import load_settings

                self._settings = (stamp, load_settings(self.root, self.overrides))
            return self._settings[1]

    def lint_strict(self, *, recorded: bool = False) -> bool:
        """`settings.lint.strict`, the one setting lint reads. The settings are validated whole, as every
        command validates them (ConfigError when they do not hold). `recorded` (a lint that uses and keeps its
        caches): unless they were validated for this vault before from the same wikic.toml (the same file,
        not a copy of it), user config, environment and wikic, whose record under `.wikic/cache/` then gives
        the value without loading the validator (pydantic and the settings' models: 0.14 s of a process);
        the record is kept for the next lint."""
        if not recorded or self._fixed_settings is not None or self.overrides:
            return self.settings.lint.strict
        key = self._settings_key()
        record = read_cache_json(self.root, SETTINGS_CHECKED)
        if record is not None and record.get("key") == key and isinstance(record.get("lint_strict"), bool):
            return bool(record["lint_strict"])
        strict = self.settings.lint.strict
        write_cache(self.root, SETTINGS_CHECKED, json.dumps({"key": key, "lint_strict": strict}))
        return strict

    def _settings_key(self) -> str:
        """What the settings are made of (`config_fingerprint`), for this vault's folder, with the identity
        of its wikic.toml: a record that came with a copied or cloned vault names another file, and is not
        taken for this one's."""
        made_of = config_fingerprint(self.root)
        try:
            st = os.stat(self.root / CONFIG_FILE)
        except OSError:
            file = ""
        else:
            file = f"{st.st_dev}:{st.st_ino}:{st.st_mtime_ns}"
        return f"{made_of}:{os.path.abspath(self.root)}:{file}"

    @property
    def schema(self) -> Schema:
        """SCHEMA.md as lint reads it: whatever it holds, with its problems (none: a plain vault's)."""
        with self._lock:
            stamp = _stamp(self.root / SCHEMA_FILE)
            if self._schema is None or self._schema[0] != stamp:
                self._schema = (stamp, load_schema(self.root))
            return self._schema[1]

    def checked_schema(self) -> Schema:
        """SCHEMA.md as what acts on it needs it (ingest, watch, saving an answer, status...): SchemaError
        (exit 2) naming every line it cannot read as meant."""
        return checked(self.schema, self.root)

    @property
    def page_types(self) -> list[str]:
        return list(self.schema.page_folders)

    # -- what is opened ----------------------------------------------------------------------------------
    def palace(self) -> Palace:
        """The vault's palace, opened on first use (MissingExtra without the palace extra)."""
        with self._lock:
            if self._palace is None:
                from wikic.palace import open_palace

                self._palace = open_palace(self.root, self.settings)
            return self._palace

    @property
    def palace_opened(self) -> bool:
        return self._palace is not None

    def llm(self) -> StreamingLLM:
        """The vault's model client (`[llm]`), made on first use: ConfigError when no model is configured."""
        with self._lock:
            if self._llm is None:
                from wikic.llm.client import vault_llm

                self._llm = vault_llm(self.root, self.settings.llm)
            return self._llm

    def close(self) -> None:
        """Close the palace this context opened (a given one stays open)."""
        with self._lock:
            if self._palace is not None and not self._palace_given:
                self._palace.close()
                self._palace = None

    def __enter__(self) -> VaultContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
