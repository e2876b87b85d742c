"""The pythonic engine's shortcuts give what its general path gives (a fast path is kept
only if it measures faster, docs/performance.md, and is proved equal to the path it
shortcuts).

The shortcuts (``_pycalls.py``): ``feed`` hands a chunk inside a call's arguments straight
to ``_args``, and a chunk inside a long string straight to its body regex
(``_string_path``); ``_args`` reads a whole common member (keyword, '=', a bare scalar or a
short string, ',') with one regex (``_member_re``), and the rest of a short string or of a
scalar at the call level with one more (``_string_rest``, ``_scalar_rest``). Here they are
switched off on one parser (each alone, and all together with the general
``FeedLoop.feed``) and the two parsers are fed the same chunks. Not only the whole stream
must agree: after every chunk both must have released the same text and the same argument
JSON, so a shortcut never holds back what the general path streams.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pythonic_cases import ESCAPED, MORE_TYPES, SIMPLE
from streamcall import testing
from streamcall._feedloop import FeedLoop
from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats import _pycalls
from streamcall.formats._pycalls import PythonicCallsParser, py_call
from streamcall.formats.registry import parser_class

FORMATS = ["pythonic", "llama4_pythonic", "olmo3", "lfm2"]
NEVER = re.compile("(?!)")
SHORTCUTS = ["member", "string_rest", "scalar_rest", "value_rest", "string_path", "feed"]

# Call bodies (``f(...)``) that reach every branch of the shortcuts and their edges.
BODIES = [
    SIMPLE,
    MORE_TYPES,
    ESCAPED,
    "f(a=1, b=True, c=False, d=None, e='x', f=\"y\", g=-5, h=+1, i=1.5, j=.5, k=1e5, l=0)",
    "f(a=07, b=1_000, c=0x1F, d=0o7, e=0b1, f=1., g=1e999, h=00, i=0.0)",
    "f(a=true, b=false, c=null, d=nan, e=inf, f=1.5.3, g=abc)",
    "f( a = 1 ,b =2,\n  c=\t'x' ,\n d=\"\" , e='' , f='''t''', g=\"\"\"u\"\"\")",
    "f(a='x', b='it''s', c='a'b', d='sed -n '1,9p' f.py', e='q', )",
    "f(s='tab\\there \\\\ \\' \\\" \\x41\\u00e9\\U0001F600\\N{BULLET}\\101\\q', t='\\ud83d\\ude00')",
    "f(b=b'x\\x00', r=r'\\d+', rb=rb\"\\n\", u=u'x', fs=f'{x}', B=B'z', R=R'\\w')",
    "f(raw='line\nbreak\r\nnul\x00end', sur='\ud83d\ude00 lone \ud800 x')",
    "f('pos', 5, [1, 2], k=3, 'late')",
    "f(d={'a': 1, 'b': [1, (2,), {3}], 4: None, True: 'x'}, s={1, 'two'}, e={}, l=[], t=())",
    "f(a==1, b=2)",
    "f(a=, b=2)",
    "f(a=1 2, b=3)",
    "f(a=[1, 2)",
    "f(ключ=1, a²=2)",
    "f(x_" + "y" * 300 + "=1, z=2)",
    "f(a=" + "9" * 300 + ", b='" + "s" * 300 + "', c=2)",
    "f(a=1,,b=2)",
    "f(a=1)",
    "f()",
    "mod.sub.f(a='v', b=None)",
    # long strings, which fill whole chunks (feed's string path)
    "f(text='" + '<div class="row">Ünï 東京 \\\\ path</div>\\n' * 4 + "', n=1)",
    "f(esc='" + "\\x41\\101\\u00e9\\ud83d\\ude00\\N{BULLET}\\\n" * 6 + "')",
    "f(d={'k': '" + "abc def " * 10 + "'}, s={'" + "xyz " * 20 + "', 2})",
    "f(r=r'" + "a\\b " * 20 + "', t=" + "'" * 3 + "x ' y " * 10 + "'" * 3 + ", b=b'q')",
]


def render(fmt: str, bodies: list[str], prefix: str = "", suffix: str = "") -> str:
    """Model text for these call bodies in the format's markup."""
    cls = parser_class(fmt)
    inner = "\n".join(bodies) if fmt == "olmo3" else "[" + ", ".join(bodies) + "]"
    if cls.START:
        return f"{prefix}{cls.START[0]}{inner}{cls.END}{suffix}"
    return f"{inner}{suffix}"


def switch_off(parser: PythonicCallsParser, which: str) -> None:
    if which == "member":
        parser._member_re = NEVER
    elif which == "string_rest":
        parser._string_rest = {"'": NEVER, '"': NEVER}
    elif which == "scalar_rest":
        parser._scalar_rest = NEVER
    elif which == "value_rest":
        parser._value_rest = NEVER
    elif which == "string_path":
        parser._string_path = False


def merged(events: list[Event]) -> list[tuple[str, Any]]:
    """One chunk's events with adjacent text and adjacent deltas of one call joined."""
    out: list[tuple[str, Any]] = []
    for ev in events:
        if isinstance(ev, Text):
            if out and out[-1][0] == "text":
                out[-1] = ("text", out[-1][1] + ev.text)
            else:
                out.append(("text", ev.text))
        elif isinstance(ev, ToolCallArgs):
            if out and out[-1][0] == "args" and out[-1][1][0] == ev.index:
                out[-1] = ("args", (ev.index, out[-1][1][1] + ev.delta))
            else:
                out.append(("args", (ev.index, ev.delta)))
        else:
            out.append(("event", ev))
    return out


def per_chunk(
    parser: PythonicCallsParser, pieces: list[str], general_feed: bool
) -> tuple[list[Any], list[Event]]:
    feed = (lambda piece: FeedLoop.feed(parser, piece)) if general_feed else parser.feed
    events = [feed(piece) for piece in pieces]
    events.append(parser.finish())
    return [merged(step) for step in events], [e for step in events for e in step]


def check(fmt: str, pieces: list[str], off: tuple[str, ...] = tuple(SHORTCUTS)) -> None:
    cls = parser_class(fmt)
    fast = cls()
    slow = cls()
    for which in off:
        switch_off(slow, which)
    fast_steps, events = per_chunk(fast, pieces, general_feed=False)
    slow_steps, _ = per_chunk(slow, pieces, general_feed="feed" in off)
    assert fast_steps == slow_steps, pieces
    testing.coalesce(events)  # and the stream keeps the event invariants


def ends_anywhere(text: str, cut: int | None) -> str:
    """The stream may also end anywhere (mid-call, mid-string, mid-escape)."""
    return text if cut is None else text[: cut % (len(text) + 1)]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("body", BODIES)
@settings(max_examples=40)
@given(cuts=st.lists(st.integers(1, 400), max_size=40), end=st.none() | st.integers(0))
def test_shortcuts_equal_the_general_path(
    fmt: str, body: str, cuts: list[int], end: int | None
) -> None:
    text = ends_anywhere(render(fmt, [body, "g(x=1)"], "Hi ", " tail"), end)
    check(fmt, testing.chunk_at(text, cuts))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("body", BODIES)
def test_shortcuts_equal_the_general_path_cut_everywhere(fmt: str, body: str) -> None:
    """Every cut position, one at a time and in small chunks."""
    text = render(fmt, [body], "", " tail")
    for i in range(1, len(text)):
        check(fmt, [text[:i], text[i:]])
    for size in (1, 2, 3, 5, 7):
        check(fmt, testing.chunk_every(text, size))


@pytest.mark.parametrize("which", SHORTCUTS)
@pytest.mark.parametrize("body", BODIES)
def test_each_shortcut_alone_equals_the_general_path(which: str, body: str) -> None:
    text = render("lfm2", [body, "g(x=1)"], "Hi ", " tail")
    for size in (1, 3, 7):
        check("lfm2", testing.chunk_every(text, size), off=(which,))


scalars = (
    st.integers(-(10**6), 10**6)
    | st.booleans()
    | st.none()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.lists(st.sampled_from([*"ab '\"\\,)=\n\x00é東😀\ud83d"]), max_size=8).map("".join)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("ab", max_size=2), inner),
    max_leaves=5,
)
arguments = st.dictionaries(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True), values)


@pytest.mark.parametrize("fmt", FORMATS)
@given(data=st.data(), calls=st.lists(arguments, min_size=1, max_size=3))
def test_shortcuts_equal_the_general_path_on_generated_calls(
    fmt: str, data: st.DataObject, calls: list[dict[str, Any]]
) -> None:
    text = render(fmt, [py_call(f"f{i}", args) for i, args in enumerate(calls)], "Hi ", " tail")
    cuts = data.draw(st.lists(st.integers(1, len(text)), max_size=30))
    end = data.draw(st.none() | st.integers(0))
    text = ends_anywhere(text, end)
    check(fmt, testing.chunk_at(text, cuts))


def test_the_shortcuts_are_on() -> None:
    """They measured faster (docs/performance.md), so a test pins them on."""
    parser = PythonicCallsParser()
    assert parser._member_re is _pycalls._MEMBER
    assert parser._string_rest is _pycalls._STRING_REST
    assert parser._scalar_rest is _pycalls._SCALAR_REST
    assert parser._value_rest is _pycalls._VALUE_REST
    assert parser._string_path is True
    assert type(parser).feed is not FeedLoop.feed
