"""The Gemma 4 engine gives the same events with the text layer's fast reads on (the
default) and on their reference paths (``streamcall.text.fast.reference``), in any
chunking, cut anywhere and ended anywhere: gemma4 and functiongemma.

The fast reads it takes inside arguments: ``BareMembers.read`` where a key must come (a
whole common member, a plain key with a bare scalar or a short string and its ',', by one
regex; a member cut by the end of the chunk held whole, at most 64 characters), whose
reference path is the KEY, VALUE, SCALAR, STRING and AFTER steps token by token; and, in
the STRING step, ``StopMarkers.find``'s (a buffer in which no quote token can begin is
taken without the marker search). A fast read is kept only if it measures faster
(docs/performance.md); the primitives have their own tests (tests/text/test_text_bare.py,
tests/text/test_text_fast.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import Event, ToolCallArgs
from streamcall.formats import gemma4
from streamcall.formats.functiongemma import FunctionGemmaParser
from streamcall.formats.gemma4 import GemmaFourParser, gemma_value
from streamcall.text import fast
from support import pure_only

PARSERS = [GemmaFourParser, FunctionGemmaParser]
ids = [cls.names[0] for cls in PARSERS]

TEXTS = [
    "<|tool_call>call:f{a:1,b:01,c:-5,d:1.50,e:1e5,f:True,g:None,h:nil,i:abc,j:x-y.z}<tool_call|>",
    '<|tool_call>call:f{a:<|"|>x "q" \\ y<|"|>,b:<|"|>has <b>tags</b><|"|>,c:<|"|><|"|>}<tool_call|>',
    "<|tool_call>call:f{a :1, b: 2 ,c:3,}<tool_call|>tail",
    "<|tool_call>call:f{ключ:1,_k.v-w:2,k2:[1,2,{x:3}],k3:{y:true,},k4:[]}<tool_call|>",
    "<|tool_call>call:f{a:1,b:tru",
    "<|tool_call>call:f{a:1 b:2}<tool_call|>",
    "<|tool_call>call:f{a:12<tool_call|>after",
    "<|tool_call>call:f{a:1,,b:2}<tool_call|>",
    '<|tool_call>call:f{<|"|>quoted key<|"|>:1,k:<|"|>v<|"|>}<tool_call|>',
    "<|tool_call>call:f{" + ",".join(f"key_{i}:{i}" for i in range(40)) + "}<tool_call|>",
    # a long string with what looks like a cut quote token, the end marker, an emoji
    '<|tool_call>call:f{s:<|"|>'
    + 'ab < <| <|" <|"| <tool_call|> 😀 "q" \\ ' * 6
    + '<|"|>}<tool_call|>',
    '<|tool_call>call:f{s:<|"|>' + "long string cut at the end of the stream <|" * 3,
    # two calls, text between and after, a missing opening quote, a value left empty
    'Hi <|tool_call>call:f{q:weather in Tokyo<|"|>,n:,m:[]}<tool_call|> and '
    "<|tool_call>call:g{}<tool_call|> bye",
    "<|tool_call>call:f{k:1}  junk",
    '<|tool_call>call:f{a:{b:[1,[2,{c:<|"|>d<|"|>}]]}}<tool_call|>',
    # keys around the member read's bound (511) and past the held one (1024)
    "<|tool_call>call:f{" + "k" * 511 + ":1," + "q" * 512 + ":2," + "z" * 1030 + ":3}<tool_call|>",
]


def as_cls(cls: type[GemmaFourParser], text: str) -> str:
    return (
        text.replace("<|tool_call>", cls.START)
        .replace("<tool_call|>", cls.END)
        .replace('<|"|>', cls.QUOTE)
    )


def run(cls: type[GemmaFourParser], pieces: list[str]) -> list[list[Event]]:
    """Every ``feed``'s events, then ``finish``'s, then a feed after the end."""
    parser = cls()
    runs = [parser.feed(piece) for piece in pieces]
    runs.append(parser.finish())
    runs.append(parser.feed("more"))
    return runs


def both(cls: type[GemmaFourParser], pieces: list[str]) -> None:
    """The fast reads give the reference paths' result (coalesced: a cut member held whole
    leaves with the next chunk instead of in pieces)."""
    fast_runs = run(cls, pieces)
    with fast.reference():
        reference_runs = run(cls, pieces)
    assert fast_runs[-1] == reference_runs[-1] == []  # nothing after the end
    for events in fast_runs[:-2] + reference_runs[:-2]:  # one ToolCallArgs per call per chunk
        indexes = [e.index for e in events if isinstance(e, ToolCallArgs)]
        assert len(indexes) == len(set(indexes)), events
    coalesced = testing.coalesce(e for r in fast_runs for e in r)
    assert coalesced == testing.coalesce(e for r in reference_runs for e in r), pieces


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
@pytest.mark.parametrize("text", TEXTS)
@given(cuts=st.lists(st.integers(1, 300), max_size=40))
def test_fast_reads_equal_the_reference_paths(
    cls: type[GemmaFourParser], text: str, cuts: list[int]
) -> None:
    both(cls, testing.chunk_at(as_cls(cls, text), cuts))


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
@pytest.mark.parametrize("text", TEXTS)
def test_fast_reads_equal_the_reference_paths_in_small_chunks(
    cls: type[GemmaFourParser], text: str
) -> None:
    text = as_cls(cls, text)
    for size in (1, 2, 3, 7):
        both(cls, testing.chunk_every(text, size))


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
@pytest.mark.parametrize("text", TEXTS)
def test_cut_at_every_position_and_ended_at_every_position(
    cls: type[GemmaFourParser], text: str
) -> None:
    text = as_cls(cls, text)
    for i in range(len(text) + 1):
        both(cls, [text[:i], text[i:]])  # one cut, anywhere
        both(cls, testing.chunk_every(text[:i], 7))  # the stream ends anywhere


scalars = (
    st.integers(-(10**6), 10**6)
    | st.booleans()
    | st.none()
    | st.from_regex(r"[a-zA-Z0-9_ .<>\"'-]{0,12}", fullmatch=True)
)
args = st.dictionaries(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,6}", fullmatch=True),
    st.recursive(scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=6),
    max_size=8,
)


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
@given(data=st.data(), value=args)
def test_fast_reads_equal_the_reference_paths_on_generated_calls(
    cls: type[GemmaFourParser], data: st.DataObject, value: dict[str, Any]
) -> None:
    text = f"{cls.START}call:f{gemma_value(value, cls.QUOTE)}{cls.END}"
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text))), max_size=20))
    if data.draw(st.booleans()):  # the stream may also end anywhere
        text = text[: data.draw(st.integers(0, len(text)))]
    both(cls, testing.chunk_at(text, cuts))


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
def test_generated_arguments_still_load(cls: type[GemmaFourParser]) -> None:
    value = {"s": "<d> [e] <| x", "k": [1, {"x": None}], "t": "東京\n", "n": -2.5}
    text = cls.render([("f", value)])
    for size in (1, 3, 7):
        for switch in (fast.reference, None):
            if switch is None:
                items = testing.coalesce(testing.run(cls(), testing.chunk_every(text, size)))
            else:
                with switch():
                    items = testing.coalesce(testing.run(cls(), testing.chunk_every(text, size)))
            call = next(v for k, v in items if k == "call")
            assert json.loads(call.arguments) == value  # type: ignore[union-attr]


# -- the fast reads are on, and taken ---------------------------------------------------


class Refuse:
    """Stands in for a reference read that the fast read must not run."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the reference read ran ({name})")

    def search(self, *args: object) -> object:
        raise AssertionError("the reference read ran (search)")


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
def test_the_member_read_is_on_and_taken(
    cls: type[GemmaFourParser], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a key must come, whole common members are read by one regex: the KEY step's
    own key read does not run; a cut member is held whole and leaves in one piece. With
    the switch off the key read runs."""
    assert fast.FAST is True
    parser = cls()
    assert parser.feed(f"{cls.START}call:f{{") != []
    assert parser._mode == gemma4.KEY
    monkeypatch.setattr(gemma4, "_KEY_END", Refuse())
    q = cls.QUOTE
    assert parser.feed(f"a:1,b:true,c:{q}x y{q},d:tr") == [
        ToolCallArgs(0, '"a":1,"b":true,"c":"x y"')
    ]
    assert parser.feed("u") == []  # the cut member is held whole
    assert parser.feed("e,") == [ToolCallArgs(0, ',"d":true')]
    with fast.reference(), pytest.raises(AssertionError, match="reference read ran"):
        parser.feed("e:1,")


@pure_only
@pytest.mark.parametrize("cls", PARSERS, ids=ids)
def test_the_string_read_is_on_and_taken(cls: type[GemmaFourParser]) -> None:
    """Inside a string, a chunk in which no quote token can begin is taken without the
    marker search; with the switch off the search runs."""
    parser = cls()
    parser.feed(f"{cls.START}call:f{{s:{cls.QUOTE}<vv")  # ('<': not a common member)
    assert parser._mode == gemma4.STRING
    stops = parser._string_end
    assert stops.lead == cls.QUOTE[:2]
    stops.finder = Refuse()  # type: ignore[assignment]
    assert parser.feed('<b> "x"\n') == [ToolCallArgs(0, '<b> \\"x\\"\\n')]
    with fast.reference(), pytest.raises(AssertionError, match="reference read ran"):
        parser.feed("vvvvvvv")


@pytest.mark.parametrize("cls", PARSERS, ids=ids)
def test_one_args_event_per_chunk(cls: type[GemmaFourParser]) -> None:
    """The pieces of one chunk's steps (members, a nested array, a string, a scalar)
    leave as one ``ToolCallArgs``, on both paths."""
    q = cls.QUOTE
    chunk = f"a:1,b:[1,{{c:2}}],s:{q}x<y{q},n:3.5,t:{q}open <b"
    for switch in (fast.reference, None):
        parser = cls()
        parser.feed(f"{cls.START}call:f{{")
        if switch is None:
            events = parser.feed(chunk)
        else:
            with switch():
                events = parser.feed(chunk)
        assert events == [ToolCallArgs(0, '"a":1,"b":[1,{"c":2}],"s":"x<y","n":3.5,"t":"open <b')]
