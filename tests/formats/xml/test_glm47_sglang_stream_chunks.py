"""glm47 against SGLang's GLM-4.7 stream-chunk suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_glm47_stream_chunks.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the tool schemas, the
expected calls and content, and the partitions it feeds (1, 7, 17 characters and whole;
every two-chunk split; 50 seeded random 13-chunk partitions; a second call cut at four
points); the code is ours. Every text goes through ``check_format`` (whole, 1-char,
7-char and random chunkings), and every partition is replayed and compared with the
one-shot result.

Where SGLang's expectation differs on purpose, we assert ours and say why:
- Text around calls is kept as written: ``"Before: "``, ``" Between: "`` and ``" After."``
  keep their blanks (SGLang's content is ``"Before:  Between:  After."``, the same text).
- A stream cut inside the second call reports what was read: the call ``incomplete`` once
  its name is known, the cut markup as text before that (SGLang: nothing at the end).
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

FMT = "glm47"
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    },
    {"type": "function", "function": {"name": "status", "parameters": {"type": "object"}}},
]
SEARCH_ARGS = {
    "path_prefix": "Doc/library/glob.rst",
    "max_matches": 5,
    "query": "filenames starting with",
}
SEARCH_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {
                "type": "object",
                "properties": {
                    "path_prefix": {"type": "string"},
                    "max_matches": {"type": "integer"},
                    "query": {"type": "string"},
                },
            },
        },
    }
]


def tool_call(path: str) -> str:
    return f"<tool_call>read_file<arg_key>path</arg_key><arg_value>{path}</arg_value></tool_call>"


MIXED = (
    "Before: "
    + tool_call("目录/café.py")
    + " Between: "
    + "<tool_call>status</tool_call>"
    + tool_call('quote"and\\slash.py')
    + " After."
)
SEARCH = (
    "<tool_call>search"
    + "".join(f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in SEARCH_ARGS.items())
    + "</tool_call>"
)


def _replay(pieces: list[str], tools: list[dict[str, Any]] = TOOLS) -> list[testing.Item]:
    return testing.coalesce(testing.run(tool_parser(FMT, tools=tools), pieces))


def _no_duplicate_keys(items: list[testing.Item]) -> None:
    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        assert len(pairs) == len(dict(pairs)), pairs
        return dict(pairs)

    for _, v in items:
        if isinstance(v, testing.Call):
            json.loads(v.arguments, object_pairs_hook=unique)


@given(data=st.data())
def test_complete_calls_in_one_chunk(data: st.DataObject) -> None:
    text = tool_call("first.py") + tool_call("目录/café.py")
    items = check_format(FMT, text, data, TOOLS)
    assert summary(items) == (
        "",
        [("read_file", {"path": "first.py"}), ("read_file", {"path": "目录/café.py"})],
    )
    p = tool_parser(FMT, tools=TOOLS)
    p.feed(text)
    assert p.feed("") == []
    assert p.finish() == []  # everything was drained by feed


def test_partition_invariance_with_text_and_no_args() -> None:
    items = check_format(FMT, MIXED, None, TOOLS)
    assert summary(items) == (
        "Before:  Between:  After.",
        [
            ("read_file", {"path": "目录/café.py"}),
            ("status", {}),
            ("read_file", {"path": 'quote"and\\slash.py'}),
        ],
    )
    partitions = [
        [MIXED[i : i + size] for i in range(0, len(MIXED), size)] for size in (1, 7, 17, len(MIXED))
    ]
    partitions.extend([MIXED[:i], MIXED[i:]] for i in range(len(MIXED) + 1))
    for pieces in partitions:
        assert _replay(pieces) == items, [len(p) for p in pieces]


def test_single_call_arguments_are_not_repeated() -> None:
    items = check_format(FMT, SEARCH, None, SEARCH_TOOLS)
    assert summary(items) == ("", [("search", SEARCH_ARGS)])
    _no_duplicate_keys(items)
    partitions = [[SEARCH[:i], SEARCH[i:]] for i in range(len(SEARCH) + 1)]
    rng = random.Random(47)
    for _ in range(50):
        cuts = [0, *sorted(rng.sample(range(1, len(SEARCH)), 12)), len(SEARCH)]
        partitions.append([SEARCH[a:b] for a, b in itertools.pairwise(cuts)])
    for pieces in partitions:
        assert _replay(pieces, SEARCH_TOOLS) == items


SECOND = tool_call("目录/second.py")


@pytest.mark.parametrize("split", [5, 20, SECOND.index("second") + 3, len(SECOND) - 1])
def test_cut_second_call(split: int) -> None:
    first = tool_call("first.py")
    whole = check_format(FMT, first + SECOND, None, TOOLS)
    assert _replay([first + SECOND[:split], SECOND[split:]]) == whole
    cut = check_format(FMT, first + SECOND[:split], None, TOOLS)
    calls = [v for _, v in cut if isinstance(v, testing.Call)]
    assert (calls[0].name, json.loads(calls[0].arguments)) == ("read_file", {"path": "first.py"})
    assert not calls[0].incomplete
    if len(calls) == 2:  # the name was read: reported, incomplete
        assert calls[1].incomplete and calls[1].name == "read_file"
    else:  # cut before the name was known: the markup is text
        assert summary(cut)[0] == SECOND[:split]
