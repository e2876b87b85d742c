"""The upstream fixture files (tests/fixtures/upstream/*.json) are well formed.

They are data for the formats of issue 16, not yet wired to parsers: this keeps their
shape what tests/fixtures/upstream/README.md documents, so a later suite can rely on it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

DIR = Path(__file__).parent.parent / "fixtures" / "upstream"
FILES = sorted(DIR.glob("*.json"))
LICENCES = {
    "vllm-project/vllm": "Apache-2.0",
    "oesni/vllm": "Apache-2.0",
    "sgl-project/sglang": "Apache-2.0",
    "ggml-org/llama.cpp": "MIT",
    "XHToken/Spark-plugin": "Apache-2.0",
}
CASE_KEYS = {
    "id", "parser", "source", "text", "content", "reasoning", "calls", "tools", "options",
    "chunks", "chunk_sizes", "partial", "unchecked", "constructed", "note", "vllm_0_33",
    "ids_unique",
}  # fmt: skip
CALL_KEYS = {"name", "arguments", "id", "id_pattern", "incomplete", "arguments_raw"}


def test_there_are_fixture_files() -> None:
    assert len(FILES) >= 20


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_fixture_file_shape(path: Path) -> None:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == path.stem
    assert data["kind"] in ("tool", "reasoning", "tool+reasoning")
    assert data["summary"]
    ids = [case["id"] for case in data["cases"]]
    assert ids, f"{path.name}: no cases"
    assert len(ids) == len(set(ids)), f"{path.name}: duplicate case ids"
    for case in data["cases"]:
        where = f"{path.name}:{case['id']}"
        assert set(case) <= CASE_KEYS, f"{where}: unknown keys {set(case) - CASE_KEYS}"
        assert case["parser"] in ("tool", "reasoning", "both"), where
        source = case["source"]
        assert LICENCES[source["repo"]] == source["licence"], where
        assert source["path"] and source["test"], where
        assert isinstance(case["text"], str), where
        assert case["content"] is None or isinstance(case["content"], str), where
        if case["parser"] != "tool":
            assert "reasoning" in case, f"{where}: a reasoning case states its reasoning"
        for call in case["calls"]:
            assert set(call) <= CALL_KEYS, f"{where}: unknown call keys"
            assert isinstance(call["name"], str) and call["name"], where
            assert isinstance(call["arguments"], dict), f"{where}: arguments are an object"
        if "chunks" in case:
            assert "".join(case["chunks"]) == case["text"], f"{where}: chunks join to the text"
        for field in case.get("unchecked", []):
            assert field in ("content", "reasoning", "arguments"), where
