"""Writing a page's frontmatter: a stable key order, and bytes that never depend on which YAML emitter ran.
Reading it back is `wikic/vault/frontmatter.py`'s."""

from __future__ import annotations

import re
from typing import Any

import yaml

from wikic.resources import frontmatter_order
from wikic.vault.fields import REQUIRED
from wikic.vault.frontmatter import FENCE
from wikic.vault.layout import PAGE_FOLDERS

# The order every page's frontmatter is written in: the page skeletons' (templates/pages/).
FM_ORDER = frontmatter_order(PAGE_FOLDERS)


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # never "&id001" anchors: Obsidian shows them verbatim
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # PyYAML may write U+0085/U+2028/U+2029 raw in a single-quoted scalar, where a reader folds them into a
    # space; double quotes escape them (\N, \L, \P), so the value reads back as it was.
    style = '"' if any(c in value for c in "\x85\u2028\u2029") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


# libyaml's emitter is ~5x faster than PyYAML's, and a page's frontmatter is dumped again for every source
# that touches it. The two write the same bytes except for text holding control characters (line folding
# of double-quoted strings), U+0085/U+2028/U+2029, a BOM, or characters outside the BMP (libyaml escapes
# them): such frontmatter keeps the pure-Python emitter, so a page's bytes never depend on which one ran.
if getattr(yaml, "__with_libyaml__", False):

    class _LibyamlDumper(yaml.CSafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

    _FastDumper: type[_LibyamlDumper | _Dumper] = _LibyamlDumper
else:  # pragma: no cover - PyYAML built without libyaml
    _FastDumper = _Dumper

_NOT_FAST = re.compile("[^ -~\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]")


def _fast_safe(value: Any) -> bool:
    if isinstance(value, str):
        return _NOT_FAST.search(value) is None
    if isinstance(value, dict):
        return all(_fast_safe(k) and _fast_safe(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set)):
        return all(_fast_safe(v) for v in value)
    return True


def dump_frontmatter(data: dict[str, Any]) -> str:
    ordered = {k: data[k] for k in FM_ORDER if k in data and (k in REQUIRED or data[k] not in (None, [], ""))}
    ordered.update({k: v for k, v in data.items() if k not in ordered and k not in FM_ORDER})
    dumper = _FastDumper if _fast_safe(ordered) else _Dumper
    text = yaml.dump(ordered, Dumper=dumper, sort_keys=False, allow_unicode=True, default_flow_style=None, width=1000)
    return f"{FENCE}\n{text}{FENCE}\n"
