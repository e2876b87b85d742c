"""``streamcall.text.newlines``: escaped newlines recovered outside code and math,
against an independent character-by-character reading of the same rules, in every
chunking."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Reasoning, Text, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.events import Event
from streamcall.text.newlines import EscapedNewlines, NewlineEvents


def reference(text: str) -> str:
    """The rules read one character at a time (the module header states them)."""
    out = []
    i, n = 0, len(text)
    close = None
    while i < n:
        if close is not None:
            if text.startswith(close, i):
                out.append(close)
                i += len(close)
                close = None
            else:
                out.append(text[i])
                i += 1
            continue
        for opener in ("```", "`", "$$", "$", "\\(", "\\["):
            if text.startswith(opener, i):
                close = {"\\(": "\\)", "\\[": "\\]"}.get(opener, opener)
                out.append(opener)
                i += len(opener)
                break
        else:
            if text[i] != "\\":
                out.append(text[i])
                i += 1
                continue
            j = i
            while j < n and text[j] == "\\":
                j += 1
            if j - i > 1:  # a run of backslashes, as written
                out.append(text[i:j])
                i = j
            elif text.startswith("\\r\\n", i):
                out.append("\n")
                i += 4
            elif text.startswith(("\\n", "\\r"), i):
                out.append("\n")
                i += 2
            else:
                out.append("\\")
                i += 1
    return "".join(out)


def run(pieces: list[str]) -> str:
    f = EscapedNewlines()
    return "".join(f.feed(p) for p in pieces) + f.feed("", final=True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("first\\nsecond", "first\nsecond"),
        ("a\\r\\nb\\rc", "a\nb\nc"),
        ("`a\\nb` c\\nd", "`a\\nb` c\nd"),
        ("```py\\nx = '\\\\n'\\n```\\n", "```py\\nx = '\\\\n'\\n```\n"),
        ("$x\\ny$ $$x\\ny$$ \\(x\\ny\\) \\[x\\ny\\]", "$x\\ny$ $$x\\ny$$ \\(x\\ny\\) \\[x\\ny\\]"),
        ("escaped \\\\n", "escaped \\\\n"),
        ("a\\", "a\\"),
        ("a\\r", "a\n"),
        ("unclosed `code\\n", "unclosed `code\\n"),
        ("", ""),
    ],
)
def test_rules(text: str, expected: str) -> None:
    assert reference(text) == expected
    assert run([text]) == expected
    assert run(list(text)) == expected


_ALPHABET = st.sampled_from(["\\", "n", "r", "`", "$", "(", ")", "[", "]", "a", " ", "\n"])


@given(
    text=st.lists(_ALPHABET, max_size=40).map("".join),
    cuts=st.lists(st.integers(0, 40), max_size=12),
)
def test_any_chunking_equals_the_reference(text: str, cuts: list[int]) -> None:
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
    assert run(pieces) == reference(text)


def test_holds_at_most_a_few_characters() -> None:
    f = EscapedNewlines()
    assert f.feed("a\\") == "a"
    assert f.feed("r") == ""
    assert f.feed("\\") == ""
    assert f.feed("n!") == "\n!"
    assert f.feed("``") == ""
    assert f.feed("`x\\n") == "```x\\n"
    assert f.feed("``") == ""  # may be the fence's closer
    assert f.feed("`\\n") == "```\n"


def test_long_runs_of_backslashes_stay_linear_and_as_written() -> None:
    f = EscapedNewlines()
    out = [f.feed("\\" * 7) for _ in range(1000)]
    out.append(f.feed("n"))
    out.append(f.feed("", final=True))
    assert "".join(out) == "\\" * 7000 + "n"


def test_events_keep_their_order_and_tool_arguments() -> None:
    events: list[Event] = [
        Reasoning("think\\"),
        Text("a\\nb\\"),
        ToolCallStart(0, "call_0", "f"),
        ToolCallArgs(0, '{"s": "x\\ny"}'),
        ToolCallEnd(0, '{"s": "x\\ny"}'),
        Text("nc"),
    ]
    got = NewlineEvents().apply(events, final=True)
    assert got == [
        Reasoning("think"),
        Reasoning("\\"),  # released when the text starts
        Text("a\nb"),
        Text("\\"),  # released before the call: it never joins the 'n' after it
        ToolCallStart(0, "call_0", "f"),
        ToolCallArgs(0, '{"s": "x\\ny"}'),
        ToolCallEnd(0, '{"s": "x\\ny"}'),
        Text("nc"),
    ]
