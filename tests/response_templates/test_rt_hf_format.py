"""The ``hf`` format: ``tool_parser("hf", template=...)`` reads a checkpoint's response template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import streamcall
from reference import transformers_ref as ref
from streamcall.formats.hf import HfToolParser
from streamcall.testing import check_chunkings

pytestmark = pytest.mark.skipif(
    not streamcall.response_templates._patterns.REGEX_INSTALLED,
    reason="the regex package (the templates extra) is missing",
)

QWEN3 = ref.load_ecosystem()["trl"]["qwen3"]
TEXT = (
    "<think>\nLet me check.\n</think>\n\nSure.<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<|im_end|>'
)


def test_without_a_template_it_names_the_missing_argument() -> None:
    with pytest.raises(ValueError, match="template="):
        streamcall.tool_parser("hf")


def test_a_template_is_for_hf_only() -> None:
    with pytest.raises(ValueError, match="hf format only"):
        streamcall.tool_parser("hermes", template=QWEN3)


def test_it_is_not_among_the_fixed_formats() -> None:
    assert "hf" not in streamcall.formats()


def test_reads_the_template_in_every_chunking() -> None:
    items = check_chunkings(lambda: streamcall.tool_parser("hf", template=QWEN3), TEXT)
    assert [kind for kind, _ in items] == ["reasoning", "text", "call"]
    parser = streamcall.tool_parser("hf", template=QWEN3, id_prefix="x_")
    assert isinstance(parser, HfToolParser)
    events = parser.feed(TEXT) + parser.finish()
    starts = [e for e in events if isinstance(e, streamcall.ToolCallStart)]
    assert [(s.id, s.name) for s in starts] == [("x_0", "get_weather")]
    assert parser.message()["tool_calls"][0]["function"]["arguments"] == {"city": "Paris"}


def test_takes_a_model_directory(tmp_path: Path) -> None:
    config = {"response_template": QWEN3, "chat_template": "{{ messages }}"}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    parser = streamcall.tool_parser("hf", template=tmp_path)
    events = parser.feed(TEXT) + parser.finish()
    assert any(isinstance(e, streamcall.ToolCallEnd) for e in events)
