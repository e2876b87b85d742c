"""The full path of ``decode_chunk``: a strict scan, then Go's unmarshal of the fields read.

``decode``'s header states the semantics (Go's ``encoding/json`` into the chunk structs).
Rules: the scan is json's C scanner with objects kept as pair lists (``_Obj``), so that a
key given twice survives to be merged field by field; the extract then walks only the
fields the chunk structs have, matching struct keys case-insensitively (``_fold``) and a
content part's keys exactly. A wrong type rejects the whole chunk with a ``ChunkError``
naming the field. No state between calls (``_fold``'s cache is a pure memo).
"""

from __future__ import annotations

import json
from json.scanner import make_scanner
from typing import Any

from streamcall.chunks.delta import EMPTY, ChunkDelta, ChunkError, ToolCallFragment, Usage
from streamcall.chunks.gojson import fix_surrogates, go_marshal

__all__ = ["full_decode"]

# ---------------------------------------------------------------------------------------
# Scan: strict JSON into a tree whose objects keep every pair.


class _Obj(tuple):  # type: ignore[type-arg]
    """A JSON object as its (key, value) pairs, in order, duplicates kept."""

    __slots__ = ()


def _reject_constant(name: str) -> Any:
    raise ChunkError(f"invalid JSON: {name} is not a JSON value")


_decoder = json.JSONDecoder(object_pairs_hook=_Obj, parse_constant=_reject_constant)
_scan_once = make_scanner(_decoder)  # type: ignore[arg-type]
_JSON_SPACE = " \t\n\r"


def _scan(text: str) -> _Obj:
    try:
        start = len(text) - len(text.lstrip(_JSON_SPACE))
        value, end = _scan_once(text, start)
    except StopIteration as exc:
        where = exc.value
        raise ChunkError(
            "invalid JSON: empty input" if not text.strip() else f"invalid JSON at char {where}"
        ) from None
    except json.JSONDecodeError as exc:
        raise ChunkError(f"invalid JSON: {exc.msg} at char {exc.pos}") from None
    except RecursionError:
        raise ChunkError("invalid JSON: nested too deeply") from None
    except ChunkError:
        raise
    except ValueError as exc:  # an integer too long for int(): Go reads it, we cannot
        raise ChunkError(f"invalid JSON: {exc}") from None
    if end != len(text) and text[end:].strip(_JSON_SPACE):
        end += len(text[end:]) - len(text[end:].lstrip(_JSON_SPACE))
        raise ChunkError(f"invalid JSON: extra data at char {end}")
    if type(value) is not _Obj:
        raise ChunkError(f"chunk: expected a JSON object at the top level, got {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, _Obj):
        return "object"
    return "array"


# ---------------------------------------------------------------------------------------
# Extract: Go's unmarshal into the chunk structs, for the fields we need.

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


def _int64(value: Any, where: str) -> int:
    if type(value) is int and _INT64_MIN <= value <= _INT64_MAX:
        return value
    if type(value) is int:
        raise ChunkError(f"{where}: {value} overflows a 64-bit integer")
    raise ChunkError(f"{where}: expected an integer, got {_kind(value)} {_short(value)}")


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, _Obj) else "{...}"
    return text if len(text) <= 40 else text[:37] + "..."


def _string(value: Any, where: str) -> str:
    if type(value) is str:
        return value
    raise ChunkError(f"{where}: expected a string, got {_kind(value)} {_short(value)}")


def _object(value: Any, where: str) -> _Obj:
    if type(value) is _Obj:
        return value
    raise ChunkError(f"{where}: expected an object, got {_kind(value)} {_short(value)}")


def _array(value: Any, where: str) -> list[Any]:
    if type(value) is list:
        return value
    raise ChunkError(f"{where}: expected an array, got {_kind(value)} {_short(value)}")


_fold_cache: dict[str, str] = {}


def _fold(key: str) -> str:
    folded = _fold_cache.get(key)
    if folded is None:
        # Go folds keys with simple Unicode case folding (so "ſ" matches "s").
        folded = key.casefold()
        if len(_fold_cache) < 4096:
            _fold_cache[key] = folded
    return folded


class _Call:
    __slots__ = ("arguments", "id", "index", "name", "type")

    def __init__(self) -> None:
        self.index: int | None = None
        self.id: str | None = None
        self.type: str | None = None
        self.name: str | None = None
        self.arguments: Any = _UNSET


class _Choice:
    __slots__ = (
        "content",
        "finish_reason",
        "index",
        "reasoning",
        "reasoning_content",
        "role",
        "tool_calls",
    )

    def __init__(self) -> None:
        self.index: int | None = None
        self.content: Any = None
        self.reasoning_content = ""
        self.reasoning = ""
        self.role: str | None = None
        self.tool_calls: list[_Call | None] = []
        self.finish_reason: str | None = None


class _UsageState:
    __slots__ = (
        "cached",
        "completion",
        "completion_details",
        "extra",
        "has_totals",
        "prompt",
        "prompt_details",
        "reasoning",
        "total",
    )

    def __init__(self) -> None:
        self.prompt = 0
        self.completion = 0
        self.total = 0
        self.cached = 0
        self.reasoning = 0
        self.has_totals = False
        # name -> value as scanned (trees made plain only when the Usage is built)
        self.prompt_details: dict[str, Any] | None = None
        self.completion_details: dict[str, Any] | None = None
        self.extra: dict[str, Any] = {}


_UNSET: Any = object()
_USAGE_INTS = frozenset({"prompt_cache_hit_tokens", "prompt_cache_miss_tokens"})
_DETAIL_INTS = frozenset(
    {
        "cached_tokens",
        "reasoning_tokens",
        "audio_tokens",
        "accepted_prediction_tokens",
        "rejected_prediction_tokens",
    }
)
_USAGE_DETAILS = frozenset(
    {"prompt_tokens_details", "completion_tokens_details", "input_tokens_details"}
)


def _decode_slice(existing: list[Any], value: Any, where: str, item: Any) -> list[Any]:
    # Go decodes an array into a slice element by element, on top of the elements already
    # there, then cuts the slice to the new length; null clears it.
    if value is None:
        return []
    items = _array(value, where)
    out = existing[: len(items)]
    for i, element in enumerate(items):
        here = f"{where}[{i}]"
        if element is None:
            if i >= len(out):
                out.append(None)
            continue
        obj = _object(element, here)
        if i < len(out) and out[i] is not None:
            item(out[i], obj, here)
        else:
            fresh = item(None, obj, here)
            if i < len(out):
                out[i] = fresh
            else:
                out.append(fresh)
    return out


def _decode_choice(state: _Choice | None, obj: _Obj, where: str) -> _Choice:
    choice = state or _Choice()
    for key, value in obj:
        name = _fold(key)
        if name == "delta":
            if value is not None:
                _decode_delta(choice, _object(value, where + ".delta"), where + ".delta")
        elif name == "finish_reason":
            choice.finish_reason = (
                None if value is None else _string(value, where + ".finish_reason")
            )
        elif name == "index" and value is not None:
            choice.index = _int64(value, where + ".index")
    return choice


def _decode_delta(choice: _Choice, obj: _Obj, where: str) -> None:
    for key, value in obj:
        name = _fold(key)
        if name == "content":
            choice.content = value
        elif name == "reasoning_content":
            if value is not None:
                choice.reasoning_content = _string(value, where + ".reasoning_content")
        elif name == "reasoning":
            if value is not None:
                choice.reasoning = _string(value, where + ".reasoning")
        elif name == "role":
            if value is not None:
                choice.role = _string(value, where + ".role")
        elif name == "tool_calls":
            choice.tool_calls = _decode_slice(
                choice.tool_calls, value, where + ".tool_calls", _decode_call
            )


def _decode_call(state: _Call | None, obj: _Obj, where: str) -> _Call:
    call = state or _Call()
    for key, value in obj:
        if value is None:  # null leaves a string, an int or a struct as it was
            continue
        name = _fold(key)
        if name == "index":
            call.index = _int64(value, where + ".index")
        elif name == "id":
            call.id = _string(value, where + ".id")
        elif name == "type":
            call.type = _string(value, where + ".type")
        elif name == "function":
            for fkey, fvalue in _object(value, where + ".function"):
                fname = _fold(fkey)
                if fname == "name":
                    if fvalue is not None:
                        call.name = _string(fvalue, where + ".function.name")
                elif fname == "arguments":
                    call.arguments = fvalue
    return call


def _decode_usage(state: _UsageState | None, obj: _Obj, where: str) -> _UsageState:
    # Known members are struct fields (case-insensitive keys, null changes nothing, a
    # wrong type rejects the chunk) and are kept under their own names; any other member
    # is a Go map's (exact key, the last one wins, any value) and is kept as sent.
    usage = state or _UsageState()
    for key, value in obj:
        name = _fold(key)
        if name == "prompt_tokens":
            if value is not None:
                usage.prompt = _int64(value, where + ".prompt_tokens")
                usage.has_totals = True
        elif name == "completion_tokens":
            if value is not None:
                usage.completion = _int64(value, where + ".completion_tokens")
                usage.has_totals = True
        elif name == "total_tokens":
            if value is not None:
                usage.total = _int64(value, where + ".total_tokens")
                usage.has_totals = True
        elif name in _USAGE_INTS:
            if value is not None:
                usage.extra[name] = _int64(value, f"{where}.{key}")
        elif name in _USAGE_DETAILS:
            if value is None:
                continue
            here = f"{where}.{key}"
            members = _object(value, here)
            if name == "prompt_tokens_details":
                usage.prompt_details = _decode_details(
                    usage, usage.prompt_details, members, here, name
                )
            elif name == "completion_tokens_details":
                usage.completion_details = _decode_details(
                    usage, usage.completion_details, members, here, name
                )
            else:
                usage.extra[name] = _decode_details(
                    usage, usage.extra.get(name), members, here, name
                )
        else:
            usage.extra[key] = value
    return usage


def _decode_details(
    usage: _UsageState, details: dict[str, Any] | None, obj: _Obj, where: str, kind: str
) -> dict[str, Any]:
    """A ``*_tokens_details`` object (``kind``: its folded name), decoded on top of the one
    before (a repeated key). ``cached_tokens`` of the prompt (or input) details and
    ``reasoning_tokens`` of the completion details are also read out."""
    details = {} if details is None else details
    for dkey, dvalue in obj:
        dname = _fold(dkey)
        if dname not in _DETAIL_INTS:
            details[dkey] = dvalue
        elif dvalue is not None:
            count = details[dname] = _int64(dvalue, f"{where}.{dkey}")
            if dname == "cached_tokens" and kind != "completion_tokens_details":
                usage.cached = count
            elif dname == "reasoning_tokens" and kind == "completion_tokens_details":
                usage.reasoning = count
    return details


def _usage(usage: _UsageState, fix: bool) -> Usage:
    return Usage(
        usage.prompt,
        usage.completion,
        usage.total,
        usage.cached,
        usage.reasoning,
        None if usage.prompt_details is None else _plain(usage.prompt_details, fix),
        None if usage.completion_details is None else _plain(usage.completion_details, fix),
        _plain(usage.extra, fix) if usage.extra else None,
    )


def _plain(members: dict[str, Any], fix: bool) -> dict[str, Any]:
    """``members`` with each scanned tree in it made plain JSON values (an object a dict,
    the last of duplicate keys winning; lone surrogates U+FFFD when ``fix``). A loop, not
    recursion: a member may nest as deep as the scanner allowed."""
    out: dict[str, Any] = {}
    work: list[tuple[Any, Any]] = [(members, out)]
    while work:
        source, target = work.pop()
        for key, value in source.items() if type(source) is dict else enumerate(source):
            kind = type(value)
            if kind is _Obj:
                filled: Any = {}
                work.append((dict(value), filled))  # to be filled from the pairs
                value = filled
            elif kind is list:
                filled = [None] * len(value)
                work.append((value, filled))
                value = filled
            elif fix and kind is str:
                value = fix_surrogates(value)
            target[fix_surrogates(key) if fix and type(key) is str else key] = value
    return out


# ---------------------------------------------------------------------------------------
# content: Go's stringifyContent (json.Marshal(interface{}) for its default branch is
# gojson.go_marshal).


def _stringify_content(value: Any, where: str) -> str:
    if type(value) is str:
        return value
    if value is None:
        return ""
    if type(value) is list:
        texts = []
        for part in value:
            if type(part) is _Obj:
                text = _UNSET
                for key, item in part:  # a Go map: exact keys, the last one wins
                    if key == "text":
                        text = item
                if type(text) is str:
                    texts.append(text)
        return "".join(texts)
    return go_marshal(value, where)


def _stringify_arguments(value: Any, where: str) -> str:
    if value is _UNSET or value is None:
        return ""
    if type(value) is str:
        return value
    return go_marshal(value, where)


# ---------------------------------------------------------------------------------------
# The whole chunk.


def full_decode(text: str) -> ChunkDelta:
    top = _scan(text)
    choices: list[Any] = []
    usage: _UsageState | None = None
    for key, value in top:
        name = _fold(key)
        if name == "choices":
            choices = _decode_slice(choices, value, "choices", _decode_choice)
        elif name == "usage":
            usage = (
                None if value is None else _decode_usage(usage, _object(value, "usage"), "usage")
            )
    fix = "\\u" in text or "\\U" in text  # only an escape can make a lone surrogate
    result = _usage(usage, fix) if usage is not None and usage.has_totals else None
    deltas = [
        _choice_delta(choice, i, fix, result)
        for i, choice in enumerate(choices)
        if choice is not None
    ]
    if not deltas:
        return EMPTY if result is None else ChunkDelta(usage=result)
    if len(deltas) > 1:
        return deltas[0]._replace(others=tuple(deltas[1:]))
    return deltas[0]


def _choice_delta(choice: _Choice, position: int, fix: bool, usage: Usage | None) -> ChunkDelta:
    where = f"choices[{position}].delta"
    content = _stringify_content(choice.content, where + ".content")
    reasoning = choice.reasoning_content or choice.reasoning
    calls = tuple(
        _fragment(call, i, where, fix)
        for i, call in enumerate(choice.tool_calls)
        if call is not None
    )
    if fix:
        content = fix_surrogates(content)
        reasoning = fix_surrogates(reasoning)
    reason = choice.finish_reason
    if fix and reason:
        reason = fix_surrogates(reason)
    return ChunkDelta(
        content,
        reasoning,
        calls,
        reason or None,
        bool(reason),
        usage,
        position if choice.index is None else choice.index,
        choice.role,
    )


def _fragment(call: _Call, position: int, where: str, fix: bool) -> ToolCallFragment:
    arguments = _stringify_arguments(call.arguments, f"{where}.tool_calls[{position}].arguments")
    call_id, name = call.id, call.name
    if fix:
        arguments = fix_surrogates(arguments)
        call_id = None if call_id is None else fix_surrogates(call_id)
        name = None if name is None else fix_surrogates(name)
    given = call.index is not None
    return ToolCallFragment(
        call.index if call.index is not None else position,
        call_id,
        name,
        arguments,
        call.type,
        given,
    )
