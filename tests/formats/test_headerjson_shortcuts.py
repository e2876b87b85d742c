"""The header + JSON engine's feed shortcut, and Harmony's, give what the general loop gives
(a fast path is kept only if it measures faster, docs/performance.md, and is proved equal
to the path it shortcuts).

The shortcut: in ARGS, a buffer in which no stop marker (no Harmony token) can start, whole
or cut, goes straight to the argument scanner. Here it is switched off by feeding through
``FeedLoop.feed`` (the general loop), and the two parsers are fed the same chunks. Their
events must be equal feed by feed, not only once coalesced.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall._feedloop import FeedLoop
from streamcall.events import Event, ToolCallArgs
from streamcall.formats import _headerjson, harmony
from streamcall.formats._base import ToolParser
from streamcall.formats.deepseek import DeepSeekV3Parser, DeepSeekV31Parser
from streamcall.formats.harmony import HarmonyParser
from streamcall.formats.kimi import KimiK2Parser
from streamcall.formats.mistral import MistralParser
from streamcall.text.fast import reference

PARSERS: list[type[ToolParser]] = [
    DeepSeekV3Parser,
    DeepSeekV31Parser,
    KimiK2Parser,
    MistralParser,
    HarmonyParser,
]
ids = [cls.names[0] for cls in PARSERS]

# Each format's own markers, whole and cut, and their leads: inside arguments they cut the
# call, or look as if they might.
MARKERS = {
    "deepseek_v3": ["<｜tool▁call▁end｜>", "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"],
    "deepseek_v31": ["<｜tool▁call▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>"],
    "kimi_k2": ["<|tool_call_end|>", "<|tool_call_begin|>", "<|tool_calls_section_end|>"],
    "mistral": ["[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"],
    "openai": ["<|call|>", "<|end|>", "<|start|>", "<|channel|>", "<|message|>"],
}
LEADS = ["<", "<｜", "<｜tool▁call", "<|", "<|tool_call_e", "<|ca", "[", "[T", "[TOOL_CA", "｜"]
FRAGMENTS = [m for ms in MARKERS.values() for m in ms] + LEADS
PIECES = [*'ab "\\/\n\t\x01{}[]:,01', "tru", "\\u00e9", "東京", "😀", *FRAGMENTS]


def feeds(parser: ToolParser, pieces: list[str], general: bool) -> list[list[Event]]:
    """Every ``feed``'s events, then ``finish``'s, then a feed after the end."""
    feed = (lambda piece: FeedLoop.feed(parser, piece)) if general else parser.feed
    runs = [feed(piece) for piece in pieces]
    runs.append(parser.finish())
    runs.append(feed("more"))
    return runs


def both(cls: type[ToolParser], pieces: list[str]) -> None:
    """Feed by feed the shortcut gives the general loop's events; with the member read
    (``ArgsStreamer.push_more``, which holds a cut member whole) the same once coalesced."""
    with reference():  # no member read on either side: equal feed by feed
        fast = feeds(cls(), pieces, general=False)
        general = feeds(cls(), pieces, general=True)
    assert fast == general, pieces
    members = testing.coalesce(e for run in feeds(cls(), pieces, general=False) for e in run)
    assert members == testing.coalesce(e for run in general for e in run), pieces


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


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
def test_the_shortcut_is_on(cls: type[ToolParser], monkeypatch: pytest.MonkeyPatch) -> None:
    """It measured faster (docs/performance.md), so a test pins it on: a chunk of arguments
    that holds no marker never reaches the general loop."""
    parser = cls()
    text = cls.render([("f", {"k": "v" * 40})])
    parser.feed(text[: text.index('"v') + 3])
    args_mode = harmony._ARGS if cls is HarmonyParser else _headerjson._ARGS
    assert parser._mode == args_mode  # type: ignore[attr-defined]

    def general(*_: object) -> int:
        raise AssertionError("the general loop was taken")

    monkeypatch.setattr(parser, "_step", general)
    assert parser.feed("vvvvvvv") == [ToolCallArgs(0, "vvvvvvv")]


def test_the_leads_the_shortcuts_test_for() -> None:
    assert all(m.startswith(harmony._TOKEN_LEAD) for m in harmony._BODY_MARKERS)
    assert harmony._TOKEN_LEAD.startswith(harmony._TOKEN_FIRST)
    for cls in PARSERS:
        if cls is not HarmonyParser:
            parser = cls()
            assert parser._stop_lead in ("<｜", "<|", "[T")  # type: ignore[attr-defined]
            assert parser._stop_first == parser._stop_lead[0]  # type: ignore[attr-defined]
