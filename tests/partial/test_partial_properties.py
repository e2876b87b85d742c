"""Properties of the syntax and UI layers, over generated and real documents cut everywhere.

never raises; always json.loads-able; idempotent; boundary-insensitive; prefix-stable.
"""

from __future__ import annotations

import json
from typing import Any

from _partial_docs import REAL_DOCS, assert_prefix_compatible
from hypothesis import given
from hypothesis import strategies as st

from streamcall import PartialJSON, call_view, parse_partial_json, repair_json

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    value = draw(json_values)
    style = draw(st.sampled_from(["compact", "default", "indent", "ascii"]))
    if style == "compact":
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if style == "indent":
        return json.dumps(value, indent=2, ensure_ascii=False)
    if style == "ascii":
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def check_every_prefix(doc: str) -> None:
    final = json.loads(doc)
    assert repair_json(doc) == doc  # valid JSON comes back unchanged
    for k in range(len(doc) + 1):
        prefix = doc[:k]
        out = repair_json(prefix)
        value = json.loads(out)  # always loadable
        assert repair_json(out) == out  # idempotent
        assert parse_partial_json(prefix) == value
        assert_prefix_compatible(value, final)  # prefix-stable


def check_chunkings(doc: str, cuts: list[int]) -> None:
    """PartialJSON fed in any chunking equals the one-shot parse after every chunk."""
    bounds = sorted({c for c in cuts if 0 < c < len(doc)})
    for plan in ([len(doc)], list(range(1, len(doc))), list(range(7, len(doc), 7)), bounds):
        pj = PartialJSON()
        start = 0
        for end in [*plan, len(doc)]:
            pj.feed(doc[start:end])
            start = end
            assert pj.value == parse_partial_json(doc[:end])
        if doc.rstrip()[-1:] in ('"', "}", "]"):
            # A bare number or keyword at the very end may still go on: not complete yet.
            assert pj.complete == (repair_json(doc) == doc)


@given(documents())
def test_generated_documents_cut_everywhere(doc: str) -> None:
    check_every_prefix(doc)


@given(documents(), st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_generated_documents_any_chunking(doc: str, cuts: list[int]) -> None:
    check_chunkings(doc, cuts)


def test_real_tool_calls_cut_everywhere() -> None:
    for doc in REAL_DOCS:
        check_every_prefix(doc)


@given(st.sampled_from(REAL_DOCS), st.lists(st.integers(min_value=0, max_value=400), max_size=20))
def test_real_tool_calls_any_chunking(doc: str, cuts: list[int]) -> None:
    check_chunkings(doc, cuts)


noise_alphabet = (
    st.sampled_from(list('{}[]:," \\\n\tu0123456789.eE+-truefalsnNaIfiy\x01é😀')) | st.characters()
)


@given(st.text(noise_alphabet, max_size=60), st.lists(st.integers(0, 60), max_size=6))
def test_arbitrary_text_never_raises_and_always_loads(text: str, cuts: list[int]) -> None:
    out = repair_json(text)
    value = json.loads(out)
    assert repair_json(out) == out
    parsed: Any = parse_partial_json(text)
    assert parsed == value or (parsed != parsed and value != value)  # NaN
    check_chunkings_noise(text, cuts)
    call_view(text)


def check_chunkings_noise(text: str, cuts: list[int]) -> None:
    bounds = sorted({c for c in cuts if 0 < c < len(text)})
    pj = PartialJSON()
    start = 0
    for end in [*bounds, len(text)]:
        pj.feed(text[start:end])
        start = end
    assert repr(pj.value) == repr(parse_partial_json(text))


@given(documents())
def test_junk_after_a_document_changes_nothing(doc: str) -> None:
    assert (
        json.loads(repair_json(doc + " xyz")) == json.loads(doc)
        or doc.lstrip()[0] in "-0123456789tfnNI"
    )


# --- call_view ---------------------------------------------------------------------------

call_args = st.dictionaries(st.text(max_size=6), json_values, max_size=4)


@st.composite
def call_documents(draw: st.DrawFn) -> str:
    name = draw(st.text(min_size=1, max_size=8))
    args = draw(call_args)
    shape = draw(st.sampled_from(["openai", "anthropic", "generic", "parameters", "function"]))
    if shape == "openai":
        call: dict[str, Any] = {"name": name, "arguments": json.dumps(args)}
    elif shape == "anthropic":
        call = {"name": name, "input": args}
    elif shape == "generic":
        call = {"tool": name, "args": args}
    elif shape == "parameters":
        call = {"name": name, "parameters": args}
    else:
        call = {"type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
    return json.dumps(call, ensure_ascii=draw(st.booleans()))


def check_view_prefixes(doc: str) -> None:
    final = call_view(doc)
    assert final.status == "complete"
    for k in range(len(doc) + 1):
        view = call_view(doc[:k])
        assert view.status == ("complete" if k == len(doc) else "parsing")
        assert isinstance(view.args, dict)
        assert_prefix_compatible(view.args, final.args)
        if view.name is not None and final.name is not None:
            assert final.name.startswith(view.name)


@given(call_documents())
def test_call_view_args_are_prefix_stable(doc: str) -> None:
    check_view_prefixes(doc)


def test_call_view_real_documents_prefix_stable() -> None:
    for doc in REAL_DOCS:
        check_view_prefixes(doc)


@given(documents(), st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_live_mode_any_chunking(doc: str, cuts: list[int]) -> None:
    bounds = sorted({c for c in cuts if 0 < c < len(doc)})
    pj = PartialJSON(live=True)
    start = 0
    for end in [*bounds, len(doc)]:
        pj.feed(doc[start:end])
        start = end
        assert pj.value == parse_partial_json(doc[:end])
