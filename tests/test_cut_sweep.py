"""A deterministic sweep of the cuts that coverage-guided fuzzing reaches slowly.

Most chunking bugs the campaign (``fuzz/``) found share one shape: something a parser holds
at the end of a chunk (blanks after a call, a marker's first characters) is handled
differently from the same text read whole, and it shows only when a chunk ends right there
and the text goes on in a particular way. The fuzzer needs hours to hit such a cut (the
last one, Step-3's blanks before ``<｜tool_call_end｜>``, took a whole campaign round); this
sweep tries every one of a small family at once, for every format:

- one insertion (blanks, junk, the start of a marker) at each markup boundary of two rendered
  calls, with the rest of the text after it or the stream ended there, cut once at every
  point from just before the insertion to 40 characters past it;
- blanks at one boundary and the stream ended at a later one, with junk after it or not,
  cut once around the blanks.

Each cut text must give the result the whole text gives. The reasoning formats get the same
sweep around their markers, for each way the prompt may leave reasoning (open, closed,
unknown). The random chunkings of ``test_contract_fuzz.py`` and the campaign cover the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import streamcall
from streamcall import reasoning_parser, testing, tool_parser
from streamcall.formats.registry import parser_class
from streamcall.reasoning import reasoning_formats, reasoning_spec
from support import renders

_INSERTS = (" ", "\n", "x", " x", "\n x", " <", "\t\n", " }", " >", "<")
_AFTER_MARKUP = frozenset(">|]})\n")
_BEFORE_MARKUP = frozenset("<[{(")
_REACH = 40  # characters past an insertion that a cut is tried at


def _first_cut_that_differs(
    make: Callable[[], Any], text: str, cuts: range
) -> tuple[int, list[testing.Item], list[testing.Item]] | None:
    whole = testing.coalesce(testing.run(make(), [text]))
    for cut in cuts:
        if 0 < cut < len(text):
            got = testing.coalesce(testing.run(make(), [text[:cut], text[cut:]]))
            if got != whole:
                return cut, whole, got
    return None


def _tool_cases(rendered: str) -> Iterator[tuple[str, range]]:
    n = len(rendered)
    bounds = [
        k
        for k in range(1, n + 1)
        if rendered[k - 1] in _AFTER_MARKUP or (k < n and rendered[k] in _BEFORE_MARKUP)
    ]
    for k in bounds:
        for insert in _INSERTS:
            cuts = range(k - 2, k + len(insert) + _REACH)
            yield rendered[:k] + insert + rendered[k:], cuts
            yield rendered[:k] + insert, cuts
    for i, k in enumerate(bounds):
        for end in bounds[i:]:
            for blanks in (" ", "\n"):
                for after in ("x", ""):
                    text = rendered[:k] + blanks + rendered[k:end] + after
                    yield text, range(k - 2, k + len(blanks) + 3)


@pytest.mark.parametrize("fmt", [n for n in streamcall.formats() if renders(n)])
def test_every_cut_near_a_markup_boundary_gives_the_whole_result(fmt: str) -> None:
    rendered = parser_class(fmt).render([("f", {"a": 1}), ("g", {"b": "x y"})])
    for text, cuts in _tool_cases(rendered):
        differs = _first_cut_that_differs(lambda: tool_parser(fmt), text, cuts)
        assert differs is None, (
            f"{fmt}: cut at {differs[0]} of {text!r}:\n whole {differs[1]}\n cut   {differs[2]}"
        )


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


def _reasoning_cases(name: str) -> Iterator[tuple[str, range]]:
    texts, markers = _reasoning_texts(name)
    for text in texts:
        bounds: set[int] = set()
        for marker in markers:
            at = text.find(marker)
            while at >= 0:
                bounds.update((at, at + len(marker)))
                at = text.find(marker, at + 1)
        for k in sorted(bounds):
            for insert in (" ", "\n", "x", " x", "\n\n", "<", "</"):
                for variant in (text[:k] + insert + text[k:], text[:k] + insert):
                    yield variant, range(1, len(variant))


@pytest.mark.parametrize("name", reasoning_formats())
@pytest.mark.parametrize("opened", [None, True, False])
def test_every_cut_near_a_reasoning_marker_gives_the_whole_result(
    name: str, opened: bool | None
) -> None:
    for text, cuts in _reasoning_cases(name):
        differs = _first_cut_that_differs(
            lambda: reasoning_parser(name, prompt_opened=opened), text, cuts
        )
        assert differs is None, (
            f"{name} (prompt_opened={opened}): cut at {differs[0]} of {text!r}:\n"
            f" whole {differs[1]}\n cut   {differs[2]}"
        )
