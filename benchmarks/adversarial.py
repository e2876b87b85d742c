"""Runs of one character inside markup: every format's time stays linear in the run.

A rendered call (two calls, text around them) gets a run of ``n`` blanks, newlines or
letters at each markup position (after every character that is not a letter or digit);
the text is fed in 7-character chunks, the best of 3 runs. Every reasoning format gets the
same in a sample of its own markup (reasoning, then text after its end or implicit end),
with a fourth fill, ``<``, which may begin a marker at every position of the run. Reported
per format and character: the worst time over the positions at each ``n`` and the growth
exponent from the smallest to the largest ``n`` (1.0 is linear). A header pattern that
backtracks, or a step that re-reads its held tail on every chunk, shows here as an
exponent near 2 or 3 (in a MiniMax-M2 header, 3,000 blanks fed a character at a time once
took 21 s; they now take milliseconds).

Absolute times on shared machines are noise; the exponents are the figures.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from benchmarks._util import growth_exponent, table
from benchmarks.formats import renderable
from streamcall.formats.registry import formats, parser_class, tool_parser
from streamcall.reasoning import reasoning_formats, reasoning_parser, reasoning_spec
from streamcall.text.loop import FeedLoop

SIZES = (1000, 4000, 16000)
FILLS = {"blank": " ", "newline": "\n", "letter": "a"}
REASONING_FILLS = {**FILLS, "lt": "<"}
ROUNDS = 3

#: the reasoning formats with a parser of their own (no row of the marker table)
_OWN_SAMPLES = {
    "identity": "<think>plan a, b.</think>answer.",
    "minimax_m2_append_think": "plan a, b.</think>answer.",
    "openai_gptoss": "<|channel|>analysis<|message|>plan a, b.<|end|><|start|>assistant"
    "<|channel|>final<|message|>answer.<|return|>",
}
_MUSE_SAMPLE = (
    "<|start|>assistant to=self<|message|>plan a, b.<|eom|><|start|>assistant to=user"
    "<|message|>answer.<|eot|><|start|>assistant to=functions.f<|message|>{}<|eom|>"
)

#: what follows an implicit end where the format confirms a call by more than a brace
_CALLS = {
    "ling3": "f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>",
    "solar_open2": "f\n<|tool_call:end|>",
}


def reasoning_sample(name: str) -> str:
    """Reasoning, then text: ended by the format's implicit end (a call after it) where
    it has one, else by its end marker, and a second opening (reasoning where the format
    reopens, text where it does not)."""
    spec = reasoning_spec(name)
    if spec is None:
        return _OWN_SAMPLES.get(name, _MUSE_SAMPLE)
    start, end = spec.start[0] if spec.start else "", spec.end[0]
    if spec.implicit_end:
        call = _CALLS.get(name, '{"name": "f"}')
        return f"{start}plan a, b. {spec.implicit_end[0]}{call} {end}answer."
    return f"{start}plan a, b.{end}answer. {start}x{end}"


def _time(fmt: str, text: str, make: Callable[[str], FeedLoop] = tool_parser) -> float:
    """The best of ``ROUNDS`` runs (a backtracking pattern is slow in every run; a pause
    of the machine's is not)."""
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)]
    best = float("inf")
    for _ in range(ROUNDS):
        parser = make(fmt)
        start = time.perf_counter()
        for piece in pieces:
            parser.feed(piece)
        parser.finish()
        best = min(best, time.perf_counter() - start)
    return best


def worst_times(fmt: str, fill: str, reasoning: bool = False) -> list[float]:
    make: Callable[[str], FeedLoop] = reasoning_parser if reasoning else tool_parser
    if reasoning:
        base = reasoning_sample(fmt)
    else:
        base = parser_class(fmt).render([("get_x", {"a": 1, "s": "v w"}), ("g", {})])
    cuts = [i for i in range(1, len(base)) if not base[i - 1].isalnum()]
    return [max(_time(fmt, base[:i] + fill * n + base[i:], make) for i in cuts) for n in SIZES]


def _table(names: list[str], fills: dict[str, str], reasoning: bool) -> tuple[float, str]:
    rows = []
    worst = (0.0, "")
    for fmt in names:
        row: list[object] = [fmt]
        for label, fill in fills.items():
            times = worst_times(fmt, fill, reasoning)
            exponent = growth_exponent(SIZES, times)
            row += [times[-1] * 1e3, exponent]
            if exponent > worst[0]:
                worst = (exponent, f"{fmt}, {label}")
        rows.append(row)
    head = ["reasoning format" if reasoning else "format"]
    for label in fills:
        head += [f"{label} 16K ms", f"{label} exp"]
    print(table(head, rows))
    return worst


def main(argv: list[str] | None = None) -> None:
    """``python -m benchmarks adversarial [NAME ...]``: tool formats by name, reasoning
    formats as ``reasoning:NAME``; no name runs every format of both kinds."""
    names = argv or [*formats(), *(f"reasoning:{name}" for name in reasoning_formats())]
    tools = renderable([n for n in names if not n.startswith("reasoning:")])
    thinking = [n.partition(":")[2] for n in names if n.startswith("reasoning:")]
    worst = max(
        _table(tools, FILLS, False) if tools else (0.0, ""),
        _table(thinking, REASONING_FILLS, True) if thinking else (0.0, ""),
    )
    print(f"worst growth exponent: {worst[0]:.2f} ({worst[1]})")
