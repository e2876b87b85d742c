"""The response templates streamcall writes for its own formats, proven.

- Every registered format has a template or a documented reason why the spec cannot
  express it.
- The format's own output (its ``render``, for hypothesis-drawn calls, with text before
  and after, and the tools' schema): the template's dict is streamcall's, exactly
  (``parse_tool_calls`` mapped to the dict, tests/rt_formats.py).
- The format's test strings (tests/fixtures/response_templates/format_texts.json, every
  text streamcall's format tests read one-shot): each text reads as its recorded
  category says (``equal``, or a named reason why the two differ: a cut call, markup
  streamcall keeps as text, ...; ``rt_formats`` defines them), so that a template change
  that reads a text differently fails here.

Each runs with streamcall's ``parse_response`` everywhere and, where transformers is
installed (scripts/test-transformers), with transformers' own ``parse_response`` too,
which must give the same dict or raise the same exception type.
"""

from __future__ import annotations

import collections
import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import streamcall
from reference import transformers_ref as ref
from rt_formats import CATEGORIES, classify, streamcall_message
from rt_stream import READ_AS
from rt_support import engine_params, pattern_engine
from streamcall.formats.registry import parser_class
from streamcall.response_templates import compile_template, parse_response
from streamcall.response_templates.export import EXPORTED, UNEXPRESSIBLE
from support import calls, same, schema_for

_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "response_templates"
_DATA = json.loads((_FIXTURE / "format_texts.json").read_text(encoding="utf-8"))
# Each text's tools are an index into the file's "tools" lists.
FORMAT_TEXTS = {
    fmt: [
        {**e, "tools": None if e["tools"] is None else _DATA["tools"][e["tools"]]} for e in entries
    ]
    for fmt, entries in _DATA["formats"].items()
}
HAVE_TRANSFORMERS = ref.skip_reason() is None


def _theirs(text: str, template: Any, tools: Any) -> Any:
    from transformers.utils.chat_parsing import parse_response as transformers_parse

    try:
        return transformers_parse(
            text, copy.deepcopy(template), prefix="", tools=copy.deepcopy(tools)
        )
    except Exception as exc:
        return exc


def _same(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, Exception) or isinstance(theirs, Exception):
        return type(ours) is type(theirs)
    return json.dumps(ours) == json.dumps(theirs)


def test_every_format_is_exported_or_explained() -> None:
    names = set(streamcall.formats())
    assert names == set(EXPORTED) | set(UNEXPRESSIBLE)
    assert not set(EXPORTED) & set(UNEXPRESSIBLE)
    assert len(EXPORTED) == 58, len(EXPORTED)


def test_response_template_for() -> None:
    template = streamcall.response_template_for("hermes")
    assert template == dict(EXPORTED["hermes"].template)
    assert template is not None
    template["fields"].clear()  # a fresh copy each time
    assert streamcall.response_template_for("hermes") == dict(EXPORTED["hermes"].template)
    for name in UNEXPRESSIBLE:
        assert streamcall.response_template_for(name) is None
    with pytest.raises(ValueError, match="unknown tool-call format 'nope'"):
        streamcall.response_template_for("nope")


@pytest.mark.parametrize("engine", engine_params())
@pytest.mark.parametrize("fmt", sorted(EXPORTED))
def test_template_loads(fmt: str, engine: str) -> None:
    with pattern_engine(engine):
        compiled = compile_template(EXPORTED[fmt].template)
    assert compiled.field("tool_calls").open is not None
    assert json.loads(json.dumps(EXPORTED[fmt].template)) == EXPORTED[fmt].template


# --- the format's own output ------------------------------------------------------------------


@pytest.mark.parametrize("fmt", sorted(EXPORTED))
@given(
    call_list=calls,
    before=st.sampled_from(["", "Sure. ", "Let me check.\n"]),
    after=st.sampled_from(["", " Done.", "\nDone.", "\n"]),
)
def test_the_formats_own_output(
    fmt: str, call_list: list[tuple[str, dict[str, Any]]], before: str, after: str
) -> None:
    by_name: dict[str, dict[str, Any]] = {}
    for name, args in call_list:
        by_name.setdefault(name, {}).update(args)
    call_list = [(name, by_name[name]) for name, _ in call_list]
    cls = parser_class(fmt)
    rendered = cls.render(call_list)
    if getattr(cls, "WHOLE_OUTPUT", False):
        text = rendered + (f"\n{before}" if before else "") + after
    else:
        text = before + rendered + after
    tools = schema_for(call_list)
    template = EXPORTED[fmt].template
    want, incomplete = streamcall_message(text, fmt, tools)
    assert not incomplete
    got = parse_response(text, template, prefix="", tools=tools, transformers_version=READ_AS)
    assert got == want, (text, got, want)
    # streamcall itself reads its own output back: the calls are the ones written
    written = [{"type": "function", "function": {"name": n, "arguments": a}} for n, a in call_list]
    assert same(got.get("tool_calls"), written)
    if HAVE_TRANSFORMERS:
        assert _same(got, _theirs(text, template, tools))


# --- the format's test strings ----------------------------------------------------------------


def test_format_texts_cover_every_exported_format() -> None:
    assert set(FORMAT_TEXTS) == set(EXPORTED)
    for fmt, entries in FORMAT_TEXTS.items():
        assert len(entries) >= 20, fmt
        assert {e["category"] for e in entries} <= set(CATEGORIES)


@pytest.mark.parametrize("fmt", sorted(FORMAT_TEXTS))
def test_the_formats_test_strings(fmt: str) -> None:
    moved = []
    for entry in FORMAT_TEXTS[fmt]:
        category, _want, got = classify(fmt, entry["text"], entry["tools"])
        if category != entry["category"]:
            moved.append(f"{entry['text']!r}: {entry['category']} -> {category} ({got!r})")
        if HAVE_TRANSFORMERS:
            assert _same(got, _theirs(entry["text"], EXPORTED[fmt].template, entry["tools"])), entry
    assert not moved, "\n".join(moved[:10])


def test_format_text_counts() -> None:
    """The totals docs/response-templates.md quotes."""
    counts = collections.Counter(
        e["category"] for entries in FORMAT_TEXTS.values() for e in entries
    )
    assert sum(counts.values()) == sum(len(v) for v in FORMAT_TEXTS.values())
    assert counts["equal"] > 0
    doc = (Path(__file__).resolve().parents[2] / "docs" / "response-templates.md").read_text(
        encoding="utf-8"
    )
    quoted = dict(re.findall(r"^  \| `(\w+)` \| (\d+) \| ", doc, re.MULTILINE))
    assert {k: int(v) for k, v in quoted.items()} == dict(counts)
    assert f"the {sum(counts.values())} one-shot texts" in doc


def test_cli_prints_a_template(capsys: pytest.CaptureFixture[str]) -> None:
    from streamcall.cli import main

    assert main(["formats", "--response-template", "qwen3_coder"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == streamcall.response_template_for("qwen3_coder")
    assert err == ""
    assert main(["formats", "--response-template", "apertus"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "cannot express 'apertus'" in err and "JSON key" in err
    assert main(["formats", "--response-template", "nope"]) == 2
    assert "unknown tool-call format 'nope'" in capsys.readouterr().err


def test_docs_table_is_current() -> None:
    from reference.harvest_format_texts import markdown

    doc = (Path(__file__).resolve().parents[2] / "docs" / "response-templates.md").read_text(
        encoding="utf-8"
    )
    start = doc.index(
        "<!-- generated: python tests/reference/harvest_format_texts.py --markdown -->\n"
    )
    end = doc.index("<!-- end generated -->")
    assert doc[start:end].split("\n", 1)[1] == markdown()
