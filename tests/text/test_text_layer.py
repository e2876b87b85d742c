"""The text layer's place and its loop: it imports nothing above it, and ``FeedLoop`` keeps
its rules (a mode table of steps, ``(pos, hold)``, one bounded tail, ``finish``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import streamcall
from streamcall import testing
from streamcall.events import Event, Text
from streamcall.text import FeedLoop, MarkerFinder, Step

SRC = Path(streamcall.__file__).parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_the_text_layer_imports_only_events_itself_and_the_standard_library() -> None:
    files = sorted((SRC / "text").glob("*.py"))
    assert files
    for path in files:
        for name in imported_modules(path):
            if name.startswith("streamcall"):
                # (``_mypyc``: the compiled build's class marker, standard library only)
                assert name in ("streamcall.events", "streamcall._mypyc") or name.startswith(
                    "streamcall.text"
                ), f"{path.name} imports {name}"


def test_reasoning_partial_and_framing_import_nothing_of_the_formats() -> None:
    """The layers below the tool formats (reasoning, partial JSON, the shared message
    framing) do not import ``streamcall.formats``: what two layers read lives below both."""
    for layer in ("reasoning", "partial", "framing"):
        files = sorted((SRC / layer).glob("*.py"))
        assert files, layer
        for path in files:
            for name in imported_modules(path):
                assert not name.startswith("streamcall.formats"), f"{layer}/{path.name}: {name}"
    for path in sorted((SRC / "framing").glob("*.py")):
        for name in imported_modules(path):
            if name.startswith("streamcall"):
                # (the events are the bottom layer, below the text layer itself)
                assert name.startswith(
                    ("streamcall.events", "streamcall.text", "streamcall.framing")
                ), path


def test_the_parsers_take_their_scanning_from_the_text_layer() -> None:
    """The reasoning engine, partial JSON and the stream parser import ``streamcall.text``,
    not the formats' scanning module."""
    for path in [
        SRC / "reasoning" / "_engine.py",
        SRC / "stream.py",
        *(SRC / "partial").glob("*.py"),
    ]:
        names = imported_modules(path)
        assert "streamcall.formats._scan" not in names, path
        assert "streamcall._feedloop" not in names, path


def test_every_parser_runs_the_one_feed_loop_on_a_mode_table() -> None:
    """No tool-call or reasoning parser overrides ``finish``, and none ``feed`` (its speed
    lives in the text layer's fast reads) but two engines, whose ``feed`` is the loop
    written out with their arguments' commonest fast read in it (issue 50: a step's frame
    per chunk cost them 3 to 7% of the instructions of the design before the mode tables):
    the pythonic engine (``PythonArgs``'s reads; the equivalence with the reference path
    is ``test_pythonic_fast_reads``) and the JSON-call engine (a run of string arguments'
    inner string: ``test_json_calls_fast_reads``). Every one reads through a table of
    steps, and the shims of the old step contract are gone."""
    from streamcall.formats.engines.json_calls import JsonCallsParser
    from streamcall.formats.engines.py_calls import PythonicCallsParser
    from streamcall.formats.registry import formats, tool_parser
    from streamcall.reasoning import reasoning_formats, reasoning_parser

    parsers = [tool_parser(name) for name in formats()]
    parsers += [reasoning_parser(name) for name in reasoning_formats()]
    written_out = json_written_out = 0
    for parser in parsers:
        cls = type(parser)
        assert isinstance(parser, FeedLoop), cls
        if isinstance(parser, PythonicCallsParser):
            assert cls.feed is PythonicCallsParser.feed, f"{cls.__name__} overrides feed"
            written_out += 1
        elif isinstance(parser, JsonCallsParser):
            assert cls.feed is JsonCallsParser.feed, f"{cls.__name__} overrides feed"
            json_written_out += 1
        else:
            assert cls.feed is FeedLoop.feed, f"{cls.__name__} overrides feed"
        assert cls.finish is FeedLoop.finish, f"{cls.__name__} overrides finish"
        assert parser._steps, f"{cls.__name__} has no steps"
        assert not hasattr(parser, "_step"), f"{cls.__name__} keeps a _step loop"
    assert written_out >= 4  # pythonic, llama4_pythonic, olmo3, lfm2, ...
    assert json_written_out >= 20  # hermes, granite4, mistral, llama3_json, ...
    assert not (SRC / "_feedloop.py").exists()
    assert not (SRC / "formats" / "_scan.py").exists()


class Words(FeedLoop):
    """A toy parser on the loop: ``<b>...</b>`` is bold; two modes, a marker held back."""

    def __init__(self) -> None:
        super().__init__()
        self._open = MarkerFinder(["<b>"])
        self._close = MarkerFinder(["</b>"])
        self._steps = (self._text, self._bold)

    def _text(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, resume, marker = self._open.take(buf, pos, final)
        if end > pos:
            out.append(Text(buf[pos:end]))
        if marker is None:
            return end, True
        self._mode = 1
        return resume, False

    def _bold(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, resume, marker = self._close.take(buf, pos, final)
        if end > pos:
            out.append(Text(buf[pos:end].upper()))
        if marker is None:
            return end, True
        self._mode = 0
        return resume, False


def reference(text: str) -> str:
    """What ``Words`` gives, by a regex over the whole text."""
    out, bold = [], False
    for piece in re.split("(<b>|</b>)", text):
        if piece == "<b>" and not bold:
            bold = True
        elif piece == "</b>" and bold:
            bold = False
        else:
            out.append(piece.upper() if bold else piece)
    return "".join(out)


@given(
    st.lists(st.sampled_from(["a", " ", "<", "b", ">", "/", "<b>", "</b>"]), max_size=30).map(
        "".join
    ),
    st.lists(st.integers(1, 40), max_size=10),
)
def test_a_parser_on_the_loop_gives_one_result_in_any_chunking(text: str, cuts: list[int]) -> None:
    whole = testing.coalesce(testing.run(Words(), [text]))
    assert testing.coalesce(testing.run(Words(), testing.chunk_at(text, cuts))) == whole
    assert "".join(str(v) for _, v in whole) == reference(text)


def test_a_held_suffix_is_the_tail_and_finish_releases_it() -> None:
    p = Words()
    assert p.feed("x <") == [Text("x ")]
    assert p._tail == "<"  # a cut marker: held
    assert p.feed("b") == []
    assert p.feed(">bold</") == [Text("BOLD")]
    assert p.finish() == [Text("</")]  # the default _end_of_stream releases what is held
    assert p.feed("more") == [] and p.finish() == []


class Brackets(FeedLoop):
    """A toy parser whose held tail waits (rule 4): ``[x]`` with at most 8 characters of
    ``x`` is upper-cased, anything else is text; a cut one waits unread for ``]``. It
    counts the steps it runs."""

    def __init__(self) -> None:
        super().__init__()
        self.steps_run = 0
        self._steps = (self._read,)

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        self.steps_run += 1
        start = buf.find("[", pos)
        if start < 0:
            out.append(Text(buf[pos:]))
            return len(buf), False
        if start > pos:
            out.append(Text(buf[pos:start]))
        end = buf.find("]", start)
        if end < 0:
            if final or len(buf) - start > 9:  # it can no longer be a short one
                out.append(Text(buf[start : start + 1]))
                return start + 1, False
            self._wait_len, self._wait_for = 10, "]"
            return start, True
        if end - start > 9:
            out.append(Text(buf[start : start + 1]))
            return start + 1, False
        out.append(Text(buf[start + 1 : end].upper()))
        return end + 1, False


def bracket_reference(text: str) -> str:
    return re.sub(r"\[([^\]]{0,8})\]", lambda m: m.group(1).upper(), text)


@given(
    st.lists(st.sampled_from(["a", "[", "]", "bc", "[x]", "defgh"]), max_size=30).map("".join),
    st.lists(st.integers(1, 12), max_size=10),
)
def test_a_waiting_tail_gives_one_result_in_any_chunking(text: str, cuts: list[int]) -> None:
    whole = testing.coalesce(testing.run(Brackets(), [text]))
    assert testing.coalesce(testing.run(Brackets(), testing.chunk_at(text, cuts))) == whole
    assert "".join(str(v) for _, v in whole) == bracket_reference(text)


def test_a_waiting_tail_runs_no_step_until_its_character_or_its_length() -> None:
    p = Brackets()
    assert p.feed("a[b") == [Text("a")] and p.steps_run == 1
    assert p.feed("c") == [] and p.feed("d") == [] and p.steps_run == 1  # joined, unread
    assert p._tail == "[bcd"
    assert p.feed("e]f") == [Text("BCDE"), Text("f")]
    assert p.steps_run == 3  # the bracket, then the text after it
    assert p._wait_len == 0  # the wait ended with the step that ran
    p.feed("[")
    runs = p.steps_run
    p.feed("xxxxxxxxxx")  # past its length: the step runs (and the bracket is text)
    assert p.steps_run == runs + 2  # the bracket (text now), then the text after it
    q = Words()  # a parser that never waits runs a step for every chunk
    q.feed("<")
    assert q.feed("x") == [Text("<x")]
