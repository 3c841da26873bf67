"""JSON schemas sent to the model, derived from the pydantic reply models.

Servers differ in the JSON Schema they accept. OpenAI's strict mode wants every property required and
`additionalProperties: false` on every object; llama.cpp's grammar converter copes best with a schema
without `$ref`. `strict_schema` produces one self-contained schema that satisfies both, keeping the
`maxItems`/`maxLength` limits: small local models decoding under a grammar degenerate into endless arrays
or strings without them. `portable_schema` drops those limits for servers that reject them.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic import BaseModel

# Keywords some strict-mode implementations refuse; the reply is still validated by pydantic.
_CONSTRAINT_KEYWORDS = ("maxLength", "minLength", "maxItems", "minItems", "pattern", "format")
_DROP_KEYWORDS = ("title", "default")


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A self-contained (no `$ref`), strict JSON schema for `model`: a new one each call, the caller's to
    change."""
    raw = dict(_json_schema(model))  # a copy: `$defs` is taken out below; the rest is rebuilt, never changed
    defs = raw.pop("$defs", {})
    return _tighten(_inline(raw, defs, ()))


@functools.cache
def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    # pydantic builds the schema afresh on every call: for a plan model that was several milliseconds of
    # every model call (each asks with its schema), more than reading the reply
    return model.model_json_schema()


def portable_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` without length and count limits."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in _CONSTRAINT_KEYWORDS}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    result: dict[str, Any] = strip(schema)
    return result


def _inline(node: Any, defs: dict[str, Any], seen: tuple[str, ...]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.rsplit("/", 1)[-1]
            if name in seen:
                raise ValueError(f"recursive schema ({' -> '.join((*seen, name))}) cannot be inlined")
            return _inline(copy.deepcopy(defs[name]), defs, (*seen, name))
        return {k: _inline(v, defs, seen) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, defs, seen) for v in node]
    return node


def _tighten(node: Any) -> Any:
    if isinstance(node, list):
        return [_tighten(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":  # its keys are field names, not keywords: never filter them
            out[key] = {name: _tighten(sub) for name, sub in value.items()}
        elif key not in _DROP_KEYWORDS:
            out[key] = _tighten(value)
    if out.get("type") == "object" and "properties" in out:
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out
