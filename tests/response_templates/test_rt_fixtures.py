"""transformers' own response-parsing fixtures through streamcall's ``parse_response``.

The data is transformers' ``tests/utils/test_chat_parsing.py`` ported as data
(tests/fixtures/response_templates/, with its attribution). Every case runs one-shot in
both pattern engines (the ``regex`` package, as transformers compiles, and Python's
``re``). The one ``flush`` case asserts what a single streaming ``feed`` releases before
the end: a streaming property with no one-shot reading, so it is counted here and left
to the streaming parser's tests. ``stream`` cases are read one-shot from their joined
chunks (their expected dict is the whole text's).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference import transformers_ref as ref
from rt_support import engine_params, ours, pattern_engine
from streamcall.response_templates import tooltypes

DATA = ref.load_cases()
ONE_SHOT = [c for c in DATA["cases"] if c["kind"] != "flush"]
STREAMING_ONLY = [c for c in DATA["cases"] if c["kind"] == "flush"]


def test_case_counts() -> None:
    assert len(DATA["cases"]) == 85
    assert [c["id"] for c in STREAMING_ONLY] == ["literal_list_streams_without_64_byte_hold"]


@pytest.mark.parametrize("engine", engine_params())
@pytest.mark.parametrize("case", ONE_SHOT, ids=lambda c: c["id"])
def test_fixture(case: dict[str, Any], engine: str) -> None:
    text = case["text"] if isinstance(case["text"], str) else "".join(case["text"])
    with pattern_engine(engine):
        got = ours(
            ref.case_template(DATA, case), text, prefix=case["prefix"], tools=case.get("tools")
        )
    assert ref.check_outcome(case, got) is None, ref.check_outcome(case, got)


@pytest.mark.parametrize("case", DATA["coerce_cases"], ids=lambda c: f"{c['raw']}-{c['types']}")
def test_coerce(case: dict[str, Any]) -> None:
    assert tooltypes.coerce(case["raw"], case["types"]) == case["expected"]


@pytest.mark.parametrize("case", DATA["schema_types_cases"], ids=str)
def test_schema_types(case: dict[str, Any]) -> None:
    assert list(tooltypes.schema_types(case["schema"])) == case["expected"]


@pytest.mark.parametrize("case", DATA["coerce_call_cases"], ids=str)
def test_coerce_tool_calls(case: dict[str, Any]) -> None:
    parameters = tooltypes.tool_parameters(case["tools"])
    assert tooltypes.coerce_tool_calls(case["value"], parameters) == case["expected"]


def test_field_is_named_in_parse_errors() -> None:
    (case,) = [c for c in DATA["cases"] if c["id"] == "transform_dotted_path_missing_key"]
    got = ours(ref.case_template(DATA, case), case["text"], prefix=case["prefix"])
    assert got.error == "ValueError"
    assert got.message.startswith("Field '"), got.message


def test_python_functions_as_tools_are_refused() -> None:
    def set_alarm(hour: int) -> None:
        """Set an alarm."""

    template = {"start_anchor": "<s>", "fields": {"content": {}}}
    got = ours(template, "hi", tools=[set_alarm])
    assert got.error == "TypeError"
    assert "set_alarm" in got.message and "JSON schema" in got.message


DIFFERENCES = ref.load_differences()


@pytest.mark.parametrize("engine", engine_params())
@pytest.mark.parametrize("difference", DIFFERENCES["disagreements"], ids=lambda d: d["id"])
def test_one_shot_side_of_stream_differences(difference: dict[str, Any], engine: str) -> None:
    """Where transformers' stream and one-shot parse disagree, the one-shot dict is ours."""
    template = ref.resolve_template(difference["template"])
    with pattern_engine(engine):
        got = ours(template, "".join(difference["chunks"]), prefix=difference["prefix"])
    assert (got.value, got.error) == (difference["one_shot"], None)


@pytest.mark.parametrize("engine", engine_params())
@pytest.mark.parametrize("quirk", DIFFERENCES["quirks"], ids=lambda q: q["id"])
def test_one_shot_quirks(quirk: dict[str, Any], engine: str) -> None:
    with pattern_engine(engine):
        got = ours(ref.resolve_template(quirk["template"]), quirk["text"], prefix=quirk["prefix"])
    assert (got.value, got.error) == (quirk["one_shot"], None)


ECOSYSTEM = ref.load_ecosystem()
NAMED = [(s, n) for s in ("trl", "transformers_serve") for n in ECOSYSTEM[s]]


@pytest.mark.parametrize("engine", engine_params())
@pytest.mark.parametrize(("source", "name"), NAMED)
def test_ecosystem_templates_load(source: str, name: str, engine: str) -> None:
    with pattern_engine(engine):
        got = ours(ECOSYSTEM[source][name], "")
    assert got.error is None, got.describe()
