"""What transformers 5.25 changed in reading text, pinned for both releases.

Each case gives the dict (or the exception type) streamcall reads with
``transformers_version="5.24"`` and ``"5.25"``; where transformers is installed
(``scripts/test-transformers VERSION``), its own ``parse_response`` must give the one of its
release. The templates are tests/rt_corpus.py's constructed ones, which the differential
test also reads with generated, cut and malformed outputs.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference import transformers_ref as ref
from rt_corpus import CONSTRUCTED, WEATHER_TOOLS
from streamcall.response_templates import parse_response, response_parser
from streamcall.response_templates.versions import rules_for


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


# (constructed template, sample index, tools?, 5.24's outcome, 5.25's outcome)
CASES: list[tuple[str, int, bool, Any, Any]] = [
    # value_parser_by picks each value's parser by the tag's type attribute; 5.24 ignores it
    (
        "value_parser_by",
        0,
        False,
        {
            "tool_calls": [
                _call("get_weather", {"city": "Paris", "days": "3", "x": "5", "tags": '["a", 1]'})
            ]
        },
        {
            "tool_calls": [
                _call("get_weather", {"city": "Paris", "days": 3, "x": "5", "tags": ["a", 1]})
            ]
        },
    ),
    # ... and a field with value_parser_by is not typed by the tools in 5.25 (x stays "5")
    (
        "value_parser_by",
        0,
        True,
        {
            "tool_calls": [
                _call("get_weather", {"city": "Paris", "days": 3, "x": 5, "tags": ["a", 1]})
            ]
        },
        {
            "tool_calls": [
                _call("get_weather", {"city": "Paris", "days": 3, "x": "5", "tags": ["a", 1]})
            ]
        },
    ),
    (
        "value_parser_by",
        2,
        True,
        {"tool_calls": [_call("ping", {"days": 4, "y": None})]},
        {"tool_calls": [_call("ping", {"days": "4", "y": None})]},
    ),
    # the picked parser rejects the value: 5.25 raises, 5.24 keeps the text
    (
        "value_parser_by",
        1,
        False,
        {"content": "Hi", "tool_calls": [_call("f", {"x": ["7", "8"], "hour": "x"})]},
        ValueError,
    ),
    ("value_parser_by_unknown_group", 0, False, {"args": {"x": "1"}}, ValueError),
    ("value_parser_by_unknown_group", 1, False, {}, {}),  # no tag: no group to check
    ("value_parser_by_malformed", 0, False, {"args": {"x": "1"}}, ValueError),
    # json and python-call-list: a parameter allowing "string" keeps the string in 5.25
    (
        "typed_parsers_keep_strings",
        0,
        True,
        {
            "tool_calls": [
                _call("f", {"x": 5, "days": 3, "city": "7", "y": None, "tags": ["1", "a"]})
            ]
        },
        {
            "tool_calls": [
                _call("f", {"x": "5", "days": 3, "city": "7", "y": None, "tags": ["1", "a"]})
            ]
        },
    ),
    (
        "typed_parsers_keep_strings",
        2,
        True,
        {
            "calls": [
                _call("f", {"x": 5, "days": 3, "city": "7"}),
                _call("ping", {"x": [1, 2], "a": 2.5}),
            ]
        },
        {
            "calls": [
                _call("f", {"x": "5", "days": 3, "city": "7"}),
                _call("ping", {"x": ["1", "2"], "a": 2.5}),
            ]
        },
    ),
]


def _outcome(parse: Any, name: str, index: int, tools: bool, **kw: Any) -> Any:
    template, samples = CONSTRUCTED[name]
    try:
        return parse(
            samples[index],
            copy.deepcopy(template),
            prefix="",
            tools=copy.deepcopy(WEATHER_TOOLS) if tools else None,
            **kw,
        )
    except Exception as exc:
        return type(exc)


@pytest.mark.parametrize(("name", "index", "tools", "old", "new"), CASES)
def test_both_releases(name: str, index: int, tools: bool, old: Any, new: Any) -> None:
    assert _outcome(parse_response, name, index, tools, transformers_version="5.24") == old
    assert _outcome(parse_response, name, index, tools, transformers_version="5.25.0") == new
    assert _outcome(parse_response, name, index, tools) == new  # the newest by default


@pytest.mark.parametrize(("name", "index", "tools", "old", "new"), CASES)
def test_the_stream_reads_the_same(name: str, index: int, tools: bool, old: Any, new: Any) -> None:
    template, samples = CONSTRUCTED[name]
    for version, want in (("5.24", old), ("5.25", new)):
        parser = response_parser(
            copy.deepcopy(template),
            tools=copy.deepcopy(WEATHER_TOOLS) if tools else None,
            transformers_version=version,
        )
        for chunk in samples[index]:
            parser.feed(chunk)
        parser.finish()
        try:
            got: Any = parser.message()
        except Exception as exc:
            got = type(exc)
        assert got == want, version


@pytest.mark.skipif(ref.skip_reason() is not None, reason=f"{ref.skip_reason()}")
@pytest.mark.parametrize(("name", "index", "tools", "old", "new"), CASES)
def test_transformers_agrees(name: str, index: int, tools: bool, old: Any, new: Any) -> None:
    from transformers.utils.chat_parsing import parse_response as transformers_parse

    want = new if rules_for(ref.version()).release == "5.25" else old
    assert _outcome(transformers_parse, name, index, tools) == want


def test_versions() -> None:
    assert rules_for(None).release == "5.25"
    assert rules_for("5.24.0").release == "5.24"
    assert rules_for("5.13").release == "5.24"
    assert rules_for("5.25.0.dev0").release == "5.25"
    assert rules_for("6.0").release == "5.25"
    for bad in ("latest", "4.57.0", ""):
        with pytest.raises(ValueError, match="transformers_version"):
            rules_for(bad)
