"""pythonic and llama4_pythonic against SGLang's pythonic streaming suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_pythonic_streaming.py``
(Apache-2.0, copyright the SGLang project): the model outputs, its chunkings (whole, every
character, every two-chunk split) and the expected calls and content; the code is ours.
Every text goes through ``check_format`` (whole, 1-char, 7-char and random chunkings), and
SGLang's chunkings are replayed and compared with the one-shot result. It found a bug:
``llama4_pythonic`` released the ``]`` of a list with text after it (``"] Done."``).

Where SGLang's expectation differs on purpose, we assert ours and say why. Both formats
follow vLLM's grammar: the list opens the output (or, in ``llama4_pythonic``, follows
``<|python_start|>``), so a ``[`` in prose is never taken for calls. Hence:
- ``Searching. [search(query='hello')] Done.`` is text (SGLang finds the call in the prose);
- after a list, a second ``[...]`` is text (SGLang reads repeated blocks as more calls);
- ``[O'Reilly] docs [search(query="]")] Done.`` is text (SGLang finds the later call).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import Text
from streamcall.formats.registry import tool_parser
from support import check_format, summary

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }
]
FORMATS = ["pythonic", "llama4_pythonic"]


def _all_chunkings(fmt: str, text: str) -> list[testing.Item]:
    one_shot = check_format(fmt, text, None, TOOLS)
    chunkings = [[text], list(text)] + [[text[:i], text[i:]] for i in range(1, len(text))]
    for pieces in chunkings:
        got = testing.coalesce(testing.run(tool_parser(fmt, tools=TOOLS), pieces))
        assert got == one_shot, pieces
    return one_shot


def search(*queries: Any) -> list[tuple[str, dict[str, Any]]]:
    return [("search", {"query": q}) for q in queries]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ('"hello]world"', "hello]world"),
        ("'an unmatched [ in a query'", "an unmatched [ in a query"),
        (r'"escaped quote: \" ] and backslash: \\"', 'escaped quote: " ] and backslash: \\'),
        (r"'escaped quote: \' ] and backslash: \\'", "escaped quote: ' ] and backslash: \\"),
        (
            "'''a single ' and ] inside a multiline\nquery'''",
            "a single ' and ] inside a multiline\nquery",
        ),
        (
            '"""a double " and [ inside a multiline\nquery"""',
            'a double " and [ inside a multiline\nquery',
        ),
    ],
)
def test_sglang_quoted_brackets_for_every_split(fmt: str, literal: str, value: str) -> None:
    assert summary(_all_chunkings(fmt, f"[search(query={literal})]")) == ("", search(value))


@pytest.mark.parametrize("fmt", FORMATS)
def test_sglang_nested_containers_preserve_string_brackets(fmt: str) -> None:
    text = "[search(query={'terms': [']', {'value': '['}]})]"
    assert summary(_all_chunkings(fmt, text)) == ("", search({"terms": ["]", {"value": "["}]}))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        # SGLang: "Searching.  Done." and the call
        (
            "Searching. [search(query='hello')] Done.",
            "Searching. [search(query='hello')] Done.",
            [],
        ),
        # SGLang: both blocks read, " Done."
        (
            "[search(query='one')][search(query='two')] Done.",
            "[search(query='two')] Done.",
            search("one"),
        ),
        # SGLang: three calls
        (
            "[search(query='one'), search(query='two')][search(query='three')]",
            "[search(query='three')]",
            search("one", "two"),
        ),
        ("[search(query='unfinished]')] Done.", " Done.", search("unfinished]")),
        ("[O'Reilly] docs", "[O'Reilly] docs", []),
        ("[don't panic] done", "[don't panic] done", []),
        ("[1] and []", "[1] and []", []),
        # SGLang: "[O'Reilly] docs  Done." and the call
        (
            '[O\'Reilly] docs [search(query="]")] Done.',
            '[O\'Reilly] docs [search(query="]")] Done.',
            [],
        ),
    ],
)
def test_sglang_text_around_lists(fmt: str, text: str, content: str, calls: Any) -> None:
    assert summary(_all_chunkings(fmt, text)) == (content, calls)


def test_sglang_special_markers_can_split_after_a_complete_call() -> None:
    text = "<|python_start|>[search(query='hello')]<|python_end|> Done."
    assert summary(_all_chunkings("llama4_pythonic", text)) == (" Done.", search("hello"))
    # the markers are Llama 4's: text to pythonic
    assert summary(check_format("pythonic", text, None, TOOLS)) == (text, [])


@pytest.mark.parametrize("fmt", FORMATS)
def test_sglang_incomplete_call_waits_for_the_outer_bracket(fmt: str) -> None:
    pieces = ["[search(query='unfinished]')", "] Done."]
    one_shot = check_format(fmt, "".join(pieces), None, TOOLS)
    parser = tool_parser(fmt, tools=TOOLS)
    first = parser.feed(pieces[0])
    assert not [e for e in first if isinstance(e, Text)]
    rest = parser.feed(pieces[1]) + parser.finish()
    assert testing.coalesce(first + rest) == one_shot
    assert summary(one_shot) == (" Done.", search("unfinished]"))


@given(data=st.data())
def test_sglang_repeated_blocks_random_chunkings(data: st.DataObject) -> None:
    check_format("llama4_pythonic", "[search(query='one')][search(query='two')] Done.", data, TOOLS)
