"""What keeps one big ``feed`` linear, checked for what it must not change.

- The shapes ``python -m benchmarks oneshot`` measures (many blocks of calls with text
  between, one block of many calls, one long string argument, calls cut off and followed by
  text), small, for every format: whole, 1-char, 7-char and random chunkings give one
  result, equal to ``parse_tool_calls``, with every rendered call found.
- ``cut_marker`` is ``marker.startswith(buf[pos:])``, bounded.
- The possessive string-body regexes end where the greedy ones they replace end.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import testing, text
from streamcall.formats.registry import formats, parser_class
from streamcall.text import cut_marker, pyliteral
from support import check_format

sys.path.insert(0, str(Path(__file__).parents[2]))
from benchmarks import oneshot

RENDERABLE = oneshot.renderable(formats())

SHAPES = {
    "calls": (oneshot.calls_text, 1500),
    "block": (oneshot.block_text, 1500),
    "long": (oneshot.long_text, 700),
    "broken": (oneshot.broken_text, 1200),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("fmt", RENDERABLE)
@settings(max_examples=3)
@given(data=st.data())
def test_benchmark_shapes_in_any_chunking(fmt: str, shape: str, data: st.DataObject) -> None:
    build, size = SHAPES[shape]
    text, expected = build(fmt, size)
    items = check_format(fmt, text, data, tools=oneshot.TOOLS)
    calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
    if shape != "broken":
        assert [c.incomplete for c in calls] == [False] * expected
    if shape == "calls" and not getattr(parser_class(fmt), "WHOLE_OUTPUT", False):
        # the text between blocks is content, whole
        content = "".join(v for k, v in items if k == "text" and isinstance(v, str))
        assert content.count("Now checking item") == expected // 2


markers = st.text(st.sampled_from("<|>/a_b"), min_size=1, max_size=12)


@given(markers, st.text(st.sampled_from("<|>/a_b"), max_size=30), st.integers(0, 31))
def test_cut_marker_is_startswith_of_the_rest(marker: str, buf: str, pos: int) -> None:
    pos = min(pos, len(buf))
    assert cut_marker(marker, buf, pos) == marker.startswith(buf[pos:])


# The greedy originals of the possessive string-body regexes.
GREEDY = {
    "string run": (
        text.STRING_RUN,
        re.compile(r'[^"\\]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\]*)*'),
    ),
    "strict run": (
        text.STRICT_RUN,
        re.compile(r'[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*'),
    ),
}
for _q in "'\"":
    for _kind in (pyliteral.STR, pyliteral.BYTES, pyliteral.RAW):
        _possessive = pyliteral.body_run(_q, _kind)
        _esc = (pyliteral.ESCAPE_STR, pyliteral.ESCAPE_BYTES, None)[_kind]
        _qq = re.escape(_q)
        _greedy = (
            rf"[^{_qq}\\]*(?:\\[\s\S][^{_qq}\\]*)*"
            if _esc is None
            else rf"[^{_qq}\\]*(?:\\(?:{_esc})[^{_qq}\\]*)*"
        )
        GREEDY[f"pythonic {_q} {_kind}"] = (_possessive, re.compile(_greedy))

body_chars = st.sampled_from(['"', "'", "\\", "u", "0", "F", "n", "x", "N", "{", "}", "\x01", "a"])


@pytest.mark.parametrize("name", sorted(GREEDY))
@given(st.text(body_chars, max_size=24), st.integers(0, 24))
def test_possessive_runs_end_where_greedy_ones_do(name: str, text: str, pos: int) -> None:
    possessive, greedy = GREEDY[name]
    pos = min(pos, len(text))
    assert possessive.match(text, pos).end() == greedy.match(text, pos).end()  # type: ignore[union-attr]
