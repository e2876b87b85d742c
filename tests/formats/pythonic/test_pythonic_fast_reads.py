"""The pythonic engine gives the same events with the text layer's fast reads on (the
default) and on their reference paths (``streamcall.text.fast.reference``), chunk by chunk,
in any chunking, cut anywhere and ended anywhere: pythonic, llama4_pythonic, olmo3, lfm2.

The fast reads are ``PythonArgs``'s (``streamcall/text/pyargs.py``), written out in the
pythonic engine's ``feed``: the common members at the call level (a keyword, '=', a bare
scalar or a short string, ',') read with about one regex per chunk, whichever token the
chunk begins in, and a chunk inside a long string decoded at once; the reference path is
the token loop (``PythonArgs._read``). Not only the whole stream must agree: after every chunk both must have
released the same text and the same argument JSON, so a fast read never holds back what the
reference path streams. A fast read is kept only if it measures faster
(docs/performance.md), and a test pins that each is on and taken.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pythonic_cases import ESCAPED, MORE_TYPES, SIMPLE

from streamcall import testing
from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats.engines.py_calls import py_call
from streamcall.formats.registry import parser_class
from streamcall.text import fast
from streamcall.text.pyargs import PythonArgs
from support import pure_only

FORMATS = ["pythonic", "llama4_pythonic", "olmo3", "lfm2"]

# Call bodies (``f(...)``) that reach every branch of the fast reads and their edges.
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
    # long strings, which fill whole chunks (the long-string read; json_body)
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


def per_chunk(fmt: str, pieces: list[str]) -> tuple[list[Any], list[Event]]:
    """Every ``feed``'s events merged, then ``finish``'s, then a feed after the end."""
    parser = parser_class(fmt)()
    events = [parser.feed(piece) for piece in pieces]
    events.append(parser.finish())
    assert parser.feed("more") == []
    return [merged(step) for step in events], [e for step in events for e in step]


def check(fmt: str, pieces: list[str]) -> None:
    fast_steps, events = per_chunk(fmt, pieces)
    with fast.reference():
        reference_steps, _ = per_chunk(fmt, pieces)
    assert fast_steps == reference_steps, pieces
    testing.coalesce(events)  # and the stream keeps the event invariants


def ends_anywhere(text: str, cut: int | None) -> str:
    """The stream may also end anywhere (mid-call, mid-string, mid-escape)."""
    return text if cut is None else text[: cut % (len(text) + 1)]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("body", BODIES)
@settings(max_examples=40)
@given(cuts=st.lists(st.integers(1, 400), max_size=40), end=st.none() | st.integers(0))
def test_fast_reads_equal_the_reference(
    fmt: str, body: str, cuts: list[int], end: int | None
) -> None:
    text = ends_anywhere(render(fmt, [body, "g(x=1)"], "Hi ", " tail"), end)
    check(fmt, testing.chunk_at(text, cuts))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("body", BODIES)
def test_fast_reads_equal_the_reference_cut_everywhere(fmt: str, body: str) -> None:
    """Every cut position, one at a time and in small chunks."""
    text = render(fmt, [body], "", " tail")
    for i in range(1, len(text)):
        check(fmt, [text[:i], text[i:]])
    for size in (1, 2, 3, 5, 7):
        check(fmt, testing.chunk_every(text, size))


@pytest.mark.parametrize("fmt", FORMATS)
def test_long_keywords_are_the_token_loops(fmt: str) -> None:
    """A keyword and its '=' spanning the fast read's bound (200) or more are left to the
    token loop, which holds them while at most ``max_keyword`` (256) long: the same events
    per chunk as the reference, around both bounds, with blanks before the '='."""
    for length, blanks in ((127, 70), (128, 0), (128, 70), (199, 0), (254, 0), (255, 1), (300, 0)):
        body = f"f(a=1, {'k' * length}{' ' * blanks}=2, b='x')"
        text = render(fmt, [body], "", " tail")
        for size in (1, 5, 64, 100):
            check(fmt, testing.chunk_every(text, size))


def test_max_keyword_is_past_the_fast_reads_bound() -> None:
    with pytest.raises(ValueError, match="max_keyword is 200, under 201"):
        PythonArgs(lambda out: None, max_keyword=200)


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
def test_fast_reads_equal_the_reference_on_generated_calls(
    fmt: str, data: st.DataObject, calls: list[dict[str, Any]]
) -> None:
    text = render(fmt, [py_call(f"f{i}", args) for i, args in enumerate(calls)], "Hi ", " tail")
    cuts = data.draw(st.lists(st.integers(1, len(text)), max_size=30))
    end = data.draw(st.none() | st.integers(0))
    text = ends_anywhere(text, end)
    check(fmt, testing.chunk_at(text, cuts))


class Refuse:
    """Stands in for a reference read, which the fast read must make unneeded."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, *args: object) -> object:
        raise AssertionError(f"the reference read ran ({self.name})")


def test_the_fast_reads_are_on() -> None:
    """They measured faster (docs/performance.md), so they are on by default."""
    assert fast.FAST is True


@pure_only
@pytest.mark.parametrize("fmt", FORMATS)
def test_the_member_read_is_taken(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of common members, whichever token they begin in, take no token loop; with
    the switch off they do."""
    parser = parser_class(fmt)()
    text = render(fmt, ["f(alpha=1,beta='two',gamma=None,delta=\"x y\",eps=True,z=0)"])
    head = text.index("(") + 1
    parser.feed(text[:head])
    monkeypatch.setattr(PythonArgs, "_read", Refuse("_read"))
    pieces = testing.chunk_every(text[head : text.index("z=0")], 5)
    deltas = [parser.feed(piece) for piece in pieces]
    assert all(e.__class__ is ToolCallArgs for step in deltas for e in step)
    with fast.reference(), pytest.raises(AssertionError, match="reference read ran"):
        parser.feed("z=0,w=1,")


@pure_only
@pytest.mark.parametrize("fmt", FORMATS)
def test_the_long_string_read_is_taken(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk inside a string that has filled a whole chunk is decoded at once, escapes
    and a cut escape too; with the switch off the string is read token by token."""
    parser = parser_class(fmt)()
    text = render(fmt, ["f(s='" + "long text \\n ü " * 20 + "')"])
    head = text.index("'") + 1
    parser.feed(text[:head])
    parser.feed("a" * 10)  # (the quote was held with the chunk before)
    parser.feed("a" * 10)  # a whole chunk of body: the string is long
    monkeypatch.setattr(PythonArgs, "_read", Refuse("_read"))
    assert parser.feed("more \\n text") == [ToolCallArgs(0, "more \\n text")]
    assert parser.feed("cut \\") == [ToolCallArgs(0, "cut ")]  # the cut escape is held
    assert parser.feed("t ok") == [ToolCallArgs(0, "\\t ok")]  # a tab
    with fast.reference(), pytest.raises(AssertionError, match="reference read ran"):
        parser.feed("plain")
