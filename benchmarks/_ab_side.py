"""One side of ``python -m benchmarks ab``: the formats benchmark's runs, one on each request.

``benchmarks/ab.py`` starts this as ``python -S -m benchmarks._ab_side SRC`` with
``PYTHONPATH`` set to one commit's ``src/`` (SRC) followed by the root of the checkout that
runs ``ab``. So ``streamcall`` is that commit's, while the measuring code (this file,
``benchmarks/formats.py`` and ``benchmarks/_util.py``) is the same for both sides. ``-S``
keeps the virtualenv's site-packages, and with it an editable install of some other
checkout, off the path; the core needs nothing beyond the standard library. The imported
``streamcall`` is checked against SRC before anything is measured.

It touches ``streamcall`` only through public names and ``streamcall.formats.registry``'s
``formats``, ``parser_class`` (for ``render``) and ``tool_parser``, so that it runs on
both sides of a redesign.

Protocol: one JSON object a line on stdout for each JSON request a line on stdin, so that
``ab`` can run the two sides in lockstep, one timed run on each in turn.

- first, unasked: ``{"streamcall": file}``;
- ``{"op": "list"}``: ``{"listed": [label, ...]}``, every format that renders its own wire
  syntax and the formats benchmark's extra rows (``VARIANTS``);
- ``{"op": "time", "label": l, "shape": "str"|"obj", "size": bytes}``: ``{"t": seconds,
  "chunks": n}``, the CPU time of one fresh parser fed that rendered call in 7-character
  chunks (``formats.stream_time``), and the number of chunks;
- ``{"op": "check", ...}`` (same keys): ``{"digest", "input", "ok"}``, one more untimed run
  fingerprinting the rendered text and the coalesced result (the text, and each call's
  name, arguments and completeness), and whether that is the call rendered.

A target that fails on this side (not registered, no renderer, an exception) answers
``{"error": reason}``. The input of the last target asked is kept until another is asked.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Render = Callable[[list[tuple[str, dict[str, Any]]]], str]
# fmt, pieces, tools, arguments rendered
Prepared = tuple[str, list[str], list[dict[str, Any]], dict[str, Any]]


def _check_import(src: str) -> str:
    import streamcall

    where = Path(streamcall.__file__).resolve()
    if not where.is_relative_to(Path(src).resolve()):
        raise SystemExit(f"_ab_side: streamcall was imported from {where}, not from {src}")
    return str(where)


def _targets() -> dict[str, tuple[str, Render]]:
    """Label -> (format, renderer), in the formats benchmark's order."""
    from benchmarks.formats import VARIANTS, renderable
    from streamcall.formats.registry import formats, parser_class

    out: dict[str, tuple[str, Render]] = {}
    for name in renderable(formats()):
        out[name] = (name, parser_class(name).render)
        for label, fmt, render in VARIANTS.get(name, []):
            out[label] = (fmt, render)
    return out


def _resolve(label: str, known: dict[str, tuple[str, Render]]) -> tuple[str, Render]:
    from benchmarks.formats import VARIANTS
    from streamcall.formats.registry import formats, parser_class

    if label in known:
        return known[label]
    variants = {v[0]: v for vs in VARIANTS.values() for v in vs}
    name = variants[label][1] if label in variants else label
    if name not in formats():
        raise LookupError(f"format {name!r} is not registered on this side")
    try:
        parser_class(name).render([("f", {})])
    except NotImplementedError:
        raise LookupError(f"format {name!r} has no renderer on this side") from None
    raise LookupError(f"{label!r} is not a target of the formats benchmark on this side")


_ARGS: dict[tuple[str, int], tuple[dict[str, Any], list[dict[str, Any]]]] = {}


def _args(shape: str, size: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The formats benchmark's arguments and tools, built once per process (``object_args``
    takes most of a second at 64 KB, longer than measuring a format)."""
    from benchmarks.formats import object_args, string_args, tools_for

    if (shape, size) not in _ARGS:
        args = (string_args if shape == "str" else object_args)(size)
        _ARGS[shape, size] = (args, tools_for(args))
    return _ARGS[shape, size]


def _prepare(label: str, shape: str, size: int, known: dict[str, tuple[str, Render]]) -> Prepared:
    from benchmarks.formats import chunks_of

    fmt, render = _resolve(label, known)
    args, tools = _args(shape, size)
    return fmt, chunks_of(render([("f", args)])), tools, args


def _fingerprint(fmt: str, pieces: list[str], tools: list[dict[str, Any]], args: Any) -> Any:
    from streamcall import Text, ToolCallEnd, ToolCallStart
    from streamcall.formats.registry import tool_parser

    p = tool_parser(fmt, tools=tools)
    events = []
    for piece in pieces:
        events.extend(p.feed(piece))
    events.extend(p.finish())
    text = "".join(e.text for e in events if isinstance(e, Text))
    names = {e.index: e.name for e in events if isinstance(e, ToolCallStart)}
    calls = [
        (names.get(e.index), e.arguments, e.incomplete)
        for e in events
        if isinstance(e, ToolCallEnd)
    ]
    digest = hashlib.sha256(json.dumps([text, calls]).encode()).hexdigest()[:16]
    rendered = hashlib.sha256("".join(pieces).encode()).hexdigest()[:16]
    ok = len(calls) == 1 and calls[0][0] == "f" and not calls[0][2]
    if ok:
        try:
            ok = json.loads(calls[0][1]) == args
        except ValueError:
            ok = False
    return {"digest": digest, "input": rendered, "ok": ok}


def serve(src: str) -> None:
    from benchmarks.formats import stream_time

    out = sys.stdout

    def reply(obj: dict[str, Any]) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    reply({"streamcall": _check_import(src)})
    known = _targets()
    key: tuple[str, str, int] | None = None
    prepared: Prepared | None = None
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "list":
            reply({"listed": list(known)})
            continue
        try:
            asked = (request["label"], request["shape"], request["size"])
            if asked != key or prepared is None:
                key, prepared = asked, None
                prepared = _prepare(*asked, known)
            fmt, pieces, tools, args = prepared
            if request["op"] == "time":
                reply({"t": stream_time(fmt, pieces, tools, repeat=1), "chunks": len(pieces)})
            else:
                reply(_fingerprint(fmt, pieces, tools, args))
        except LookupError as exc:
            reply({"error": str(exc.args[0])})
        except Exception as exc:
            reply({"error": f"{type(exc).__name__}: {exc}"})


if __name__ == "__main__":
    serve(sys.argv[1])
