"""The ported transformers fixtures reproduce with transformers itself.

This pins the reference, not streamcall: if transformers changes behaviour, these fail and
say which case moved. Skipped where transformers is not installed.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference import check_transformers_fixtures as check
from reference import transformers_ref as ref

DATA = ref.load_cases()

pytestmark = pytest.mark.skipif(
    ref.skip_reason() is not None, reason=ref.skip_reason() or "transformers is installed"
)


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["id"])
def test_case_reproduces(case: dict[str, Any]) -> None:
    assert check.check_case(DATA, case) == []


@pytest.mark.parametrize("case", DATA["coerce_cases"], ids=lambda c: f"{c['raw']}-{c['types']}")
def test_coerce(case: dict[str, Any]) -> None:
    assert ref.coerce(case["raw"], case["types"]) == case["expected"]


@pytest.mark.parametrize("case", DATA["schema_types_cases"], ids=str)
def test_schema_types(case: dict[str, Any]) -> None:
    assert ref.schema_types(case["schema"]) == case["expected"]


@pytest.mark.parametrize("case", DATA["coerce_call_cases"], ids=str)
def test_coerce_tool_calls(case: dict[str, Any]) -> None:
    assert ref.coerce_tool_calls(case["tools"], case["value"]) == case["expected"]


def test_callable_tool_schema() -> None:
    (case,) = [c for c in DATA["cases"] if c["id"] == "callable_tools_schema"]
    assert ref.json_schema(check.set_alarm) == case["tools"][0]


DIFFERENCES = ref.load_differences()


@pytest.mark.parametrize("difference", DIFFERENCES["disagreements"], ids=lambda d: d["id"])
def test_documented_stream_difference(difference: dict[str, Any]) -> None:
    assert check.check_difference(difference) == []


@pytest.mark.parametrize("quirk", DIFFERENCES["quirks"], ids=lambda q: q["id"])
def test_documented_one_shot_quirk(quirk: dict[str, Any]) -> None:
    got = ref.parse(ref.resolve_template(quirk["template"]), quirk["text"], prefix=quirk["prefix"])
    assert (got.value, got.error) == (quirk["one_shot"], None)


def test_fixture_ids_are_unique() -> None:
    ids = [c["id"] for c in DATA["cases"]]
    assert len(ids) == len(set(ids))
