"""``response_parser``: response templates read as a stream, against the one-shot dict.

Every text is read in every chunking (whole, 1 character, 7 characters, and random cuts
drawn by hypothesis under the ``ci`` profile): the coalesced events are the same in each,
and equal the one-shot dict's ``content``, thinking and ``tool_calls`` (tests/rt_stream.py
says how a field that does not repeat is compared), ``message()`` equals
``parse_response``'s dict or raises the same exception type, and where the one-shot parse
raises, the stream reports a ``StreamError`` and never raises.

The texts: transformers' own response-parsing fixtures (tests/fixtures/response_templates/,
ported as data with attribution), every collected template's samples (tests/rt_corpus.py)
cut at every position (truncated), with a slice deleted or a piece inserted (malformed),
and outputs drawn from each template's vocabulary.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import transformers_ref as ref
from rt_corpus import Collected, collect, pieces
from rt_stream import expected, outcome
from streamcall.events import StreamError, Text, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.response_templates import _patterns, stream
from streamcall.response_templates.stream import response_parser
from streamcall.testing import chunk_at, chunk_every, coalesce, run
from streamcall.text import fast

pytestmark = pytest.mark.skipif(
    not _patterns.REGEX_INSTALLED, reason="the regex package (the templates extra) is missing"
)

DATA = ref.load_cases()


def _valid(template: Any) -> bool:
    try:
        response_parser(template)
    except (ValueError, TypeError, KeyError):
        return False
    return True


def check_text(
    template: Any,
    text: str,
    *,
    prefix: str = "",
    tools: Any = None,
    chunkings: list[list[str]] | None = None,
) -> None:
    """The stream of ``text`` in every chunking against the one-shot outcome."""
    exact, want, _ = expected(template, text, prefix=prefix, tools=tools)
    runs = [[text], chunk_every(text, 1), chunk_every(text, 7), *(chunkings or [])]
    first = None
    for chunks in runs:
        got, message = outcome(template, chunks, prefix=prefix, tools=tools)
        context = f"text={text!r} chunks={chunks!r}"
        if first is None:
            first = got
        assert got == first, f"{context}: {got} vs {first}"
        if exact[0] == "raises":
            assert got.failed, f"{context}: one-shot raised {exact[1]}, the stream reported nothing"
            assert message[0] == "raises" and message[1] is exact[1], context
        else:
            assert message == exact, context
            assert want is not None
            assert not got.failed, context
            assert got == want, f"{context}: {got} vs {want}"


CASES = [
    c
    for c in DATA["cases"]
    if c["kind"] != "flush" and _valid(ref.case_template(DATA, c)) and c["prefix"] is not None
]


def test_fixture_count() -> None:
    """Every valid-template fixture with a prompt runs (the others fail at loading, as
    they must, or test the required prompt, which the streaming reader defaults)."""
    assert len(CASES) >= 70, len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
@given(data=st.data())
def test_fixture_in_every_chunking(case: dict[str, Any], data: st.DataObject) -> None:
    template = ref.case_template(DATA, case)
    text = case["text"] if isinstance(case["text"], str) else "".join(case["text"])
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=12), "cuts")
    chunkings = [chunk_at(text, cuts)]
    if not isinstance(case["text"], str):
        chunkings.append(list(case["text"]))
    check_text(template, text, prefix=case["prefix"], tools=case.get("tools"), chunkings=chunkings)


def test_fixture_flush() -> None:
    """The one streaming-only fixture: a literal-list closer holds back only what may
    still be a closer, so one feed of plain text releases all of it."""
    (case,) = [c for c in DATA["cases"] if c["kind"] == "flush"]
    parser = response_parser(ref.case_template(DATA, case), prefix=case["prefix"])
    released = "".join(e.text for e in parser.feed(case["text"]) if isinstance(e, Text))
    assert released == case["expected"]["flushed"]


DIFFERENCES = ref.load_differences()


@pytest.mark.parametrize("difference", DIFFERENCES["disagreements"], ids=lambda d: d["id"])
def test_stream_differences_follow_the_one_shot(difference: dict[str, Any]) -> None:
    """Where transformers' streaming parser and its one-shot parse disagree (a half
    delimiter released as content), the stream gives the one-shot dict in every
    chunking, transformers' own included."""
    template = ref.resolve_template(difference["template"])
    text = "".join(difference["chunks"])
    check_text(template, text, prefix=difference["prefix"], chunkings=[difference["chunks"]])
    _, message = outcome(template, difference["chunks"], prefix=difference["prefix"])
    assert message == ("value", json.dumps(difference["one_shot"], ensure_ascii=False))


@pytest.mark.parametrize("quirk", DIFFERENCES["quirks"], ids=lambda q: q["id"])
def test_one_shot_quirks_stream(quirk: dict[str, Any]) -> None:
    check_text(ref.resolve_template(quirk["template"]), quirk["text"], prefix=quirk["prefix"])


# --- the collected templates: samples, truncated, malformed, generated -------------------

CORPUS = [e for e in collect() if _valid(e.template)]
PIECES = {e.id: pieces(e) for e in CORPUS}
WITH_SAMPLES = [e for e in CORPUS if e.samples]


@pytest.mark.parametrize("entry", WITH_SAMPLES, ids=lambda e: e.id)
def test_every_truncation(entry: Collected) -> None:
    for sample in entry.samples:
        for end in range(len(sample) + 1):
            check_text(entry.template, sample[:end], tools=entry.tools[0])


@pytest.mark.parametrize("entry", WITH_SAMPLES, ids=lambda e: e.id)
@given(data=st.data())
def test_malformed_samples(entry: Collected, data: st.DataObject) -> None:
    sample = data.draw(st.sampled_from(entry.samples), "sample")
    a = data.draw(st.integers(0, len(sample)), "a")
    b = data.draw(st.integers(a, len(sample)), "b")
    if data.draw(st.booleans(), "delete"):
        text = sample[:a] + sample[b:]
    else:
        text = sample[:a] + data.draw(st.sampled_from(PIECES[entry.id]), "insert") + sample[a:]
    prefix = data.draw(st.sampled_from(["", *entry.prompts]), "prefix")
    tools = data.draw(st.sampled_from([None, *entry.tools]), "tools")
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=12), "cuts")
    check_text(entry.template, text, prefix=prefix, tools=tools, chunkings=[chunk_at(text, cuts)])


@pytest.mark.parametrize("entry", CORPUS, ids=lambda e: e.id)
@given(data=st.data())
def test_generated_outputs(entry: Collected, data: st.DataObject) -> None:
    vocabulary = PIECES[entry.id]
    text = data.draw(st.lists(st.sampled_from(vocabulary), max_size=14).map("".join), "text")
    prefix = data.draw(st.sampled_from(["", *entry.prompts]), "prefix")
    tools = data.draw(st.sampled_from([None, *entry.tools]), "tools")
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=12), "cuts")
    check_text(entry.template, text, prefix=prefix, tools=tools, chunkings=[chunk_at(text, cuts)])


# --- events: arguments as they are written, errors, the engine ------------------------------

ARGS_TEMPLATE = {
    "start_anchor": "<s>",
    "fields": {
        "tool_calls": {
            "open_pattern": r"<call name=(?P<name>\w+)>",
            "close": "</call>",
            "repeats": True,
            "content": "json",
            "transform": {
                "type": "function",
                "function": {"name": "{name}", "arguments": "{content}"},
            },
        },
        "content": {"repeats": True, "join": "", "content_args": {"strip": False}},
    },
}


def test_arguments_stream_as_they_are_written() -> None:
    parser = response_parser(ARGS_TEMPLATE)
    text = 'Hi <call name=get_weather>{"city": "Par'
    events = parser.feed(text)
    assert events[0] == Text("Hi ")
    assert events[1] == ToolCallStart(0, "call_0", "get_weather")
    deltas = "".join(e.delta for e in events if isinstance(e, ToolCallArgs))
    assert deltas.startswith('{"city": "Par')
    more = parser.feed('is"}</call> bye') + parser.finish()
    assert ToolCallEnd(0, '{"city": "Paris"}') in more
    assert parser.message()["tool_calls"][0]["function"]["arguments"] == {"city": "Paris"}


def test_a_cut_call_ends_incomplete_with_arguments_that_load() -> None:
    for chunks in (['<call name=f>{"a": [1, "x'], chunk_every('<call name=f>{"a": [1, "x', 1)):
        parser = response_parser(ARGS_TEMPLATE)
        events = run(parser, chunks)
        (end,) = [e for e in events if isinstance(e, ToolCallEnd)]
        assert end.incomplete
        assert json.loads(end.arguments) == {"a": [1, "x"]}
        assert any(isinstance(e, StreamError) for e in events)
        with pytest.raises(ValueError):
            parser.message()


def test_a_broken_region_is_text_and_an_error() -> None:
    template = {
        "start_anchor": "<s>",
        "fields": {
            "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "content": "json"},
            "content": {},
        },
    }
    parser = response_parser(template)
    events = run(parser, chunk_every("<tool_call>{oops</tool_call>", 3))
    errors = [e for e in events if isinstance(e, StreamError)]
    assert len(errors) == 1 and "tool_calls" in errors[0].message
    assert errors[0].where == "offset 0"
    assert coalesce(events) == [("text", "<tool_call>{oops</tool_call>")]


def test_a_missing_required_field_is_an_error_at_the_end() -> None:
    template = {"start_anchor": "<s>", "fields": {"content": {"optional": False}}}
    parser = response_parser(template)
    events = run(parser, [""])
    assert [e.where for e in events if isinstance(e, StreamError)] == ["end of stream"]
    with pytest.raises(ValueError, match="Required"):
        parser.message()


def test_pattern_anchors_need_the_regex_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "regex_module", lambda: None)
    with pytest.raises(ValueError, match=r"Field 'content'.*templates"):
        response_parser({"start_anchor": "<s>", "fields": {"content": {"close_pattern": "$"}}})
    # literal anchors need nothing
    parser = response_parser({"start_anchor": "<s>", "fields": {"content": {"close": "<e>"}}})
    assert coalesce(run(parser, chunk_every("ab<e>c", 1))) == [("text", "abc")]
    # the field does not repeat: the dict keeps its last region, the events show both
    assert parser.message() == {"content": "c"}


# Linear time is not asserted here (timings do not belong in the test suite, on shared
# machines): ``python -m benchmarks templates`` measures it (growth exponents from 4 KB to
# 1 MB, a lookahead-opened field and streamed arguments included).


# --- the fast reads --------------------------------------------------------------------------


@pytest.mark.parametrize("entry", WITH_SAMPLES, ids=lambda e: e.id)
@given(data=st.data())
def test_fast_reads_change_nothing(entry: Collected, data: st.DataObject) -> None:
    """The same events with the fast reads on and on their reference path, any chunking."""
    vocabulary = PIECES[entry.id] + entry.samples
    text = data.draw(st.lists(st.sampled_from(vocabulary), max_size=8).map("".join), "text")
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=12), "cuts")
    for chunks in (chunk_at(text, cuts), chunk_every(text, 7)):
        fast_events = run(response_parser(entry.template), chunks)
        with fast.reference():
            reference_events = run(response_parser(entry.template), chunks)
        # (the argument deltas may be cut at other places: compared coalesced)
        assert coalesce(fast_events) == coalesce(reference_events), chunks


def test_the_lead_read_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk with none of the watched anchors' first characters is read with no search
    (the general look does not run); with the fast reads off it does."""
    template = ref.load_ecosystem()["trl"]["qwen3"]
    calls: list[int] = []
    look = stream.look

    def counting(*args: Any) -> Any:
        calls.append(1)
        return look(*args)

    monkeypatch.setattr(stream, "look", counting)
    parser = response_parser(template)
    parser.feed("plain text with no markers")
    assert calls == []
    with fast.reference():
        parser = response_parser(template)
        parser.feed("plain text with no markers")
    assert calls


def test_a_body_that_is_no_object_is_no_call() -> None:
    """Where the arguments would stream, the call starts at the body's '{': a body that is
    another JSON value gives no call, as the dict has none (found by the differential
    test with TRL's gpt-oss template)."""
    template = ref.load_ecosystem()["trl"]["gptoss"]
    text = "to=functions.get_weather<|channel|>commentary json<|message|>true"
    check_text(template, text)
    for chunks in ([text], chunk_every(text, 1)):
        assert not any(isinstance(e, ToolCallStart) for e in run(response_parser(template), chunks))
