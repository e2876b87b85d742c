"""Harmony's framing, read once (``framing/harmony.py``) by both of its parsers:
the ``openai`` tool parser and the ``openai_gptoss`` reasoning parser read every header
alike, in any chunking, and the reasoning parser hands on exactly the messages the tool
parser makes calls of.

The three places where the two readers used to disagree, each pinned here for both:

- the channel word: up to a blank or ``<``, as openai-harmony's ``parse_header_from_tokens``
  reads it (the reasoning parser took only ``[A-Za-z_]+``, so ``analysis-x`` was analysis);
- the recipient: a ``to=`` word after a blank or right after ``<|start|>`` (the reasoning
  parser saw only `` to=`` and ``\\tto=``, so ``final\\nto=functions.f`` was final text
  and the call was lost; the tool parser also took ``to=`` right after any token);
- a header past its bound (512 characters, from its opener to the end of
  ``<|message|>``): its opener is text and reading goes on after it (the tool parser made
  the whole header text, deciding at chunk boundaries, so a message inside it was read or
  not depending on the chunking).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import Event, Text
from streamcall.formats.harmony import HarmonyParser
from streamcall.framing.harmony import MAX_HEADER, Header, parse_header
from streamcall.reasoning import reasoning_parser
from streamcall.text import fast
from support import random_chunkings


def tool_items(text: str, pieces: list[str] | None = None) -> list[testing.Item]:
    return testing.coalesce(testing.run(HarmonyParser(), pieces or [text]))


def reasoning_events(pieces: list[str]) -> list[Event]:
    return testing.run(reasoning_parser("openai_gptoss"), pieces)


def chained(pieces: list[str]) -> list[testing.Item]:
    """The reasoning parser, then the tool parser on the text it hands on (how a server
    runs the two): reasoning is kept, text goes through the tool parser."""
    tools = HarmonyParser()
    out: list[Event] = []
    for event in reasoning_events(pieces):
        out.extend(tools.feed(event.text) if isinstance(event, Text) else [event])
    out.extend(tools.finish())
    return testing.coalesce(out)


def check_both(text: str, tool: list[testing.Item], reasoning: list[testing.Item]) -> None:
    """Both parsers give these results for ``text``, in every fixed chunking."""
    assert testing.check_chunkings(HarmonyParser, text) == tool
    assert testing.check_chunkings(lambda: reasoning_parser("openai_gptoss"), text) == reasoning


@pytest.mark.parametrize(
    ("text", "header"),
    [
        ("<|channel|>analysis", Header("analysis", "")),
        ("<|channel|>analysis-x", Header("analysis-x", "")),
        ("<|channel|>final<|constrain|>json", Header("final", "")),
        ("<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json",
         Header("commentary", "functions.f")),
        ("<|channel|>commentary to=functions.f<|constrain|>json", Header("commentary", "functions.f")),
        ("<|start|>assistant to=functions.f<|channel|>commentary json", Header("commentary", "functions.f")),
        ("<|channel|>final\nto=functions.f", Header("final", "functions.f")),
        ("<|start|>to=functions.f<|channel|>commentary", Header("commentary", "functions.f")),
        ("<|channel|>to=functions.f", Header("to=functions.f", "")),  # the channel's word
        ("<|channel|>commentary<|constrain|>to=functions.f", Header("commentary", "")),
        ("<|start|>assistant", Header("", "")),
    ],
)  # fmt: skip
def test_header_words(text: str, header: Header) -> None:
    assert parse_header(text) == header


def test_the_channel_word_reaches_a_blank_or_a_token() -> None:
    text = "<|channel|>analysis-x<|message|>r<|end|>after"
    # not the analysis channel: text for the tool parser, handed on by the reasoning one
    check_both(text, [("text", "rafter")], [("text", text)])
    text = "<|channel|>analysis<|constrain|>json<|message|>r<|end|>after"
    check_both(
        text, [("reasoning", "r"), ("text", "after")], [("reasoning", "r"), ("text", "after")]
    )


def test_a_recipient_after_any_blank_is_a_call_for_both() -> None:
    text = '<|channel|>final\nto=functions.f<|message|>{"a": 1}<|call|>'
    items = tool_items(text)
    assert [(k, v.name) for k, v in items] == [("call", "f")]  # type: ignore[union-attr]
    check_both(text, items, [("text", text)])  # handed on whole, not read as final text
    assert chained([text]) == items


def test_a_word_glued_to_a_token_is_not_a_recipient() -> None:
    text = '<|channel|>commentary<|constrain|>to=functions.f<|message|>{"a": 1}<|end|>'
    check_both(text, [("text", '{"a": 1}')], [("text", text)])


def long_header(fill: int) -> str:
    return "<|start|>" + "x" * fill + "<|channel|>analysis<|message|>think<|end|>done"


@given(data=st.data())
def test_a_header_past_its_bound_releases_its_opener_in_any_chunking(data: st.DataObject) -> None:
    text = long_header(600)
    expected = [("text", "<|start|>" + "x" * 600), ("reasoning", "think"), ("text", "done")]
    check_both(text, expected, expected)
    for pieces in random_chunkings(data, text):
        assert tool_items(text, pieces) == expected
        assert testing.coalesce(reasoning_events(pieces)) == expected


def test_the_bound_counts_from_the_opener_to_the_end_of_message() -> None:
    head = "<|channel|>analysis"
    fits = head + " " * (MAX_HEADER - len(head) - len("<|message|>")) + "<|message|>r<|end|>"
    assert len(fits.split("r<|end|>")[0]) == MAX_HEADER
    check_both(fits, [("reasoning", "r")], [("reasoning", "r")])
    over = head + " " + fits[len(head) :]
    check_both(over, [("text", over)], [("text", over)])


def test_a_start_before_message_makes_the_header_text() -> None:
    text = "<|start|>assistant<|channel|>analysis<|start|>assistant<|channel|>final<|message|>hi"
    expected = [("text", "<|start|>assistant<|channel|>analysishi")]
    check_both(text, expected, expected)


@given(data=st.data(), cuts=st.lists(st.integers(1, 200), max_size=30))
def test_the_reasoning_parser_equals_its_reference_reads(
    data: st.DataObject, cuts: list[int]
) -> None:
    """``BODY_ENDS.find``'s fast read (a body without ``<|`` holds no token) gives what the
    marker search gives, in the reasoning parser too."""
    text = data.draw(
        st.sampled_from(
            [
                "<|channel|>analysis<|message|>thinking < | <|x about it<|end|>"
                "<|start|>assistant<|channel|>final<|message|>done<|return|>",
                long_header(600),
                '<|channel|>commentary to=functions.f<|message|>{"a": "<|"}<|call|>',
                "<|channel|>analysis<|message|>cut <|en",
            ]
        )
    )
    pieces = testing.chunk_at(text, cuts)
    got = testing.coalesce(reasoning_events(pieces))
    with fast.reference():
        assert testing.coalesce(reasoning_events(pieces)) == got
