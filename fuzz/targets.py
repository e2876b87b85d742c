"""The fuzz targets: one per layer, and one per tool-call and per reasoning format.

Each target is a function of one input (bytes) that returns normally when the contract
holds and raises when it does not. Text targets decode the input as UTF-8 (bad bytes become
U+FFFD, as the byte layer does) and feed the text whole, one character at a time, in
7-character pieces and at cuts drawn from a generator seeded with the input's CRC, so that
a failing input reproduces exactly.

- ``sse``: ``SSEDecoder`` on the raw bytes: never raises, every chunking gives the same
  events, ``retry`` and last event id, with the block fast path on and off.
- ``chunk``: ``decode_chunk`` gives a ``ChunkDelta`` or raises ``ChunkError``, nothing else;
  bytes and text agree on valid UTF-8, and the fast path agrees with the full path.
- ``partial``: ``repair_json`` always loads, ``parse_partial_json`` equals
  ``json.loads(repair_json(x))``, valid JSON comes back unchanged, repair is idempotent,
  ``PartialJSON`` in every chunking equals the one-shot value, the one-shot fast path
  equals the scanner, and ``call_view`` never raises.
- ``tool:NAME``: ``testing.check_contract`` for the format (never raises, every chunking
  equals one-shot, arguments load as a JSON object, ids unique and non-empty, released text
  verbatim and in order, nothing lost), and ``parse_tool_calls`` agrees; half the inputs
  (by CRC) are parsed with a typed tool schema.
- ``reasoning:NAME``: the same contract for the reasoning parser, with the prompt opened,
  closed or left to the format's default (by CRC).
"""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamcall
from streamcall import testing
from streamcall.formats.registry import parse_tool_calls, parser_class, tool_parser
from streamcall.reasoning import reasoning_formats, reasoning_parser

Target = Callable[[bytes], None]

#: A tool schema for half of the inputs: typed parameters for the names the seeds use.
TOOLS: list[dict[str, Any]] = testing.function_tools(
    ("f", "get_weather", "search"),
    {
        "a": {"type": "integer"},
        "b": {"type": "number"},
        "c": {"type": "boolean"},
        "d": {"type": "array", "items": {"type": "integer"}},
        "e": {"type": "object"},
        "s": {"type": "string"},
        "n": {"type": "null"},
        "x": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "city": {"type": "string"},
        "days": {"type": "integer"},
    },
)


def cuts_for(data: bytes, length: int) -> list[int]:
    """Cut points for a text of ``length``, drawn from the input's CRC (reproducible)."""
    if length < 2:
        return []
    rng = random.Random(zlib.crc32(data))
    return [rng.randrange(1, length) for _ in range(rng.randrange(1, min(40, length) + 1))]


def text_of(data: bytes) -> str:
    return data.decode("utf-8", "replace")


# -- byte and chunk layers -----------------------------------------------------------------


def _sse_run(pieces: list[bytes]) -> tuple[list[Any], int | None, str | None]:
    decoder = streamcall.SSEDecoder()
    events: list[Any] = []
    for piece in pieces:
        events.extend(decoder.feed(piece))
    events.extend(decoder.close())
    return [tuple(e) for e in events], decoder.retry, decoder.last_event_id


def sse_target(data: bytes) -> None:
    from streamcall.sse import decoder as module

    chunkings = [
        [data],
        [data[i : i + 1] for i in range(len(data))],
        [data[i : i + 7] for i in range(0, len(data), 7)],
        _byte_cuts(data),
    ]
    expected = _sse_run(chunkings[0])
    for pieces in chunkings[1:]:
        got = _sse_run(pieces)
        if got != expected:
            raise AssertionError(f"SSE chunking {pieces!r} differs: {got!r} != {expected!r}")
    saved = module._BLOCK_PATH_ENABLED
    module._BLOCK_PATH_ENABLED = False
    try:
        reference = _sse_run(chunkings[3])
    finally:
        module._BLOCK_PATH_ENABLED = saved
    if reference != expected:
        raise AssertionError(f"SSE block path differs from lines: {expected!r} != {reference!r}")
    for event in expected[0]:
        if not isinstance(event[1], str):
            raise AssertionError(f"SSE data is not text: {event!r}")


def _byte_cuts(data: bytes) -> list[bytes]:
    points = sorted({c for c in cuts_for(data, len(data)) if 0 < c < len(data)})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)] or [b""]


def _chunk_outcome(data: str | bytes) -> Any:
    try:
        delta = streamcall.decode_chunk(data)
    except streamcall.ChunkError as exc:
        if not str(exc):
            raise AssertionError("ChunkError without a message") from None
        return ("error",)
    if not isinstance(delta, streamcall.ChunkDelta):
        raise AssertionError(f"decode_chunk returned {type(delta).__name__}")
    return delta


def chunk_target(data: bytes) -> None:
    from streamcall.chunks import decode as module

    got = _chunk_outcome(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    as_text = _chunk_outcome(text)
    if not _same(as_text, got):
        raise AssertionError(f"decode_chunk(str) {as_text!r} != decode_chunk(bytes) {got!r}")
    fast = module._fast_decode(text)
    if fast is not None:
        try:
            full = module._full_decode(text)
        except streamcall.ChunkError:
            raise AssertionError(
                f"the fast path took {text!r}, which the full path rejects"
            ) from None
        if not _same(fast, full):
            raise AssertionError(
                f"decode_chunk fast path and full path differ: {fast!r} / {full!r}"
            )


# -- syntax layer --------------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    """Equality with NaN equal to itself and types compared (1 is not 1.0 or True)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def partial_target(data: bytes) -> None:
    from streamcall.partial import repair as module

    text = text_of(data)
    repaired = streamcall.repair_json(text)
    value = json.loads(repaired)
    parsed = streamcall.parse_partial_json(text)
    if not _same(parsed, value):
        raise AssertionError(f"parse_partial_json {parsed!r} != loads(repair_json) {value!r}")
    if streamcall.repair_json(repaired) != repaired:
        raise AssertionError(f"repair_json is not idempotent on {repaired!r}")
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):
        pass
    else:
        if repaired != text:
            raise AssertionError(f"valid JSON {text!r} came back changed: {repaired!r}")
        if not _same(whole, value):
            raise AssertionError("valid JSON parsed differently")
    for pieces in (
        testing.chunk_every(text, 1),
        testing.chunk_every(text, 7),
        testing.chunk_at(text, cuts_for(data, len(text))),
    ):
        pj = streamcall.PartialJSON()
        for piece in pieces:
            pj.feed(piece)
        if not _same(pj.value, value):
            raise AssertionError(f"PartialJSON over {pieces!r}: {pj.value!r} != {value!r}")
    saved = module._ONESHOT_FAST_ENABLED
    module._ONESHOT_FAST_ENABLED = not saved
    try:
        other_text = streamcall.repair_json(text)
        other_value = streamcall.parse_partial_json(text)
    finally:
        module._ONESHOT_FAST_ENABLED = saved
    if other_text != repaired or not _same(other_value, value):
        raise AssertionError(
            f"one-shot fast path and scanner differ: {repaired!r} / {other_text!r}"
        )
    view = streamcall.call_view(text)
    if view.status not in ("complete", "parsing", "invalid"):
        raise AssertionError(f"call_view status {view.status!r}")


# -- model-text layer ------------------------------------------------------------------------


def tool_target(name: str) -> Target:
    parser_class(name)  # fail early on an unknown name

    def one_input(data: bytes) -> None:
        text = text_of(data)
        tools = TOOLS if zlib.crc32(data) & 1 else None
        cuts = testing.chunk_at(text, cuts_for(data, len(text)))
        items = testing.check_contract(lambda: tool_parser(name, tools=tools), text, [cuts])
        parsed = parse_tool_calls(text, name, tools=tools)
        content = "".join(v for k, v in items if k == "text" and isinstance(v, str))
        calls = [(v.name, v.arguments) for k, v in items if isinstance(v, testing.Call)]
        if parsed.content != content or [(c.name, c.arguments) for c in parsed.tool_calls] != calls:
            raise AssertionError("parse_tool_calls differs from the streamed result")

    return one_input


def reasoning_target(name: str) -> Target:
    reasoning_parser(name)

    def one_input(data: bytes) -> None:
        text = text_of(data)
        crc = zlib.crc32(data)
        opened = (None, True, False)[(crc >> 1) % 3]
        source = None
        if name == "minimax_m2_append_think" and opened is not False and text:
            source = "<think>" + text
        cuts = testing.chunk_at(text, cuts_for(data, len(text)))
        testing.check_contract(
            lambda: reasoning_parser(name, prompt_opened=opened),
            text,
            [cuts],
            source=source,
        )

    return one_input


def target_names() -> list[str]:
    names = ["sse", "chunk", "partial"]
    names += [f"tool:{n}" for n in streamcall.formats()]
    names += [f"reasoning:{n}" for n in reasoning_formats()]
    return names


def get_target(name: str) -> Target:
    if name == "sse":
        return sse_target
    if name == "chunk":
        return chunk_target
    if name == "partial":
        return partial_target
    kind, _, fmt = name.partition(":")
    if kind == "tool":
        return tool_target(fmt)
    if kind == "reasoning":
        return reasoning_target(fmt)
    raise KeyError(f"unknown target {name!r}; known: {', '.join(target_names())}")


# -- failures ------------------------------------------------------------------------------

_DIGITS = re.compile(r"\d+")
_LABEL = re.compile(r"^(?:1-char|7-char|chunking \d+)\b")


def signature(exc: BaseException) -> str:
    """What kind of failure this is, without the input in it: the same bug found twice has
    one signature. A contract break is its message with the quoted text taken out; any
    other exception, its type and the innermost frame inside streamcall."""
    if isinstance(exc, AssertionError):
        first = str(exc).split("\n", 1)[0]
        plain = _LABEL.sub("chunked", first.removeprefix("whole: "))
        cut = min((i for i in (plain.find("'"), plain.find('"')) if i >= 0), default=len(plain))
        return _DIGITS.sub("_", plain[:cut]).strip()[:160]
    where = "?"
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if "streamcall" in code.co_filename:
            where = f"{Path(code.co_filename).name}:{tb.tb_lineno} {code.co_name}"
        tb = tb.tb_next
    return f"{type(exc).__name__} at {where}"


def failure_of(target: Target, data: bytes) -> tuple[str, str] | None:
    """(signature, message) of the input's failure, or None if the contract holds."""
    try:
        target(data)
    except Exception as exc:
        return signature(exc), f"{type(exc).__name__}: {exc}"
    return None
