"""The page template: one HTML file with `$placeholders` (Python's `string.Template`), the shipped one or a
person's own (`--template FILE`, `[export] template` in wikic.toml). docs/export.md names the placeholders."""

from __future__ import annotations

import errno
from importlib import resources
from pathlib import Path
from string import Template

from wikic.errors import ConfigError, UsageError, VaultError
from wikic.vault.paths import inside_lexically, read_inside

ASSET_FILES = ("site.css", "site.js", "cytoscape.min.js", "cytoscape.LICENSE", "favicon.svg")
DEFAULT_TEMPLATE = "page.html"
PLACEHOLDERS = ("title", "site_title", "root", "path", "properties", "content", "backlinks", "sources", "kind",
                "nav")


def asset(name: str) -> bytes:
    """A file shipped in `wikic/export/assets/`."""
    return resources.files("wikic.export").joinpath("assets", name).read_bytes()


def load_template(path: Path | None, *, root: Path, configured: str | None = None) -> str:
    """The template's text: the file at `path` (`--template`), else the vault's `configured` one (`[export]
    template`, a file inside the vault at `root`: a vault's own wikic.toml must not copy a file from elsewhere
    into every page), else the shipped one. UsageError (ConfigError for the configured one) naming the file
    when it cannot be read or names a placeholder that does not exist."""
    if path is None and configured is None:
        return asset(DEFAULT_TEMPLATE).decode("utf-8")
    try:
        if path is not None:
            text = path.read_text(encoding="utf-8")
        else:
            path = Path(str(configured))
            if path.is_absolute() or not inside_lexically(root, root / path):
                raise ConfigError(f"[export] template = {str(configured)!r} in wikic.toml is not a file inside the "
                                  "vault", hint="name a file of the vault, relative to it, or give --template FILE")
            data = read_inside(root, root / path)
            if data is None:
                raise FileNotFoundError(errno.ENOENT, "no such file")
            text = data.decode("utf-8")
    except VaultError as exc:
        raise ConfigError(f"cannot read the page template {path}: {exc}",
                          hint="name a file of the vault in [export] template, or give --template FILE") from None
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UsageError(f"cannot read the page template {path}: {why}",
                         hint="give an HTML file with --template FILE or [export] template (docs/export.md)") from None
    template = Template(text)
    if not template.is_valid():
        raise UsageError(f"the page template {path} holds a '$' that names no placeholder",
                         hint="write a literal dollar as $$ (docs/export.md names the placeholders)")
    unknown = sorted(set(template.get_identifiers()) - set(PLACEHOLDERS))
    if unknown:
        raise UsageError(f"the page template {path} names no placeholder called ${unknown[0]}",
                         hint=f"the placeholders are {', '.join('$' + p for p in PLACEHOLDERS)}")
    return text


def fill(template: str, values: dict[str, str]) -> str:
    """The template with every placeholder replaced (each value already HTML)."""
    return Template(template).substitute({name: values.get(name, "") for name in PLACEHOLDERS})
