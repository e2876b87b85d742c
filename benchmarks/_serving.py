"""What the serving benchmarks share (``vllm_serving``, ``sglang_serving``): the streamed
calls read back from OpenAI chunks, and a clock inside a parser class's methods."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

from benchmarks._util import growth_exponent
from benchmarks.formats import tools_for

__all__ = ["ParserClock", "growth_row", "interleaved_best", "size_row", "streamed_args"]


def streamed_args(chunks: list[dict[str, Any]]) -> list[Any]:
    """Each streamed call's arguments, joined from the OpenAI chunks and decoded."""
    args: dict[int, str] = {}
    for chunk in chunks:
        for choice in chunk["choices"]:
            for call in choice["delta"].get("tool_calls") or []:
                piece = (call.get("function") or {}).get("arguments") or ""
                args[call["index"]] = args.get(call["index"], "") + piece
    return [json.loads(a) for _, a in sorted(args.items())]


class ParserClock:
    """CPU time spent inside a parser class's ``methods`` (its per-delta and end-of-stream
    calls), patched in place; the two clock reads per call, well under a microsecond, are
    counted in."""

    def __init__(self, cls: type, methods: tuple[str, ...]) -> None:
        self.total = 0.0
        for name in methods:
            method = getattr(cls, name, None)
            if method is not None:
                setattr(cls, name, self._timed(method))

    def _timed(self, method: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return method(*args, **kwargs)
            finally:
                self.total += time.process_time() - start

        return timed


def size_row(
    label: str, per: int, peer: str, best: dict[str, float], inside: dict[str, float]
) -> list[object]:
    """One size's row: ``per`` steps (or deltas); µs per step for the whole request with no
    parser, streamcall's and the ``peer``'s, their ratio, then the same inside the parser."""
    us = {k: v / per * 1e6 for k, v in best.items()}
    us_in = {k: v / per * 1e6 for k, v in inside.items()}
    return [
        label, per, us["none"], us["streamcall"], us[peer], best[peer] / best["streamcall"],
        us_in["streamcall"], us_in[peer], inside[peer] / inside["streamcall"],
    ]  # fmt: skip


def growth_row(
    label: str, sizes: tuple[int, ...], peer: str, totals: dict[str, list[float]],
    inside: dict[str, list[float]],
) -> list[object]:  # fmt: skip
    """The growth exponents over ``sizes``, whole request and inside the parser."""
    return [
        f"{label}: growth exponent", "", "",
        growth_exponent(sizes, totals["streamcall"]), growth_exponent(sizes, totals[peer]), "",
        growth_exponent(sizes, inside["streamcall"]), growth_exponent(sizes, inside[peer]), "",
    ]  # fmt: skip


def interleaved_best(
    streams: dict[str, Callable[[dict[str, Any]], object]],
    clocks: dict[str, ParserClock],
    body: dict[str, Any],
    repeat: int,
) -> tuple[dict[str, float], dict[str, float]]:
    """The best CPU time of each stream over ``repeat`` interleaved rounds (one run of each
    per round), and the best time inside each clocked parser. ``none`` gets the same body
    with no tools (a server with no tool parser refuses tools)."""
    best = dict.fromkeys(streams, float("inf"))
    best_inside = dict.fromkeys(clocks, float("inf"))
    for _ in range(repeat):
        for name, run in streams.items():
            request = body if name != "none" else {**body, "tools": None}
            if name in clocks:
                clocks[name].total = 0.0
            start = time.process_time()
            run(request)
            best[name] = min(best[name], time.process_time() - start)
            if name in clocks:
                best_inside[name] = min(best_inside[name], clocks[name].total)
    return best, best_inside


#: one streamed request through a serving object: the chunks it sent
Stream = Callable[[Any, dict[str, Any]], Coroutine[Any, Any, list[dict[str, Any]]]]


def _run(stream: Stream, serving: Any, request: dict[str, Any]) -> None:
    asyncio.run(stream(serving, request))


def serving_rows(
    label: str,
    peer: str,
    sizes: tuple[int, ...],
    outputs: list[tuple[str, Any]],
    servings: dict[str, Any],
    clocks: dict[str, ParserClock],
    stream: Stream,
    load: Callable[[str], int],
    model: str,
    repeat: int,
) -> list[list[object]]:
    """A serving benchmark's rows for one format and shape: for each size, ``load`` the
    output text into the scripted engine (it returns the steps the output takes), check
    that streamcall and ``peer`` stream the arguments rendered (a wrong side is marked),
    time the servings interleaved, and add a size row; then the growth row."""
    totals: dict[str, list[float]] = {"streamcall": [], peer: []}
    inside: dict[str, list[float]] = {"streamcall": [], peer: []}
    rows: list[list[object]] = []
    for size, (text, args) in zip(sizes, outputs, strict=True):
        steps = load(text)
        body = {
            "model": model,
            "messages": [{"role": "user", "content": "go"}],
            "tools": tools_for(args),
            "stream": True,
        }
        wrong = [
            name
            for name in ("streamcall", peer)
            if streamed_args(asyncio.run(stream(servings[name], body))) != [args]
        ]
        runs: dict[str, Callable[[dict[str, Any]], object]] = {
            name: partial(_run, stream, serving) for name, serving in servings.items()
        }
        best, best_inside = interleaved_best(runs, clocks, body, repeat)
        for name in totals:
            totals[name].append(best[name])
            inside[name].append(best_inside[name])
        said = "".join(f" ({w}: wrong args)" for w in wrong)
        rows.append(size_row(f"{label} {size // 1024} KB{said}", steps, peer, best, best_inside))
    rows.append(growth_row(label, sizes, peer, totals, inside))
    return rows
