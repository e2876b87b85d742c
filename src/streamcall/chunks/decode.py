"""Chunk layer: one OpenAI-compatible ``chat.completion.chunk`` into a ``ChunkDelta``.

The semantics are those of Go's ``encoding/json`` unmarshalling into structs of these
shapes (``tests/chunks/test_chunk_truth_table.py`` pins them case by case):

    chunk    = {choices: [choice], usage: usage|null, *: ignored}
    choice   = {index: int, delta: delta, finish_reason: string|null, *: ignored}
    delta    = {content: ANY, reasoning_content: string, reasoning: string, role: string,
                tool_calls: [call], *: ignored}
    call     = {index: int, id: string, type: string, function: {name: string, arguments: ANY}}
    usage    = {prompt_tokens, completion_tokens, total_tokens, prompt_cache_hit_tokens,
                prompt_cache_miss_tokens: int64, *_tokens_details: details|null, *: kept}
    details  = {cached_tokens, reasoning_tokens, audio_tokens, accepted_prediction_tokens,
                rejected_prediction_tokens: int64, *: kept}

- Struct keys match case-insensitively; keys inside a content part are a Go map's keys and
  match exactly (``{"TEXT": ...}`` is not text). Do not "unify" the two.
- A value of the wrong type rejects the whole chunk (``ChunkError`` names the field).
- A key given twice merges field by field: a struct is decoded on top of the earlier one,
  an array element on top of the earlier element (Go slice semantics), and a scalar or an
  ``ANY`` value is replaced. ``null`` leaves a string or int as it was and clears the rest.
- ``content`` is loosely typed: string as is, ``null`` as "", a list of parts as the
  concatenation of their string ``text``, anything else re-encoded as Go's
  ``json.Marshal(interface{})`` would (``_go_marshal``).
- ``usage`` loses nothing: Go ignores a member it has no field for, but ``Usage`` keeps
  each one as sent (in ``extra``, or in its details object), so that the proxy can pass
  the whole usage object on. Those members are never checked. A usage object without any
  of the three totals (a heartbeat) gives no ``Usage`` at all.
- Invalid UTF-8 in ``bytes`` input becomes one U+FFFD per bad byte (Go's rule, not
  Python's one-per-maximal-subpart); an escaped lone surrogate becomes U+FFFD too.

Scan and extract are split: the C scanner of ``json`` checks the grammar and builds the
tree with objects kept as pair lists (``_Obj``) so that duplicates survive; ``_Extract``
then walks only the fields it needs. There is no state between calls.

A fast path (``_FAST_PATH_ENABLED``) reads the common content or reasoning chunk without
building a tree: memoised checks of the chunk's head and tail around one string read by
json's C scanner. It is proved equal to the full path by tests and is on because it
measures faster (``python -m benchmarks sse``; figures in docs/performance.md). orjson is
not used: it keeps only the last of duplicate keys, which these semantics merge field by
field.
"""

from __future__ import annotations

import codecs
import json
import re
from _json import scanstring as _scanstring
from collections.abc import Mapping
from dataclasses import dataclass, field
from json.scanner import make_scanner
from typing import Any, NamedTuple

from streamcall.events import usage_dict

__all__ = ["ChunkDelta", "ChunkError", "ToolCallFragment", "Usage", "decode_chunk"]


class ChunkError(ValueError):
    """The chunk was rejected: its message says which field, and why."""


@dataclass(frozen=True, slots=True)
class ToolCallFragment:
    """One piece of a structured tool call, as the server sent it.

    ``index`` is the server's ``index``; when the server left it out, ``index_given`` is
    false and ``index`` is the fragment's position in ``tool_calls`` (the accumulator then
    matches the fragment by id, or continues the last call).
    """

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""
    type: str | None = None
    index_given: bool = True


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage, with everything else the server said about it.

    - ``prompt_tokens``, ``completion_tokens``, ``total_tokens``: the totals; a count the
      server left out is 0.
    - ``cached_tokens``, ``reasoning_tokens``: ``prompt_tokens_details.cached_tokens`` (or
      ``input_tokens_details.cached_tokens``) and ``completion_tokens_details.reasoning_tokens``
      read out as plain ints (0 when absent), for cost accounting without a lookup.
    - ``prompt_tokens_details``, ``completion_tokens_details``: those objects as the server
      sent them (``{"cached_tokens": 1920, "audio_tokens": 0}``), ``None`` when it sent
      none. Their known counts (``cached_tokens``, ``audio_tokens``, ``reasoning_tokens``,
      ``accepted_prediction_tokens``, ``rejected_prediction_tokens``) are checked to be
      integers; any other member is kept as sent, whatever its JSON value.
    - ``extra``: every other member of the usage object, as sent (``prompt_cache_hit_tokens``,
      ``input_tokens_details``, a provider's ``cost``, ...), ``None`` when there was none.

    The mappings are plain JSON values (dicts, lists, str, int, float, bool, None); treat
    them as read-only, they are shared with the events built from this usage. They take no
    part in the hash, so a ``Usage`` stays hashable; ``==`` compares them. ``to_dict()``
    gives the usage object back, as an OpenAI-compatible server would send it.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    prompt_tokens_details: Mapping[str, Any] | None = field(default=None, hash=False)
    completion_tokens_details: Mapping[str, Any] | None = field(default=None, hash=False)
    extra: Mapping[str, Any] | None = field(default=None, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """The usage object: totals, details, then the other members as sent."""
        return usage_dict(self)


class ChunkDelta(NamedTuple):
    """What one chunk says about one choice.

    The flat fields describe the chunk's first choice (``choice`` is its index); any
    further choices (``n > 1``) are in ``others``, one ``ChunkDelta`` each. ``usage`` is
    the chunk's, ``None`` when it carried no token totals. A NamedTuple, not a frozen
    dataclass, because it is built once per chunk on the hot path, where the frozen
    dataclass costs more to construct; it is just as immutable and slotted.
    """

    content: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCallFragment, ...] = ()
    finish_reason: str | None = None
    done: bool = False
    usage: Usage | None = None
    choice: int = 0
    role: str | None = None
    others: tuple[ChunkDelta, ...] = ()


_new_delta = tuple.__new__
EMPTY = ChunkDelta()

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


def _go_utf8_errors(exc: UnicodeError) -> tuple[str, int]:
    # Go replaces each invalid byte by its own U+FFFD; Python's "replace" gives one per
    # maximal invalid subpart (b"\xe4\xbd" -> 1, Go -> 2).
    assert isinstance(exc, UnicodeDecodeError)
    return "\ufffd" * (exc.end - exc.start), exc.end


codecs.register_error("streamcall.go-utf8", _go_utf8_errors)

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _fix_surrogates(text: str) -> str:
    return _LONE_SURROGATE.sub("\ufffd", text)


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
                value = _fix_surrogates(value)
            target[_fix_surrogates(key) if fix and type(key) is str else key] = value
    return out


# ---------------------------------------------------------------------------------------
# content: Go's stringifyContent, and json.Marshal(interface{}) for its default branch.


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
    return _go_marshal(value, where)


def _stringify_arguments(value: Any, where: str) -> str:
    if value is _UNSET or value is None:
        return ""
    if type(value) is str:
        return value
    return _go_marshal(value, where)


_HTML_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)
_encode_string = json.JSONEncoder(ensure_ascii=False).encode


def _go_marshal(value: Any, where: str) -> str:
    parts: list[str] = []
    _marshal_into(value, parts, where)
    return "".join(parts)


def _marshal_into(value: Any, out: list[str], where: str) -> None:
    kind = type(value)
    if kind is str:
        out.append(_encode_string(_fix_surrogates(value)).translate(_HTML_ESCAPES))
    elif value is None:
        out.append("null")
    elif kind is bool:
        out.append("true" if value else "false")
    elif kind is int or kind is float:
        out.append(_go_float(value, where))
    elif kind is list:
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _marshal_into(item, out, where)
        out.append("]")
    else:
        members = {_fix_surrogates(k): v for k, v in value}  # a Go map: the last one wins
        out.append("{")
        for i, key in enumerate(sorted(members)):
            if i:
                out.append(",")
            out.append(_encode_string(key).translate(_HTML_ESCAPES))
            out.append(":")
            _marshal_into(members[key], out, where)
        out.append("}")


_REPR_PARTS = re.compile(r"(\d+)(?:\.(\d+))?(?:e([-+]\d+))?")


def _go_float(number: int | float, where: str) -> str:
    """A number as Go's encoding/json writes a float64: shortest round trip, in exponent
    form below 1e-6 and from 1e21 up (``1e+21``, ``1e-7``), plain otherwise."""
    try:
        f = float(number)
    except OverflowError:
        raise ChunkError(f"{where}: number {number} is out of range for a float64") from None
    if f != f or f in (float("inf"), float("-inf")):
        raise ChunkError(f"{where}: number {number} is out of range for a float64")
    if f == 0:
        return "-0" if str(f).startswith("-") else "0"
    sign = "-" if f < 0 else ""
    match = _REPR_PARTS.fullmatch(repr(abs(f)))
    assert match is not None
    whole, frac, exp = match.group(1), match.group(2) or "", int(match.group(3) or 0)
    digits = (whole + frac).lstrip("0")
    # value = 0.DIGITS * 10**point
    point = len(whole) + exp - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0") or "0"
    abs_f = abs(f)
    if abs_f < 1e-6 or abs_f >= 1e21:
        e = point - 1
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if e < 0 else '+'}{abs(e):02d}".replace("e-0", "e-")
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


# ---------------------------------------------------------------------------------------
# The whole decode.


def decode_chunk(data: str | bytes) -> ChunkDelta:
    """Decode one chunk's JSON. Raises ``ChunkError`` (a ``ValueError``) when rejected."""
    if type(data) is not str:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ChunkError(f"chunk: expected str or bytes, got {type(data).__name__}")
        data = bytes(data).decode("utf-8", "streamcall.go-utf8")
    if _FAST_PATH_ENABLED:
        fast = _fast_decode(data)
        if fast is not None:
            return fast
    return _full_decode(data)


def _full_decode(text: str) -> ChunkDelta:
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
        content = _fix_surrogates(content)
        reasoning = _fix_surrogates(reasoning)
    reason = choice.finish_reason
    if fix and reason:
        reason = _fix_surrogates(reason)
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
        arguments = _fix_surrogates(arguments)
        call_id = None if call_id is None else _fix_surrogates(call_id)
        name = None if name is None else _fix_surrogates(name)
    given = call.index is not None
    return ToolCallFragment(
        call.index if call.index is not None else position,
        call_id,
        name,
        arguments,
        call.type,
        given,
    )


# ---------------------------------------------------------------------------------------
# The fast path: the common chunk of one content or reasoning string, read without a tree.
#
#     HEAD   {"id":...,"object":...,"choices":[{"index":0,"delta":{"role":"assistant","content":"
#     STRING the string itself, read by json's own C scanner (strict, escapes decoded)
#     TAIL   "},"logprobs":null,"finish_reason":null}],"usage":null}
#
# It accepts only text that the full path accepts, with the same result: compact JSON (an
# optional single space after ":" and ","), known metadata keys spelt exactly, each of them
# ignored by the full path (a repeated one or ``"usage":null`` changes nothing), one
# choice, a delta with an optional role, one string field (content, reasoning_content or
# reasoning) and an optional ``"refusal":null``, and a string or null finish_reason.
# Anything else falls back to the full path.
#
# Within one stream, HEAD and TAIL repeat on every chunk: each distinct one is checked by
# its regex once, and the verdicts are kept (``_heads``, ``_tails``; bounded, and pure
# memos of the regexes, so decode_chunk stays a function of its input alone). The last
# head and tail of this shape are also kept, so that a chunk of the same stream is
# recognised by two slice compares instead of a search.

_CHARS = r'[^"\\\x00-\x1f]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*+)*+'
_SIMPLE = rf'(?:"{_CHARS}"|-?(?:0|[1-9][0-9]{{0,15}})|null|true|false)'
_META = r'"(?:id|object|created|model|system_fingerprint|service_tier|provider)"'
_FIELD = r'"(content|reasoning_content|reasoning)": ?"'
_DELTA_START = r'"delta": ?\{(?:"role": ?"(assistant)", ?)?+'
_HEAD = re.compile(
    rf'\{{(?:{_META}: ?{_SIMPLE}, ?)*+"choices": ?\[\{{"index": ?(0|[1-9][0-9]{{0,8}}), ?'
    rf"{_DELTA_START}{_FIELD}"
)
_FIND_FIELD = re.compile(_DELTA_START + _FIELD).search
_TAIL = re.compile(
    r'(?:, ?"refusal": ?null)?+\}(?:, ?"logprobs": ?null)?+'
    r'(?:, ?"finish_reason": ?(?:null|"([a-z_]*+)"))?+\}\]'
    rf'(?:, ?(?:{_META}: ?{_SIMPLE}|"usage": ?null))*+\}}'
)
_MEMO_SIZE = 256


# A head: (text, index, role, is_content, has_u); index -1 when the text is not this shape.
# A tail: (text, finish_reason or None, done, has_u, ok). has_u: the text holds a \u
# escape, and the full path then replaces lone surrogates in every string it returns.
_Head = tuple[str, int, str | None, bool, bool]
_Tail = tuple[str, str | None, bool, bool, bool]
_heads: dict[str, _Head] = {}
_tails: dict[str, _Tail] = {}


def _fast_decode(text: str) -> ChunkDelta | None:
    global _last_head, _last_tail
    head, index, role, is_content, has_u = _last_head
    start = len(head)
    if text[:start] != head:
        found = _FIND_FIELD(text)
        if found is None:
            return None
        start = found.end()
        key = text[:start]
        found_head = _heads.get(key) or _check_head(key)
        head, index, role, is_content, has_u = found_head
        if index < 0:
            return None
        _last_head = found_head  # only a head of this shape is ever the last one
    try:
        value, end = _scanstring(text, start)
    except ValueError:
        return None
    tail, reason, done, tail_has_u, ok = _last_tail
    if text[end:] != tail:
        key = text[end:]
        found_tail = _tails.get(key) or _check_tail(key)
        tail, reason, done, tail_has_u, ok = found_tail
        if not ok:
            return None
        _last_tail = found_tail
    # As the full path: a \\u escape anywhere in the text has lone surrogates replaced.
    # The value holds an escape only if it is shorter than its span.
    if has_u or tail_has_u or (len(value) != end - 1 - start and text.find("\\u", start, end) >= 0):
        value = _fix_surrogates(value)
    if is_content:
        return _new_delta(ChunkDelta, (value, "", (), reason, done, None, index, role, ()))
    return _new_delta(ChunkDelta, ("", value, (), reason, done, None, index, role, ()))


def _check_head(key: str) -> _Head:
    match = _HEAD.fullmatch(key)
    if match is None:
        head: _Head = (key, -1, None, False, False)
    else:
        is_content = match.group(3) == "content"
        head = (key, int(match.group(1)), match.group(2), is_content, "\\u" in key)
    if len(_heads) >= _MEMO_SIZE:
        _heads.clear()
    _heads[key] = head
    return head


def _check_tail(key: str) -> _Tail:
    match = _TAIL.fullmatch(key)
    reason = None if match is None else match.group(1)
    tail = (key, reason or None, bool(reason), "\\u" in key, match is not None)
    if len(_tails) >= _MEMO_SIZE:
        _tails.clear()
    _tails[key] = tail
    return tail


_last_head = _check_head('{"choices":[{"index":0,"delta":{"content":"')
_last_tail = _check_tail("}}]}")

# Measured by ``python -m benchmarks sse`` against the full path on the same chunks;
# tests/chunks pin the value, so that a change of mind needs a new measurement.
_FAST_PATH_ENABLED = True
