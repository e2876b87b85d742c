"""Gemma 4's shortcuts give what its general path gives (a fast path is kept only if it
measures faster, docs/performance.md, and is proved equal to the path it shortcuts).

Three shortcuts: ``feed`` hands a chunk inside a call's arguments straight to ``_args`` (or,
inside a string with no quote token in sight, reads it itself), and ``_args`` reads a whole common member (plain key, bare scalar or ``<|"|>`` string, comma)
with one regex. Here both are switched off on one parser (the general ``FeedLoop.feed``,
and a member regex that never matches) and the two parsers are fed the same chunks.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall._feedloop import FeedLoop
from streamcall.formats.functiongemma import FunctionGemmaParser
from streamcall.formats.gemma4 import GemmaFourParser, gemma_value

PARSERS = [GemmaFourParser, FunctionGemmaParser]

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
]


def general(parser: GemmaFourParser, pieces: list[str]) -> list[testing.Item]:
    parser._member_re = re.compile("(?!)")  # the member shortcut off
    events = []
    for piece in pieces:
        events.extend(FeedLoop.feed(parser, piece))  # the feed shortcut off
    events.extend(parser.finish())
    return testing.coalesce(events)


def both(cls: type[GemmaFourParser], text: str, pieces: list[str]) -> None:
    fast = testing.coalesce(testing.run(cls(), pieces))
    assert fast == general(cls(), pieces), pieces


def as_cls(cls: type[GemmaFourParser], text: str) -> str:
    return (
        text.replace("<|tool_call>", cls.START)
        .replace("<tool_call|>", cls.END)
        .replace('<|"|>', cls.QUOTE)
    )


@pytest.mark.parametrize("cls", PARSERS, ids=lambda c: c.names[0])
@pytest.mark.parametrize("text", TEXTS)
@given(cuts=st.lists(st.integers(1, 300), max_size=40))
def test_shortcuts_equal_the_general_path(
    cls: type[GemmaFourParser], text: str, cuts: list[int]
) -> None:
    text = as_cls(cls, text)
    both(cls, text, testing.chunk_at(text, cuts))


@pytest.mark.parametrize("cls", PARSERS, ids=lambda c: c.names[0])
@pytest.mark.parametrize("text", TEXTS)
def test_shortcuts_equal_the_general_path_in_small_chunks(
    cls: type[GemmaFourParser], text: str
) -> None:
    text = as_cls(cls, text)
    for size in (1, 2, 3, 7):
        both(cls, text, testing.chunk_every(text, size))


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


@pytest.mark.parametrize("cls", PARSERS, ids=lambda c: c.names[0])
@given(data=st.data(), value=args)
def test_shortcuts_equal_the_general_path_on_generated_calls(
    cls: type[GemmaFourParser], data: st.DataObject, value: dict[str, Any]
) -> None:
    text = f"{cls.START}call:f{gemma_value(value, cls.QUOTE)}{cls.END}"
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text))), max_size=20))
    both(cls, text, testing.chunk_at(text, cuts))
