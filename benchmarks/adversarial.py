"""Runs of one character inside markup: every format's time stays linear in the run.

A rendered call (two calls, text around them) gets a run of ``n`` blanks, newlines or
letters at each markup position (after every character that is not a letter or digit);
the text is fed in 7-character chunks. Reported per format and character: the worst time
over the positions at each ``n`` and the growth exponent from the smallest to the largest
``n`` (1.0 is linear). A header pattern that backtracks, or a step that re-reads its held
tail on every chunk, shows here as an exponent near 2 or 3 (in a MiniMax-M2 header, 3,000
blanks fed a character at a time once took 21 s; they now take milliseconds).

Absolute times on shared machines are noise; the exponents are the figures.
"""

from __future__ import annotations

import time

from benchmarks._util import growth_exponent, table
from benchmarks.formats import renderable
from streamcall.formats.registry import formats, parser_class, tool_parser

SIZES = (1000, 4000, 16000)
FILLS = {"blank": " ", "newline": "\n", "letter": "a"}


def _time(fmt: str, text: str) -> float:
    parser = tool_parser(fmt)
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)]
    start = time.perf_counter()
    for piece in pieces:
        parser.feed(piece)
    parser.finish()
    return time.perf_counter() - start


def worst_times(fmt: str, fill: str) -> list[float]:
    base = parser_class(fmt).render([("get_x", {"a": 1, "s": "v w"}), ("g", {})])
    cuts = [i for i in range(1, len(base)) if not base[i - 1].isalnum()]
    return [max(_time(fmt, base[:i] + fill * n + base[i:]) for i in cuts) for n in SIZES]


def main(argv: list[str] | None = None) -> None:
    names = argv or formats()
    rows = []
    worst = (0.0, "")
    for fmt in renderable(names):
        row: list[object] = [fmt]
        for label, fill in FILLS.items():
            times = worst_times(fmt, fill)
            exponent = growth_exponent(SIZES, times)
            row += [times[-1] * 1e3, exponent]
            if exponent > worst[0]:
                worst = (exponent, f"{fmt}, {label}")
        rows.append(row)
    head = ["format"]
    for label in FILLS:
        head += [f"{label} 16K ms", f"{label} exp"]
    print(table(head, rows))
    print(f"worst growth exponent: {worst[0]:.2f} ({worst[1]})")
