"""The Muse parsers give the same events with the fast reads on (the default) and on
their reference paths (``streamcall.text.fast.reference``), in any chunking.

The fast read of their own is ``framing.muse.body_text_end``: in a chunk with no frame
token's lead, where the body's text ends (all of it when there is no ``to=`` and the last
character begins no header), read by a tool channel's engine in the parser's own buffer. Below it, the
XML-parameter engine's and ``StopMarkers``' fast reads (their own tests:
tests/formats/xml/test_xmlparams_fast_reads.py, tests/text/test_text_fast.py).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import reasoning_parser, testing
from streamcall.events import Event
from streamcall.formats.registry import tool_parser
from streamcall.framing.muse import LEAD, body_end, body_text_end
from streamcall.output import output_parser
from streamcall.text import fast

FRAMES = ["<|start|>assistant to=f<|message|>", " to=self<|message|>", "<|message|>",
          "<|eom|>", "<|eot|>", "<|start|>assistant to=user<|message|>"]  # fmt: skip
ATEM = ['<atem:function_calls>', '<atem:invoke name="f">', '<atem:parameter name="k">',
        "</atem:parameter>", "</atem:invoke>", "</atem:function_calls>"]  # fmt: skip
PIECES = [*FRAMES, *ATEM, "to", "to=", "t", "o", " ", "\t", "<", "<|", "x", "42", "true", '"q"',
          "\n", "ab", "é"]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=24).map("".join)


def run(make: object, pieces: list[str]) -> list[Event]:
    return testing.run(make(), pieces)  # type: ignore[operator]


MAKERS = {
    "tool": lambda: tool_parser("muse"),
    "glimmer": lambda: tool_parser("muse_glimmer"),
    "reasoning": lambda: reasoning_parser("muse"),
    "pair": lambda: output_parser(tool_format="muse", reasoning_format="muse"),
}


@pytest.mark.parametrize("stage", sorted(MAKERS))
@given(data=st.data(), text=texts)
def test_fast_and_reference_agree(stage: str, data: st.DataObject, text: str) -> None:
    make = MAKERS[stage]
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    for pieces in ([text], testing.chunk_every(text, 1), testing.chunk_every(text, 7),
                   testing.chunk_at(text, cuts)):  # fmt: skip
        got = testing.coalesce(run(make, pieces))
        with fast.reference():
            want = testing.coalesce(run(make, pieces))
        assert got == want, pieces


@given(text=st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map("".join),
       pos=st.integers(0, 40))  # fmt: skip
def test_body_text_end_says_what_body_end_says(text: str, pos: int) -> None:
    check_body_text_end(text, pos)


# Bodies with no frame token's lead: what the end of such a chunk holds, every way.
BODY_PIECES = ["to", "to=", "t", "o", " ", "\t", "<", "x", "é", "ab", "<atem:invoke name=",
               "</atem:parameter>", "to=f", "  "]  # fmt: skip


@given(text=st.lists(st.sampled_from(BODY_PIECES), min_size=1, max_size=24).map("".join),
       pos=st.integers(0, 60))  # fmt: skip
def test_body_text_end_of_plain_bodies(text: str, pos: int) -> None:
    check_body_text_end(text, pos)


def check_body_text_end(text: str, pos: int) -> None:
    pos = min(pos, len(text) - 1)
    if LEAD not in text:
        end = body_text_end(text, pos)
        with fast.reference():
            assert body_end(text, pos, False) == (end, end, None, "")
