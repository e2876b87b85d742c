"""The fuzz campaign's contract, bounded and seeded, for every format in CI.

The same checks as ``fuzz/`` (``testing.check_contract``: never raises, every chunking
equals one-shot, arguments load as a JSON object, ids unique and non-empty, released text
verbatim and in order, nothing lost), on text made of each format's own markup: pieces of
calls it renders, cut and spliced, with JSON punctuation, escapes, blanks and stray
characters between them. Under the ``ci`` profile the examples are bounded (the profile's
``max_examples``) and derandomized, so a run is the same every time; ``HYPOTHESIS_PROFILE=
fuzz`` explores at random, for longer.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall.formats.registry import formats, parser_class
from streamcall.reasoning import reasoning_formats, reasoning_spec
from streamcall.testing import function_tools
from support import check_contract

_SEEDED = settings(derandomize=os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci")

CALLS: list[list[tuple[str, dict[str, Any]]]] = [
    [("f", {})],
    [("get_weather", {"city": "Oslo", "days": 3})],
    [
        (
            "f",
            {"s": 'a "q"\\n\tb', "b": -1.5e3, "c": True, "n": None, "d": [1, [2]], "e": {"k": "é"}},
        )
    ],
    [("f", {"a": 1}), ("g", {"s": "x"})],
]
TOOLS = function_tools(
    ("f", "g", "get_weather"),
    {
        "a": {"type": "integer"},
        "b": {"type": "number"},
        "c": {"type": "boolean"},
        "d": {"type": "array"},
        "e": {"type": "object"},
        "s": {"type": "string"},
        "city": {"type": "string"},
        "days": {"type": "integer"},
    },
)
# Markup tokens, JSON punctuation, blanks and words: what a rendered call is cut into.
_TOKEN = re.compile(
    r"<\|[^|<>]{0,40}\|>|<[^<>]{0,40}>|\[[A-Z_]+\]|\s+|\\.|[{}\[\]\":,=()']|[^<>{}\[\]\":,=()'\s\\]+"
)
_STRAY = [
    "",
    " ",
    "\n",
    "\\",
    '"',
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "<",
    ">",
    "/",
    "é",
    "\\u00",
    "1.",
    "e",
    "x",
]


def _pieces(texts: list[str]) -> list[str]:
    out = dict.fromkeys(_STRAY)
    for text in texts:
        out.update(dict.fromkeys(_TOKEN.findall(text)))
    return list(out)


def _texts(wholes: list[str]) -> st.SearchStrategy[str]:
    """Spliced markup: pieces of the format's own text, or one of its wholes with a
    stretch cut out and pieces put in its place."""
    pieces = _pieces(wholes)
    spliced = st.lists(st.sampled_from(pieces), max_size=14).map("".join)
    if not wholes:
        return spliced

    @st.composite
    def mutated(draw: st.DrawFn) -> str:
        whole = draw(st.sampled_from(wholes))
        i = draw(st.integers(0, len(whole)))
        j = draw(st.integers(i, min(len(whole), i + 12)))
        return whole[:i] + draw(spliced) + whole[j:]

    return spliced | mutated()


def _rendered(fmt: str) -> list[str]:
    cls = parser_class(fmt)
    out = []
    for calls in CALLS:
        try:
            rendered = cls.render(calls)
        except NotImplementedError:
            return []
        out += [rendered, "Sure. " + rendered + "\n\nDone."]
    return out


_TOOL_TEXTS = {fmt: _texts(_rendered(fmt)) for fmt in formats()}


@pytest.mark.parametrize("fmt", formats())
@_SEEDED
@given(data=st.data(), typed=st.booleans())
def test_tool_format_contract(fmt: str, data: st.DataObject, typed: bool) -> None:
    text = data.draw(_TOOL_TEXTS[fmt], label="text")
    check_contract(fmt, text, data, TOOLS if typed else None)


def _reasoning_wholes(name: str) -> list[str]:
    spec = reasoning_spec(name)
    if spec is None:
        starts = ["<|channel|>analysis<|message|>", "<|start|>assistant<|channel|>final<|message|>"]
        ends = ["<|end|>", "<|return|>", "<|call|>"]
        extra: tuple[str, ...] = ("<think>", "</think>")
    else:
        starts, ends = list(spec.start), list(spec.end)
        spans = tuple(m for span in spec.pass_through for m in span)
        extra = (*spec.implicit_end, *spec.text_drop, *spec.drop, *spans, spec.start_prefix)
    wholes = [f"{s}Think. {e}\n\nAnswer." for s in starts for e in ends]
    wholes += [f"Pre{e}text{x}more{s}again" for s in starts for e in ends for x in extra]
    return wholes


_REASONING_TEXTS = {name: _texts(_reasoning_wholes(name)) for name in reasoning_formats()}


@pytest.mark.parametrize("name", reasoning_formats())
@_SEEDED
@given(data=st.data(), opened=st.sampled_from([None, True, False]))
def test_reasoning_format_contract(name: str, data: st.DataObject, opened: bool | None) -> None:
    text = data.draw(_REASONING_TEXTS[name], label="text")
    check_contract(name, text, data, reasoning=True, prompt_opened=opened)
