"""The ``openai`` (Harmony) tool parser gives the same events with the text layer's fast
reads on (the default) and on their reference paths (``streamcall.text.fast.reference``),
in any chunking and cut anywhere.

The fast reads it takes: ``ArgsStreamer.push_until`` inside arguments and
``StopMarkers.find`` in bodies (a buffer without ``<|`` holds no Harmony token: no marker
search), and ``push_more``'s (whole small members at once, a cut member held whole, a run
of string text). A fast read is kept only if it measures faster (docs/performance.md); the
primitives have their own equivalence tests (tests/text/test_text_fast.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import Event, ToolCallArgs
from streamcall.formats import harmony
from streamcall.formats.harmony import HarmonyParser
from streamcall.framing import harmony as harmony_framing
from streamcall.text import fast
from support import pure_only

MARKERS = ["<|call|>", "<|end|>", "<|start|>", "<|channel|>", "<|message|>"]
LEADS = ["<", "<|", "<|ca", "<|st", "|", "｜"]
PIECES = [*'ab "\\/\n\t\x01{}[]:,01', "tru", "\\u00e9", "東京", "😀", *MARKERS, *LEADS]


def run(pieces: list[str]) -> list[list[Event]]:
    """Every ``feed``'s events, then ``finish``'s, then a feed after the end."""
    parser = HarmonyParser()
    runs = [parser.feed(piece) for piece in pieces]
    runs.append(parser.finish())
    runs.append(parser.feed("more"))
    return runs


def both(pieces: list[str]) -> None:
    fast_runs = run(pieces)
    with fast.reference():
        reference_runs = run(pieces)
    assert fast_runs[-1] == reference_runs[-1] == []
    coalesced = testing.coalesce(e for r in fast_runs for e in r)
    assert coalesced == testing.coalesce(e for r in reference_runs for e in r), pieces


def texts() -> list[str]:
    render = HarmonyParser.render
    rich = {"a": [1, 2.5e3, True, None, "x\ty"], "b": {"c": "<d>[e] <|x"}, "n": -0}
    out = [
        "<|channel|>analysis<|message|>Think < | <|x.<|end|>" + render([("f", rich), ("g", {})]),
        "<|start|>assistant<|channel|>final<|message|>Done <|return|> after",
    ]
    out += [render([("f", {"s": "a" + m + "b", "t": 1})]) + "tail" for m in MARKERS]
    many = {f"k{i}": [i, True, "v", None, -1.5, ""][i % 6] for i in range(14)}
    out.append(render([("f", many), ("g", {"k": 1, "s": "x"})]))  # the member read
    plain = render([("f", {"a": 1, "b": "x\ny"})])
    out += [
        plain.replace('"a": 1', '"a": 01'),  # a broken number: the JSON breaks
        plain.replace('"a": 1', '"a": tru'),
        plain.replace("\\n", "\n"),  # a raw control character: escaped
        plain.replace('"a": 1', '"a": 1<'),
        plain.replace("{", " foo {", 1),  # not a JSON body: text
        plain + plain,
    ]
    return out


def test_cut_at_every_position_and_ended_at_every_position() -> None:
    for text in texts():
        for i in range(len(text) + 1):
            both([text[:i], text[i:]])
            both(testing.chunk_every(text[:i], 7))


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
def test_in_small_chunks(size: int) -> None:
    for text in texts():
        both(testing.chunk_every(text, size))


text_values = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
scalars = st.integers(-(10**6), 10**6) | st.booleans() | st.none() | st.floats(-1e6, 1e6)
args = st.dictionaries(
    text_values,
    st.recursive(scalars | text_values, lambda inner: st.lists(inner, max_size=3), max_leaves=8),
    max_size=8,
)


@given(
    data=st.data(),
    first=args,
    second=args,
    junk=st.sampled_from(["", *PIECES]),
    cuts=st.lists(st.integers(1, 600), max_size=40),
)
def test_generated_calls_in_any_chunking(
    data: st.DataObject, first: dict[str, Any], second: dict[str, Any], junk: str, cuts: list[int]
) -> None:
    text = "Hi " + HarmonyParser.render([("f", first), ("g", second)]) + " bye"
    at = data.draw(st.integers(0, len(text)))
    text = text[:at] + junk + text[at:]
    if data.draw(st.booleans()):
        text = text[: data.draw(st.integers(0, len(text)))]
    both(testing.chunk_at(text, cuts))


def test_generated_arguments_still_load() -> None:
    value = {"s": "<d> [e] <|x <｜y", "k": [1, {"x": None}], "t": "東京\n"}
    text = HarmonyParser.render([("f", value)])
    for size in (1, 3, 7):
        items = testing.coalesce(testing.run(HarmonyParser(), testing.chunk_every(text, size)))
        call = next(v for k, v in items if k == "call")
        assert json.loads(call.arguments) == value  # type: ignore[union-attr]


class Refuse:
    """Stands in for the marker search, which the fast read must not run."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the marker search ran ({name})")


@pure_only
def test_the_fast_read_is_on_and_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """It measured faster (docs/performance.md), so it is on by default: a chunk of
    arguments without ``<|`` is read without the token search; with the switch off the
    search runs."""
    assert fast.FAST is True
    assert harmony_framing.BODY_ENDS.lead == "<|"  # every Harmony token starts with it
    parser = HarmonyParser()
    text = HarmonyParser.render([("f", {"k": "v" * 40})])
    parser.feed(text[: text.index('"v') + 3])
    assert parser._mode == harmony.ARGS
    monkeypatch.setattr(harmony_framing.BODY_ENDS, "finder", Refuse())
    assert parser.feed("vvvvvvv") == [ToolCallArgs(0, "vvvvvvv")]
    with fast.reference(), pytest.raises(AssertionError, match="marker search ran"):
        parser.feed("vvvvvvv")
