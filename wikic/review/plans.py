"""A source's anchored plan as a proposal keeps it: JSON, read back into the same frozen dataclasses.

An accept that takes a part of a proposal, or lands on pages changed since, compiles the run again from the
plans the run had (`IngestOptions.plans`): the compiler then applies its own rules to today's pages, and
no model is asked for what was reviewed (its reply could differ). The codec is JSON, never pickle: a
proposal is a file in the vault's folder, and a synced or cloned folder is not trusted to run code.
A plan that cannot be read back is refused whole (ValueError).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import types
import typing
from functools import cache
from typing import Any

from wikic.compile.plan import Plan
from wikic.ingest.extract.run import ExtractionResult
from wikic.llm.structured import Usage

_USAGE = ("calls", "cached_calls", "prompt_tokens", "completion_tokens", "earlier_prompt_tokens",
          "earlier_completion_tokens", "first_paid", "replies")


def result_to_json(result: ExtractionResult) -> dict[str, Any]:
    return {
        "plan": _encode(result.plan),
        "usage": {name: getattr(result.usage, name) for name in _USAGE},
        "chunks": result.chunks,
        "strategy": result.strategy,
        "signals": list(result.signals),
        "left_out": list(result.left_out),
    }


def result_from_json(data: Any) -> ExtractionResult:
    if not isinstance(data, dict):
        raise ValueError("a stored plan is no object")
    usage_data = data.get("usage") or {}
    usage = Usage(**{k: usage_data[k] for k in _USAGE if k in usage_data})
    return ExtractionResult(
        plan=_decode(Plan, data.get("plan")),
        usage=usage,
        chunks=int(data.get("chunks", 0)),
        strategy=str(data.get("strategy", "single")),
        signals=tuple(str(s) for s in data.get("signals", ())),
        left_out=tuple(str(s) for s in data.get("left_out", ())),
    )


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_encode(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


@cache
def _hints(cls: Any) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _decode(kind: Any, value: Any) -> Any:
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(kind)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _decode(option, value)
            except (ValueError, TypeError) as exc:
                errors.append(exc)
        raise ValueError(f"no form of {kind} reads {value!r}")
    if origin is tuple:
        args = typing.get_args(kind)
        if not isinstance(value, list):
            raise ValueError(f"{value!r} is no list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v) for v in value)
        if len(args) != len(value):
            raise ValueError(f"{value!r} is not {len(args)} long")
        return tuple(_decode(a, v) for a, v in zip(args, value, strict=True))
    if origin is list:
        (arg,) = typing.get_args(kind)
        if not isinstance(value, list):
            raise ValueError(f"{value!r} is no list")
        return [_decode(arg, v) for v in value]
    if dataclasses.is_dataclass(kind):
        if not isinstance(value, dict):
            raise ValueError(f"{value!r} is no object")
        made: Any = kind
        hints = _hints(made)
        known = {f.name for f in dataclasses.fields(made) if f.init}
        return made(**{k: _decode(hints[k], v) for k, v in value.items() if k in known})
    if kind is dt.date:
        return dt.date.fromisoformat(value) if isinstance(value, str) else _refuse(kind, value)
    if kind is float:
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else _refuse(kind, value)
    if kind in (str, int, bool):
        return value if type(value) is kind else _refuse(kind, value)
    raise TypeError(f"no reader for {kind}")


def _refuse(kind: Any, value: Any) -> typing.NoReturn:
    raise ValueError(f"{value!r} is no {getattr(kind, '__name__', kind)}")
