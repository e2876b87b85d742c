"""One big input in one ``feed``: ``python -m benchmarks oneshot [NAME ...] [--option ...]``.

The streaming benchmarks feed small chunks; this one checks that a parser stays linear
when a whole response arrives at once (``parse_tool_calls``, the proxy's non-streaming
path, ``streamcall parse`` on a file). For every registered format that renders its own
wire syntax, 1, 2 and 5 MB of model text are parsed in a single ``feed`` and in 4 KB
chunks, in these shapes:

- ``calls``: many blocks of two calls (the format's ``render``) with a line of text
  between them (a format whose calls must be the whole output gets one block of all the
  calls instead);
- ``block``: one block holding every call (one ``render`` of them all);
- ``long``: one call whose one string argument is the whole size;
- ``broken``: calls cut off two thirds of the way through, each followed by a line of
  text, so that every one degrades (text, or an incomplete call) and the parser starts
  over: the paths that release held markup.

Reasoning formats get their reasoning block followed by content (HTML-ish lines, so that
``<`` is everywhere), and a few ``output_parser`` pairs get reasoning followed by calls.

Reported per row: the one-feed time at each size, the growth exponent of the one-feed and
of the chunked times from 1 to 5 MB (1.0 is linear, 2.0 quadratic), and the ratio of the
one-feed to the chunked time at 5 MB. Targets: every exponent <= 1.1, the ratio <= 1.5.
Each row also checks that the parse found every call it rendered; a row that does not
says so (``calls`` column) rather than being dropped.

Options: ``--shape calls,block,long,broken,reasoning,output`` (default all), ``--sizes
1,2,5`` (MB), ``--repeat N`` (best of at least N rounds, default 3, and of as many as fit
in about 0.3 s, up to 9; rounds interleaved over sizes and both ways). A row over a bar is
measured again with 9 rounds and marked ``*``. The last row, ``floor``, is one ``str.find``
and one copy of the text: the machine's own exponent for touching 1 to 5 MB. Times are CPU
time (``process_time``); the exponents of the chunked runs, linear by construction, show
how much of a deviation is the machine's noise.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from benchmarks._util import best_of, growth_exponent, table
from benchmarks.formats import renderable
from streamcall.events import Event, ToolCallEnd
from streamcall.formats.registry import formats, parser_class, tool_parser
from streamcall.output import output_parser
from streamcall.reasoning import reasoning_formats, reasoning_parser, reasoning_spec
from streamcall.testing import function_tools

MB = 1_000_000
CHUNK = 4096
LINE = '<div class="row">Ünïcödé 東京 "quoted" \\ path <b>x</b> a < b</div>\n'
SHAPES = ("calls", "block", "long", "broken", "reasoning", "output")
# (reasoning format, tool format) pairs for the output_parser rows.
OUTPUT_PAIRS = (
    ("qwen3", "hermes"),
    ("qwen3", "qwen3_coder"),
    ("deepseek_r1", "deepseek_v3"),
    ("kimi_k2", "kimi_k2"),
    ("gemma4", "gemma4"),
    ("openai_gptoss", "openai"),
    ("muse", "muse"),
)

Make = Callable[[], Any]  # a fresh parser with feed/finish


def call_args(i: int) -> dict[str, Any]:
    return {
        "city": f'Paris 東京 "{i}" <b>',
        "n": i,
        "ok": i % 2 == 0,
        "tags": ["a", "b", i],
        "opts": {"unit": "c", "depth": None},
    }


TOOLS = function_tools(
    ("get_weather", "lookup"),
    {
        "city": {"type": "string"},
        "n": {"type": "integer"},
        "ok": {"type": "boolean"},
        "tags": {"type": "array"},
        "opts": {"type": "object"},
        "data": {"type": "string"},
    },
)


def calls_text(fmt: str, size: int) -> tuple[str, int]:
    """Blocks of two calls with text between, up to ``size`` characters; (text, calls)."""
    cls = parser_class(fmt)
    if getattr(cls, "WHOLE_OUTPUT", False):
        return block_text(fmt, size)
    parts: list[str] = []
    total = 0
    i = 0
    while total < size:
        block = cls.render([("get_weather", call_args(i)), ("lookup", call_args(i + 1))])
        gap = f"Now checking item {i}: a < b and {{x}}.\n"
        parts.append(block)
        parts.append(gap)
        total += len(block) + len(gap)
        i += 2
    return "".join(parts), i


def block_text(fmt: str, size: int) -> tuple[str, int]:
    """One block of every call, about ``size`` characters; (text, calls)."""
    cls = parser_class(fmt)
    one = len(cls.render([("get_weather", call_args(0)), ("lookup", call_args(1))])) / 2
    n = max(1, int(size / one))
    return cls.render([("get_weather" if i % 2 else "lookup", call_args(i)) for i in range(n)]), n


def long_text(fmt: str, size: int) -> tuple[str, int]:
    """One call whose string argument is about ``size`` characters; (text, calls)."""
    body = (LINE * (size // len(LINE) + 1))[:size]
    return parser_class(fmt).render([("lookup", {"data": body})]), 1


def broken_text(fmt: str, size: int) -> tuple[str, int]:
    """Calls cut two thirds of the way through, each followed by text; (text, 0): no call
    is expected to be complete."""
    cls = parser_class(fmt)
    parts: list[str] = []
    total = 0
    i = 0
    while total < size:
        call = cls.render([("get_weather", call_args(i))])
        piece = call[: len(call) * 2 // 3] + f"\nThat went wrong ({i}); retrying.\n"
        parts.append(piece)
        total += len(piece)
        i += 1
    return "".join(parts), 0


def content(size: int) -> str:
    return (LINE * (size // len(LINE) + 1))[:size]


def reasoning_text(name: str, size: int) -> str:
    half = content(size // 2)
    if name == "openai_gptoss":
        return (
            f"<|channel|>analysis<|message|>{half}<|end|>"
            f"<|start|>assistant<|channel|>final<|message|>{half}<|return|>"
        )
    if name in ("muse", "musespark1x", "muse_glimmer"):
        return f" to=self<|message|>{half}<|eom|><|start|>assistant to=user<|message|>{half}<|eot|>"
    spec = reasoning_spec(name)
    if spec is None:  # identity, append-think: all text
        return content(size)
    start = "" if spec.opened else spec.start[0]
    tail = half
    if spec.text_drop:
        # the dropped markers every few lines, so that their search is on the hot path
        tail = "".join(
            line + (spec.text_drop[0] if n % 8 == 0 else "")
            for n, line in enumerate(half.splitlines(keepends=True))
        )
    return f"{start}{half}{spec.end[0]}{tail}"


def output_text(reasoning: str, tools: str, size: int) -> tuple[str, int]:
    calls, n = calls_text(tools, size // 2)
    if reasoning == "openai_gptoss":
        head = f"<|channel|>analysis<|message|>{content(size // 2)}<|end|>"
        return head + calls, n
    if reasoning == "muse":
        return f" to=self<|message|>{content(size // 2)}<|eom|>{calls}", n
    spec = reasoning_spec(reasoning)
    assert spec is not None
    start = "" if spec.opened else spec.start[0]
    return f"{start}{content(size // 2)}{spec.end[0]}{calls}", n


def run(make: Make, pieces: list[str]) -> list[Event]:
    p = make()
    out: list[Event] = []
    for piece in pieces:
        out.extend(p.feed(piece))
    out.extend(p.finish())
    return out


def _go(make: Make, pieces: list[str]) -> Callable[[], None]:
    def go() -> None:
        p = make()
        feed = p.feed
        for piece in pieces:
            feed(piece)
        p.finish()

    return go


def _timings(
    make: Make, texts: list[tuple[str, int]], repeat: int
) -> tuple[list[float], list[float]]:
    """Best CPU time per size, one feed and chunked, over at least ``repeat`` rounds and as
    many as fit in about 0.3 s per measurement (up to 9). The rounds are interleaved (every
    size, both ways, then again), so the machine's load falls on all of them alike."""
    runs = []
    for text, _ in texts:
        pieces = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]
        runs.append((_go(make, [text]), _go(make, pieces)))
    ones = [best_of(one, repeat=1, clock=time.process_time) for one, _ in runs]
    chunked = [best_of(ch, repeat=1, clock=time.process_time) for _, ch in runs]
    rounds = max(repeat - 1, min(8, int(0.3 / max(max(ones + chunked), 1e-6))))
    for _ in range(rounds):
        for i, (one, ch) in enumerate(runs):
            ones[i] = min(ones[i], best_of(one, repeat=1, clock=time.process_time))
            chunked[i] = min(chunked[i], best_of(ch, repeat=1, clock=time.process_time))
    return ones, chunked


def measure(
    label: str, make: Make, texts: list[tuple[str, int]], repeat: int, check_calls: bool
) -> list[object]:
    """One row. A row over a bar (exponent > 1.1, one feed > 1.5x chunked) is measured again
    with 9 rounds, and the second measurement is the one shown (its label marked ``*``): a
    shared machine's noise flags rows at random, a real cost shows again."""
    found = "-"
    sizes = [len(t) for t, _ in texts]
    ones, chunked = _timings(make, texts, repeat)
    exp = max(growth_exponent(sizes, ones), growth_exponent(sizes, chunked))
    if exp > 1.1 or ones[-1] / chunked[-1] > 1.5:
        ones, chunked = _timings(make, texts, max(repeat, 9))
        label += " *"
    if check_calls:
        text, n = texts[0]
        got = sum(isinstance(e, ToolCallEnd) and not e.incomplete for e in run(make, [text]))
        found = "ok" if got == n else f"{got}/{n}"
    ratio = ones[-1] / chunked[-1]
    print(f"  measured {label}", file=sys.stderr)
    return [
        label,
        *(t * 1e3 for t in ones),
        growth_exponent(sizes, ones),
        chunked[-1] * 1e3,
        growth_exponent(sizes, chunked),
        ratio,
        found,
    ]


def floor_row(sizes: list[int], repeat: int) -> list[object]:
    """The machine's own floor: one ``str.find`` over the text and one copy of it, the least
    any parser does with one big input. Its exponent is the memory hierarchy's (a 5 MB text
    no longer fits the cache that a 1 MB one does), not an algorithm's."""
    texts = [(LINE * (s // len(LINE) + 1))[:s] for s in sizes]

    def make() -> Any:
        return _Floor()

    return measure("floor: find + copy", make, [(t, 0) for t in texts], repeat, False)


class _Floor:
    def feed(self, text: str) -> list[Event]:
        text.find("\x00")
        text[1:]
        return []

    def finish(self) -> list[Event]:
        return []


def parse_args(argv: list[str]) -> tuple[list[str], tuple[str, ...], list[float], int]:
    names: list[str] = []
    shapes: tuple[str, ...] = SHAPES
    sizes = [1.0, 2.0, 5.0]
    repeat = 3
    it = iter(argv)
    for arg in it:
        if arg == "--shape":
            shapes = tuple(next(it).split(","))
        elif arg == "--sizes":
            sizes = [float(s) for s in next(it).split(",")]
        elif arg == "--repeat":
            repeat = int(next(it))
        elif arg in ("-h", "--help"):
            print(__doc__)
            raise SystemExit(0)
        elif arg.startswith("-"):
            raise SystemExit(f"oneshot: unknown option {arg!r} (see --help)")
        else:
            names.append(arg)
    return names, shapes, sizes, repeat


def main(argv: list[str] | None = None) -> None:
    names, shapes, sizes_mb, repeat = parse_args(argv or [])
    sizes = [int(s * MB) for s in sizes_mb]
    tool_names = renderable(names or formats())
    mb = "/".join(f"{s:g}" for s in sizes_mb)
    headers = [
        "row",
        *(f"1 feed {s:g}MB ms" for s in sizes_mb),
        "1-feed exp",
        f"{CHUNK // 1024}K-chunks {sizes_mb[-1]:g}MB ms",
        "chunked exp",
        "1feed/chunked",
        "calls",
    ]
    print(f"one big input: {mb} MB in one feed and in {CHUNK}-char chunks (CPU time)")
    rows: list[list[object]] = []
    builders: dict[str, Callable[[str, int], tuple[str, int]]] = {
        "calls": calls_text,
        "block": block_text,
        "long": long_text,
        "broken": broken_text,
    }
    for shape in shapes:
        if shape in builders:
            for name in tool_names:

                def make(name: str = name) -> Any:
                    return tool_parser(name, tools=TOOLS)

                texts = [builders[shape](name, s) for s in sizes]
                rows.append(measure(f"{name} {shape}", make, texts, repeat, shape != "broken"))
        elif shape == "reasoning":
            for rname in names or reasoning_formats():
                if rname not in reasoning_formats():
                    continue

                def make_r(rname: str = rname) -> Any:
                    return reasoning_parser(rname)

                texts = [(reasoning_text(rname, s), 0) for s in sizes]
                rows.append(measure(f"reasoning {rname}", make_r, texts, repeat, False))
        elif shape == "output":
            for rname, tname in OUTPUT_PAIRS:
                if names and tname not in names and rname not in names:
                    continue

                def make_o(rname: str = rname, tname: str = tname) -> Any:
                    return output_parser(tools=TOOLS, tool_format=tname, reasoning_format=rname)

                texts = [output_text(rname, tname, s) for s in sizes]
                rows.append(measure(f"output {rname}+{tname}", make_o, texts, repeat, True))
        else:
            print(f"unknown shape {shape!r}; known: {', '.join(SHAPES)}", file=sys.stderr)
    if not rows:
        return
    rows.append(floor_row(sizes, repeat))
    print(table(headers, rows))
    rows.pop()
    exps = [(max(float(r[len(sizes) + 1]), float(r[len(sizes) + 3])), r[0]) for r in rows]  # type: ignore[arg-type]
    ratios = [(float(r[len(sizes) + 4]), r[0]) for r in rows]  # type: ignore[arg-type]
    worst_exp, worst_ratio = max(exps), max(ratios)
    print(
        f"worst exponent: {worst_exp[0]:.2f} ({worst_exp[1]}), target <= 1.1; "
        f"worst 1-feed/chunked: {worst_ratio[0]:.2f} ({worst_ratio[1]}), target <= 1.5"
    )
    over = [f"{label} {e:.2f}" for e, label in exps if e > 1.1]
    slow = [f"{label} {r:.2f}" for r, label in ratios if r > 1.5]
    print("exponent over 1.1: " + (", ".join(over) if over else "none"))
    print("1 feed over 1.5x chunked: " + (", ".join(slow) if slow else "none"))
    missed = [f"{r[0]} {r[-1]}" for r in rows if r[-1] not in ("ok", "-")]
    if missed:
        print("rows whose parse did not find every rendered call: " + ", ".join(missed))


if __name__ == "__main__":
    main(sys.argv[1:])
