"""The header + JSON engine gives the same events with the text layer's fast reads on (the
default) and on their reference paths (``streamcall.text.fast.reference``), in any
chunking and cut anywhere: DeepSeek V3 / V3.1, Kimi K2, Mistral (both forms).

The fast reads it takes inside arguments: ``ArgsStreamer.push_until`` (a buffer in which
no stop marker can begin is given to the scanner without the marker search) and
``push_more``'s (whole small members at once, a cut member held whole, a run of string
text). A fast read is kept only if it measures faster (docs/performance.md); the
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
from streamcall.formats.deepseek import DeepSeekV3Parser, DeepSeekV31Parser
from streamcall.formats.engines import header_json as _headerjson
from streamcall.formats.engines.base import ToolParser
from streamcall.formats.kimi import KimiK2Parser
from streamcall.formats.mistral import MistralParser
from streamcall.text import fast
from support import pure_only

PARSERS: list[type[ToolParser]] = [DeepSeekV3Parser, DeepSeekV31Parser, KimiK2Parser, MistralParser]
ids = [cls.names[0] for cls in PARSERS]

# Each format's own markers, whole and cut, and their leads: inside arguments they cut the
# call, or look as if they might.
MARKERS = {
    "deepseek_v3": ["<｜tool▁call▁end｜>", "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"],
    "deepseek_v31": ["<｜tool▁call▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>"],
    "kimi_k2": ["<|tool_call_end|>", "<|tool_call_begin|>", "<|tool_calls_section_end|>"],
    "mistral": ["[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"],
}
LEADS = ["<", "<｜", "<｜tool▁call", "<|", "<|tool_call_e", "<|ca", "[", "[T", "[TOOL_CA", "｜"]
FRAGMENTS = [m for ms in MARKERS.values() for m in ms] + LEADS
PIECES = [*'ab "\\/\n\t\x01{}[]:,01', "tru", "\\u00e9", "東京", "😀", *FRAGMENTS]


def run(cls: type[ToolParser], pieces: list[str]) -> list[list[Event]]:
    """Every ``feed``'s events, then ``finish``'s, then a feed after the end."""
    parser = cls()
    runs = [parser.feed(piece) for piece in pieces]
    runs.append(parser.finish())
    runs.append(parser.feed("more"))
    return runs


def both(cls: type[ToolParser], pieces: list[str]) -> None:
    """The fast reads give the reference paths' result (coalesced: a cut member held whole
    leaves with the next chunk instead of in pieces)."""
    fast_runs = run(cls, pieces)
    with fast.reference():
        reference_runs = run(cls, pieces)
    assert fast_runs[-1] == reference_runs[-1] == []  # nothing after the end
    coalesced = testing.coalesce(e for r in fast_runs for e in r)
    assert coalesced == testing.coalesce(e for r in reference_runs for e in r), pieces


def calls(cls: type[ToolParser]) -> list[str]:
    """Texts that exercise the arguments: ends, cuts, breaks, markers inside strings."""
    fmt = cls.names[0]
    rich = {"a": [1, 2.5e3, True, None, "x\ty"], "b": {"c": "<d>[e] <|x"}, "n": -0}
    texts = ["Sure. " + cls.render([("f", rich), ("g", {})]) + " after"]
    texts += [cls.render([("f", {"s": "a" + m + "b", "t": 1})]) + "tail" for m in MARKERS[fmt]]
    many = {f"k{i}": [i, True, "v", None, -1.5, ""][i % 6] for i in range(14)}
    texts.append(cls.render([("f", many), ("g", {"k": 1, "s": "x"})]))  # the member read
    plain = cls.render([("f", {"a": 1, "b": "x\ny"})])
    texts += [
        plain.replace('"a": 1', '"a": 01'),  # a broken number: the JSON breaks
        plain.replace('"a": 1', '"a": tru'),
        plain.replace('"a": 1', '"a" 1'),
        plain.replace("\\n", "\n"),  # a raw control character: escaped
        plain.replace('"a": 1', '"a": 1<'),
        plain + plain,
    ]
    if cls is MistralParser:
        texts.append(MistralParser.render_pre_v11([("f", rich), ("g", {})]))
    return texts


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
def test_cut_at_every_position_and_ended_at_every_position(cls: type[ToolParser]) -> None:
    for text in calls(cls):
        for i in range(len(text) + 1):
            both(cls, [text[:i], text[i:]])  # one cut, anywhere
            both(cls, testing.chunk_every(text[:i], 7))  # the stream ends anywhere


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
def test_in_small_chunks(cls: type[ToolParser], size: int) -> None:
    for text in calls(cls):
        both(cls, testing.chunk_every(text, size))


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
@given(data=st.data(), cuts=st.lists(st.integers(1, 400), max_size=40))
def test_any_chunking(cls: type[ToolParser], data: st.DataObject, cuts: list[int]) -> None:
    text = data.draw(st.sampled_from(calls(cls)))
    if cuts and cuts[0] % 3 == 0:  # the stream may also end anywhere
        text = text[: cuts[0] % (len(text) + 1)]
    both(cls, testing.chunk_at(text, cuts))


text_values = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
scalars = st.integers(-(10**6), 10**6) | st.booleans() | st.none() | st.floats(-1e6, 1e6)
args = st.dictionaries(
    text_values,
    st.recursive(scalars | text_values, lambda inner: st.lists(inner, max_size=3), max_leaves=8),
    max_size=8,
)


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
@given(
    data=st.data(),
    first=args,
    second=args,
    junk=st.sampled_from(["", *PIECES]),
    cuts=st.lists(st.integers(1, 600), max_size=40),
)
def test_generated_calls_in_any_chunking(
    cls: type[ToolParser],
    data: st.DataObject,
    first: dict[str, Any],
    second: dict[str, Any],
    junk: str,
    cuts: list[int],
) -> None:
    """Arguments full of marker fragments; some text spliced in, the stream cut short."""
    text = "Hi " + cls.render([("f", first), ("g", second)]) + " bye"
    at = data.draw(st.integers(0, len(text)))
    text = text[:at] + junk + text[at:]
    if data.draw(st.booleans()):
        text = text[: data.draw(st.integers(0, len(text)))]
    both(cls, testing.chunk_at(text, cuts))


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
def test_generated_arguments_still_load(cls: type[ToolParser]) -> None:
    value = {"s": "<d> [e] <|x <｜y", "k": [1, {"x": None}], "t": "東京\n"}
    text = cls.render([("f", value)])
    for size in (1, 3, 7):
        items = testing.coalesce(testing.run(cls(), testing.chunk_every(text, size)))
        call = next(v for k, v in items if k == "call")
        assert json.loads(call.arguments) == value  # type: ignore[union-attr]


class Refuse:
    """Stands in for the marker search, which the fast read must not run."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the marker search ran ({name})")


@pure_only
@pytest.mark.parametrize("cls", PARSERS, ids=ids)
def test_the_fast_read_is_on_and_taken(
    cls: type[ToolParser], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It measured faster (docs/performance.md), so it is on by default: a chunk of
    arguments in which no stop marker can begin is read without the marker search; with
    the switch off the search runs."""
    assert fast.FAST is True
    parser = cls()
    text = cls.render([("f", {"k": "v" * 40})])
    parser.feed(text[: text.index('"v') + 3])
    assert parser._mode == _headerjson.ARGS  # type: ignore[attr-defined]
    stops = parser._stops  # type: ignore[attr-defined]
    assert stops.lead in ("<｜", "<|", "[T")  # every stop marker starts with it
    monkeypatch.setattr(stops, "finder", Refuse())  # (one per class: put back after)
    assert parser.feed("vvvvvvv") == [ToolCallArgs(0, "vvvvvvv")]
    with fast.reference(), pytest.raises(AssertionError, match="marker search ran"):
        parser.feed("vvvvvvv")
