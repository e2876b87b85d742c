"""The cut sweep: every cut near a markup boundary, tried deterministically.

    python -m fuzz.sweep --jobs 2                # the wide sweep, every format
    python -m fuzz.sweep --narrow 'tool:*'       # what CI runs (tests/test_cut_sweep.py)
    python -m fuzz.sweep reasoning:qwen3         # glob patterns pick targets

Most chunking bugs the campaign found share one shape: something a parser holds at the end
of a chunk (blanks after a call, a marker's first characters) is handled differently from
the same text read whole, and it shows only when a chunk ends right there and the text goes
on in a particular way. Coverage-guided fuzzing needs hours to hit such a cut; this sweep
tries a whole family of them at once:

- tool formats: two calls as the format's ``render`` writes them; at each markup boundary
  one insertion (blanks, junk, the start of a marker), with the rest of the text after it or
  the stream ended there, cut once at every point from just before the insertion to
  ``REACH`` characters past it; and blanks at one boundary with the stream ended at a later
  one, junk after it or not, cut once around the blanks;
- reasoning formats: the same insertions at each boundary of the format's markers, in a few
  texts, cut once anywhere, for each way the prompt may leave reasoning (open, closed,
  unknown).

Each cut text must coalesce (``testing.coalesce``) to what the whole text gives; a raise is
a difference too. ``--narrow`` is that set (what the test suite runs). The default, wide,
adds other calls (no arguments, nested values, a multi-line string, a string holding
markup), tails that open something (``<``, ``{``, ``"``, `` x``), every pair of cuts near an
insertion, and half markers as insertions for the reasoning formats. The exit status is 1
when any cut differs, 2 when no target matches.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import fnmatch
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from streamcall import formats, reasoning_parser, testing, tool_parser
from streamcall.formats.registry import parser_class
from streamcall.reasoning import reasoning_formats, reasoning_spec

Cuts = tuple[int, ...]
Case = tuple[str, Iterable[Cuts]]
Outcome = list[testing.Item] | str  # coalesced items, or the exception raised

INSERTS = (" ", "\n", "x", " x", "\n x", " <", "\t\n", " }", " >", "<")
REASONING_INSERTS = (" ", "\n", "x", " x", "\n\n", "<", "</")
REACH = 40  # characters past an insertion that a cut is tried at
PAIR_REACH = 8  # the window, past an insertion, in which pairs of cuts are tried (wide)
NARROW_CALLS: tuple[tuple[str, dict[str, Any]], ...] = (("f", {"a": 1}), ("g", {"b": "x y"}))
WIDE_CALLS: tuple[tuple[tuple[str, dict[str, Any]], ...], ...] = (
    (("f", {}), ("g", {})),
    (("f", {"a": {"b": [1, "c"], "d": None}}), ("g", {"e": [True, 2.5]})),
    (("f", {"s": "line one\nline two\n"}),),
    (("f", {"s": "<a> b </a>"}), ("g", {"t": "{x}"})),
)
WIDE_TAILS = ("<", "{", '"', " x")
_AFTER_MARKUP = frozenset(">|]})\n")
_BEFORE_MARKUP = frozenset("<[{(")

_HARMONY = (
    "<|channel|>analysis<|message|>a b<|end|><|start|>assistant<|channel|>final<|message|>c d"
    "<|return|>",
    "<|channel|>analysis<|message|>a<|end|> <|start|>assistant<|channel|>commentary"
    " to=functions.f <|constrain|>json<|message|>{}<|call|>",
)
_MUSE = (
    "<|start|>assistant<|message|>a b<|eom|><|start|>assistant to=user<|message|>c d<|eot|>",
    "<|message|>r<|eot|> x <|start|>assistant to=f<|message|>{}<|eom|>",
)


@dataclass(frozen=True, slots=True)
class Difference:
    """A cut text whose result is not the whole text's."""

    target: str
    text: str
    cuts: Cuts
    whole: str
    got: str

    def __str__(self) -> str:
        return (
            f"{self.target}: cuts {list(self.cuts)} of {self.text!r}:\n"
            f"  whole {self.whole}\n  cut   {self.got}"
        )


def renders(fmt: str) -> bool:
    """Whether a tool-call format can render calls (``hf`` needs a template to)."""
    try:
        parser_class(fmt).render([("f", {"a": 1})])
    except NotImplementedError:
        return False
    return True


def _outcome(make: Callable[[], Any], pieces: list[str]) -> Outcome:
    try:
        return testing.coalesce(testing.run(make(), pieces))
    except Exception as exc:  # a raise is a result that no whole text gives
        return f"raised {type(exc).__name__}: {exc}"


def first_difference(
    target: str, make: Callable[[], Any], text: str, cut_sets: Iterable[Cuts]
) -> Difference | None:
    """The first set of cuts whose result differs from ``text`` read whole (cuts outside
    the text are skipped), or None."""
    whole = _outcome(make, [text])
    if isinstance(whole, str):
        return Difference(target, text, (), whole, whole)
    for cuts in cut_sets:
        if not cuts or not all(0 < c < len(text) for c in cuts):
            continue
        got = _outcome(make, testing.chunk_at(text, cuts))
        if got != whole:
            return Difference(target, text, cuts, repr(whole), repr(got))
    return None


def _singles(start: int, stop: int) -> list[Cuts]:
    return [(c,) for c in range(start, stop)]


def _pairs(start: int, stop: int) -> list[Cuts]:
    return [(a, b) for a in range(start, stop) for b in range(a + 1, stop)]


def _bounds(rendered: str) -> list[int]:
    n = len(rendered)
    return [
        k
        for k in range(1, n + 1)
        if rendered[k - 1] in _AFTER_MARKUP or (k < n and rendered[k] in _BEFORE_MARKUP)
    ]


def tool_cases(rendered: str, *, wide: bool = False) -> Iterator[Case]:
    """The texts swept around ``rendered``'s markup boundaries, each with its cut sets."""
    bounds = _bounds(rendered)
    for k in bounds:
        for insert in INSERTS:
            cuts = _singles(k - 2, k + len(insert) + REACH)
            if wide:
                cuts += _pairs(k - 2, k + len(insert) + PAIR_REACH)
            yield rendered[:k] + insert + rendered[k:], cuts
            yield rendered[:k] + insert, cuts
    tails = ("x", "", *WIDE_TAILS) if wide else ("x", "")
    for i, k in enumerate(bounds):
        for end in bounds[i:]:
            for blanks in (" ", "\n"):
                for after in tails:
                    text = rendered[:k] + blanks + rendered[k:end] + after
                    cuts = _singles(k - 2, k + len(blanks) + 3)
                    if wide and after:
                        cuts += [(c, end + len(blanks)) for c in range(k - 2, k + len(blanks) + 3)]
                    yield text, cuts


def tool_differences(fmt: str, *, wide: bool = False, limit: int = 1) -> list[Difference]:
    """Up to ``limit`` cut texts of the tool-call format ``fmt`` that differ."""
    call_lists = (NARROW_CALLS, *WIDE_CALLS) if wide else (NARROW_CALLS,)
    found: list[Difference] = []
    for calls in call_lists:
        rendered = parser_class(fmt).render(list(calls))
        for text, cuts in tool_cases(rendered, wide=wide):
            diff = first_difference(f"tool:{fmt}", lambda: tool_parser(fmt), text, cuts)
            if diff is not None:
                found.append(diff)
                if len(found) >= limit:
                    return found
    return found


def _reasoning_texts(name: str) -> tuple[list[str], list[str]]:
    """Texts around a format's markers, and the markers (their boundaries are swept)."""
    spec = reasoning_spec(name)
    if spec is None:  # the framed formats, and those with no markers of their own
        markers = list(testing.markup_of(reasoning_parser(name))) or ["<think>", "</think>"]
        framed: tuple[str, ...] = ()
        if "<|channel|>" in markers:
            framed = _HARMONY
        elif "<|start|>" in markers:
            framed = _MUSE
        return [*framed, "<think>a b</think>c d", "a b</think>c d"], markers
    markers = [m for m in (*spec.start, *spec.end, *spec.implicit_end, *spec.text_drop) if m]
    texts = [
        text
        for start in spec.start[:2]
        for end in spec.end[:2]
        for text in (
            f"{start}a b{end}c d",
            f"p {start}\na\n{end}\n\nc<tool_call>{{}}</tool_call>",
            f"a{end}b{start}c{end}d",
        )
    ]
    return texts, markers


def reasoning_cases(name: str, *, wide: bool = False) -> Iterator[Case]:
    """The texts swept around the reasoning format ``name``'s markers, with their cuts."""
    texts, markers = _reasoning_texts(name)
    inserts = list(REASONING_INSERTS)
    if wide:
        inserts += sorted({m[: max(1, len(m) // 2)] for m in markers} - set(inserts))
    for text in texts:
        bounds: set[int] = set()
        for marker in markers:
            at = text.find(marker)
            while at >= 0:
                bounds.update((at, at + len(marker)))
                at = text.find(marker, at + 1)
        for k in sorted(bounds):
            for insert in inserts:
                for variant in (text[:k] + insert + text[k:], text[:k] + insert):
                    cuts = _singles(1, len(variant))
                    if wide:
                        cuts += _pairs(max(1, k - 2), k + len(insert) + PAIR_REACH)
                    yield variant, cuts


def reasoning_differences(
    name: str, opened: bool | None, *, wide: bool = False, limit: int = 1
) -> list[Difference]:
    """Up to ``limit`` cut texts of the reasoning format ``name`` that differ."""
    found: list[Difference] = []
    target = f"reasoning:{name} (prompt_opened={opened})"
    for text, cuts in reasoning_cases(name, wide=wide):
        diff = first_difference(
            target, lambda: reasoning_parser(name, prompt_opened=opened), text, cuts
        )
        if diff is not None:
            found.append(diff)
            if len(found) >= limit:
                break
    return found


def targets() -> list[str]:
    """The sweep's targets: ``tool:NAME`` for every format that renders, and
    ``reasoning:NAME`` for every reasoning format."""
    tools = [f"tool:{n}" for n in formats() if renders(n)]
    return tools + [f"reasoning:{n}" for n in reasoning_formats()]


def sweep(target: str, *, wide: bool = False, limit: int = 1) -> list[Difference]:
    """Every difference (up to ``limit`` per parser) that the sweep finds in ``target``."""
    kind, _, name = target.partition(":")
    if kind == "tool":
        return tool_differences(name, wide=wide, limit=limit)
    if kind == "reasoning":
        return [
            d
            for opened in (None, True, False)
            for d in reasoning_differences(name, opened, wide=wide, limit=limit)
        ]
    raise ValueError(f"not a sweep target: {target!r} (tool:NAME or reasoning:NAME)")


def _timed(target: str, wide: bool, limit: int) -> tuple[str, list[Difference], float]:
    started = time.perf_counter()
    found = sweep(target, wide=wide, limit=limit)
    return target, found, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fuzz.sweep", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("patterns", nargs="*", help="glob patterns of targets (default: all)")
    parser.add_argument("--narrow", action="store_true", help="only what the test suite runs")
    parser.add_argument("--jobs", type=int, default=1, help="targets swept at once")
    parser.add_argument("--limit", type=int, default=1, help="differences shown per parser")
    args = parser.parse_args(argv)
    names = [
        t
        for t in targets()
        if not args.patterns or any(fnmatch.fnmatch(t, p) for p in args.patterns)
    ]
    if not names:
        print(f"no target matches {args.patterns}", file=sys.stderr)
        return 2
    wide = not args.narrow
    differing = 0
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(max(1, args.jobs)) as pool:
        jobs = [pool.submit(_timed, t, wide, args.limit) for t in names]
        for job in concurrent.futures.as_completed(jobs):
            target, found, seconds = job.result()
            print(f"{target:34} {'DIFFERS' if found else 'same':7} {seconds:6.1f} s", flush=True)
            for diff in found:
                print(f"  {diff}", flush=True)
            differing += bool(found)
    print(
        f"{len(names)} targets ({'wide' if wide else 'narrow'}), {differing} with cuts that"
        f" differ, {time.perf_counter() - started:.0f} s"
    )
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
