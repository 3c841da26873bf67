"""How to ask an endpoint for JSON, and which way each endpoint turned out to accept.

Ask with `json_schema` (strict) first. Servers that do not support it reject it in different
ways (HTTP 400, 422, or llama-cpp-python's HTTP 500 naming `response_format`). On such a rejection wikic
steps down a ladder and remembers, per endpoint, the first mode that worked, so later runs go straight to it:

1. `json_schema`          strict schema with `maxItems`/`maxLength` limits;
2. `json_schema_portable` the same without limits, only when the error names an unsupported keyword
                          (strict implementations that accept the format but not every keyword);
3. `json_object`          `{"type": "json_object", "schema": ...}` plus the schema stated in the prompt
                          (llama-cpp-python turns that `schema` into a grammar; other servers ignore it).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from wikic.llm.schema import portable_schema
from wikic.vault.state import ENDPOINTS, read_json, write_json

Mode = Literal["json_schema", "json_schema_portable", "json_object"]
MODES: tuple[Mode, ...] = ("json_schema", "json_schema_portable", "json_object")


_FORMAT_WORDS = ("response_format", "json_schema", "schema", "structured output", "grammar")
_KEYWORD_WORDS = ("maxlength", "minlength", "maxitems", "minitems", "pattern", "not permitted", "unsupported keyword")


def next_mode(mode: Mode, status: int | None, error_text: str) -> Mode | None:
    """The mode to try after `mode` was rejected with `status`/`error_text`; None if this is no format rejection."""
    text = error_text.lower()
    if status in (400, 422):
        rejected = any(word in text for word in _FORMAT_WORDS)
    elif status == 500:
        # A 500 is normally a server fault; llama-cpp-python answers an unknown response_format with one.
        rejected = "response_format" in text
    else:
        rejected = False
    if not rejected:
        return None
    if mode == "json_schema":
        return "json_schema_portable" if any(word in text for word in _KEYWORD_WORDS) else "json_object"
    if mode == "json_schema_portable":
        return "json_object"
    return None


def request_format(
    mode: Mode, messages: Sequence[Mapping[str, str]], schema_name: str, schema: Mapping[str, Any]
) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """The `response_format` value and the messages to send in `mode`."""
    msgs = [dict(m) for m in messages]
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": schema_name, "schema": dict(schema), "strict": True},
        }, msgs
    if mode == "json_schema_portable":
        portable = portable_schema(dict(schema))
        return {"type": "json_schema", "json_schema": {"name": schema_name, "schema": portable, "strict": True}}, msgs
    # Without server-side enforcement the model only knows the shape from the prompt.
    note = (
        "Reply with one JSON object and nothing else (no prose, no code fences). "
        f"It must match this JSON Schema:\n{json.dumps(schema, ensure_ascii=False)}"
    )
    if msgs and msgs[0].get("role") == "system":
        msgs[0]["content"] = f"{msgs[0]['content']}\n\n{note}"
    else:
        # Some chat templates accept a system message only in first position.
        msgs.insert(0, {"role": "system", "content": note})
    return {"type": "json_object", "schema": dict(schema)}, msgs


def param_quirk(status: int | None, error_text: str) -> tuple[str, str] | None:
    """A request parameter the model refuses, as (quirk, value); None if the error is about something else.

    OpenAI's reasoning models refuse `max_tokens` (they want `max_completion_tokens`) and any temperature
    but the default; both answers are HTTP 400 naming the parameter.
    """
    if status != 400:
        return None
    text = error_text.lower()
    if "max_completion_tokens" in text:
        return "token_param", "max_completion_tokens"
    if "temperature" in text and any(word in text for word in ("unsupported", "does not support", "not supported")):
        return "temperature", "omit"
    return None


class EndpointMemory:
    """What each endpoint (and model) turned out to accept, persisted in `.wikic/llm-endpoints.json`.

    `{"endpoints": {URL: {"response_format": MODE, "models": {MODEL: {QUIRK: VALUE}}}}}`; with no state
    folder it lives in memory only.
    """

    def __init__(self, state_dir: Path | None) -> None:
        self._path = state_dir / ENDPOINTS if state_dir is not None else None
        self._lock = threading.Lock()
        self._entries: dict[str, dict[str, Any]] = {}
        stored = read_json(self._path) if self._path is not None else None
        if isinstance(stored, dict) and isinstance(stored.get("endpoints"), dict):
            self._entries = {k: v for k, v in stored["endpoints"].items() if isinstance(v, dict)}

    def get(self, endpoint: str) -> Mode:
        with self._lock:
            mode = self._entries.get(endpoint, {}).get("response_format")
            return mode if mode in MODES else "json_schema"

    def quirks(self, endpoint: str, model: str) -> dict[str, str]:
        with self._lock:
            models = self._entries.get(endpoint, {}).get("models", {})
            return dict(models.get(model, {})) if isinstance(models, dict) else {}

    def remember(self, endpoint: str, mode: Mode) -> None:
        with self._lock:
            entry = self._entries.setdefault(endpoint, {})
            if entry.get("response_format", "json_schema") == mode:
                return
            entry["response_format"] = mode
            self._persist(endpoint)

    def remember_quirk(self, endpoint: str, model: str, quirk: str, value: str) -> None:
        with self._lock:
            models = self._entries.setdefault(endpoint, {}).setdefault("models", {})
            models.setdefault(model, {})[quirk] = value
            self._persist(endpoint)

    def _persist(self, endpoint: str) -> None:
        if self._path is None:
            return
        # Re-read and merge so two processes learning about different endpoints keep each other's entries.
        stored = read_json(self._path)
        endpoints = stored.get("endpoints", {}) if isinstance(stored, dict) else {}
        merged = dict(endpoints.get(endpoint, {})) if isinstance(endpoints.get(endpoint), dict) else {}
        ours = self._entries[endpoint]
        models = {**merged.get("models", {}), **ours.get("models", {})}
        merged.update(ours)
        if models:
            merged["models"] = models
        endpoints[endpoint] = merged
        write_json(self._path, {"endpoints": endpoints}, root=self._path.parent.parent, private=True)
