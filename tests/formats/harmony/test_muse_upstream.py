"""``muse``, ``musespark``, ``musespark1x`` and ``muse_glimmer`` against their upstream fixtures.

The cases (``tests/fixtures/upstream/muse.json`` and ``muse_glimmer.json``: vLLM's
``tests/tool_parsers/test_muse*`` and ``tests/reasoning/test_muse*``, SGLang's
``TestMuseGlimmerDetector``, Apache-2.0) run through ``output_parser`` with both stages, in
every chunking (the upstream test's own chunk sizes included), and again through the
tool parser alone, which reads the whole stream itself (its reasoning included) and must
give the same result. ``muse.json`` holds Spark's expectations, for ``muse`` and for
``musespark`` and ``musespark1x`` (the same parser: vLLM 0.34's and 0.33's alias); ``muse_glimmer.json`` Glimmer's.
"""

from __future__ import annotations

from typing import Any

import pytest

from streamcall.output import output_parser
from support import check_upstream_case, upstream_cases

# The one upstream expectation not copied, in both files.
_TRUNCATED = (
    "SGLang and vLLM drop a call cut off by the end of the stream; streamcall reports it "
    "incomplete with what was written ({'city': 'Par'}): test_truncated_tool_call_is_incomplete"
)
SKIP = {"sglang_truncated_tool_channel": _TRUNCATED}


@pytest.mark.parametrize("fmt", ["muse", "musespark", "musespark1x"])
@pytest.mark.parametrize("case", upstream_cases("muse", skip=SKIP))
def test_spark_cases(case: dict[str, Any], fmt: str) -> None:
    check_upstream_case(case, fmt, fmt)


@pytest.mark.parametrize("case", upstream_cases("muse_glimmer", skip=SKIP))
def test_glimmer_cases(case: dict[str, Any]) -> None:
    check_upstream_case(case, "muse_glimmer", "muse_glimmer")


@pytest.mark.parametrize(
    ("fixture", "fmt"),
    [
        ("muse", "muse"),
        ("muse", "musespark"),
        ("muse", "musespark1x"),
        ("muse_glimmer", "muse_glimmer"),
    ],
)
def test_the_tool_parser_alone_reads_the_same(fixture: str, fmt: str) -> None:
    """Without a reasoning stage the tool parser splits reasoning off itself, the same way."""
    for param in upstream_cases(fixture, skip=SKIP):
        (case,) = param.values
        if case["id"] in SKIP:
            continue
        check_upstream_case(case, fmt, "none")


@pytest.mark.parametrize("fmt", ["muse", "muse_glimmer"])
def test_truncated_tool_call_is_incomplete(fmt: str) -> None:
    """The skipped case, as streamcall reads it: the cut call is reported, incomplete."""
    text = (
        " to=self<|message|>Need weather.<|eom|><|start|>assistant "
        "to=get_weather.get_weather<|message|><atem:function_calls>\n"
        '<atem:invoke name="get_weather.get_weather">\n<atem:parameter name="city">Par'
    )
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    parser = output_parser(tools=tools, tool_format=fmt, reasoning_format=fmt)
    events = parser.feed(text) + parser.finish()
    from streamcall import testing

    assert testing.coalesce(events) == [
        ("reasoning", "Need weather."),
        ("call", testing.Call(0, "call_0", "get_weather", '{"city":"Par"}', True)),
    ]
