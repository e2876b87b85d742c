"""One side of ``python -m benchmarks ab``: the formats benchmark, measured in this process.

``benchmarks/ab.py`` runs this as ``python -S -m benchmarks._ab_side REQUEST`` with
``PYTHONPATH`` set to one commit's ``src/`` followed by the root of the checkout that runs
``ab``. So ``streamcall`` is that commit's, while the measuring code (this file,
``benchmarks/formats.py`` and ``benchmarks/_util.py``) is the same for both sides. ``-S``
keeps the virtualenv's site-packages, and with it an editable install of some other
checkout, off the path; the core needs nothing beyond the standard library. The imported
``streamcall`` is checked against the requested ``src/`` before anything is measured.

It touches ``streamcall`` only through public names and ``streamcall.formats.registry``'s
``formats``, ``parser_class`` (for ``render``) and ``tool_parser``, so that it runs on
both sides of a redesign.

REQUEST is JSON: ``{"src": path, "targets": [label, ...] | null, "sizes": [bytes, ...],
"repeat": n}``. With ``targets`` null it lists this side's targets (every format that
renders its own wire syntax, and the formats benchmark's extra rows) and measures nothing.
Otherwise, for each target and each argument shape (``str``, ``obj``) and size, it times
``repeat`` fresh parsers fed the rendered call in 7-character chunks (CPU time, best of
``repeat``) and, at the largest size, feeds it once more, untimed, to fingerprint the
rendered text and the coalesced result (the text, and each call's name, arguments and
completeness), and to check the result against the arguments rendered. A target that fails on this side (not registered, no
renderer, an exception) gets its reason instead of figures.

It prints one JSON object: ``{"streamcall": file, "targets": [...]}`` (or ``{"listed":
[...]}``).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Render = Callable[[list[tuple[str, dict[str, Any]]]], str]
SHAPES = ("str", "obj")


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


_ARGS: dict[tuple[str, int], tuple[dict[str, Any], list[dict[str, Any]]]] = {}


def _args(shape: str, size: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The formats benchmark's arguments and tools, built once per process (``object_args``
    takes most of a second at 64 KB, longer than measuring a format)."""
    from benchmarks.formats import object_args, string_args, tools_for

    if (shape, size) not in _ARGS:
        args = (string_args if shape == "str" else object_args)(size)
        _ARGS[shape, size] = (args, tools_for(args))
    return _ARGS[shape, size]


def _measure(fmt: str, render: Render, sizes: list[int], repeat: int) -> dict[str, Any]:
    from benchmarks.formats import chunks_of, stream_time

    shapes: dict[str, Any] = {}
    for shape in SHAPES:
        times = []
        chunks = 0
        check: Any = None
        for size in sizes:
            args, tools = _args(shape, size)
            pieces = chunks_of(render([("f", args)]))
            times.append(stream_time(fmt, pieces, tools, repeat=repeat))
            chunks = len(pieces)
            if size == sizes[-1]:
                check = _fingerprint(fmt, pieces, tools, args)
        shapes[shape] = {"times": times, "chunks": chunks, **check}
    return shapes


def main(request: dict[str, Any]) -> dict[str, Any]:
    where = _check_import(request["src"])
    known = _targets()
    if request["targets"] is None:
        return {"streamcall": where, "listed": list(known)}
    out = []
    for label in request["targets"]:
        row: dict[str, Any] = {"label": label}
        try:
            fmt, render = _resolve(label, known)
            row["shapes"] = _measure(fmt, render, request["sizes"], request["repeat"])
        except LookupError as exc:
            row["error"] = str(exc.args[0])
        except Exception as exc:
            row["error"] = f"{type(exc).__name__}: {exc}"
        out.append(row)
    return {"streamcall": where, "targets": out}


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
