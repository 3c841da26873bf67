"""The page template: one HTML file with `$placeholders` (Python's `string.Template`), the shipped one or a
person's own (`--template FILE`, `[export] template` in wikic.toml). docs/export.md names the placeholders."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from string import Template

from wikic.errors import UsageError

ASSET_FILES = ("site.css", "site.js", "cytoscape.min.js", "cytoscape.LICENSE")
DEFAULT_TEMPLATE = "page.html"
PLACEHOLDERS = ("title", "site_title", "root", "path", "properties", "content", "backlinks", "sources", "kind",
                "nav")


def asset(name: str) -> bytes:
    """A file shipped in `wikic/export/assets/`."""
    return resources.files("wikic.export").joinpath("assets", name).read_bytes()


def load_template(path: Path | None) -> str:
    """The template's text: the file at `path`, else the shipped one. UsageError naming the file when it cannot
    be read or names a placeholder that does not exist."""
    if path is None:
        return asset(DEFAULT_TEMPLATE).decode("utf-8")
    try:
        text = path.read_text(encoding="utf-8")
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
