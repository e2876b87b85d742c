"""Timing helpers shared by the benchmarks: best-of-N timing, growth exponents, tables."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence


def best_of(
    fn: Callable[[], object],
    repeat: int = 5,
    number: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Best time in seconds of ``number`` calls of ``fn``, over ``repeat`` rounds.

    ``clock=time.process_time`` measures CPU time, which a shared machine's other load
    disturbs far less than wall time.
    """
    best = math.inf
    for _ in range(repeat):
        start = clock()
        for _ in range(number):
            fn()
        best = min(best, clock() - start)
    return best / number


def growth_exponent(sizes: Sequence[float], times: Sequence[float]) -> float:
    """Slope of log(time) against log(size), least squares: 1.0 is linear, 2.0 quadratic."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(t) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    num = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    den = sum((x - mx) ** 2 for x in xs)
    return num / den if den else math.nan


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain-text table, columns right-aligned except the first."""
    cells = [[str(h) for h in headers], *[[_fmt(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for n, row in enumerate(cells):
        lines.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2f}"
    return str(value)
