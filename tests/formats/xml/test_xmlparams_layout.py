"""The XML-parameter engine is on the text layer: every format on it runs ``FeedLoop.feed``
(no override), with one step per mode, and its modules take their scanning from
``streamcall.text``, not the formats' old re-exports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import streamcall
from streamcall.formats.engines import xml_params as _xmlparams
from streamcall.formats.engines.xml_params import XmlParamsParser
from streamcall.formats.registry import formats, parser_class
from streamcall.text import FeedLoop

XML_FORMATS = [n for n in formats() if issubclass(parser_class(n), XmlParamsParser)]
FORMATS_DIR = Path(streamcall.__file__).parent / "formats"
MODULES = [
    "engines/xml_params",
    "engines/xml_args",
    "minimax",
    "qwen3",
    "glm",
    "seed_oss",
    "step",
    "deepseek_dsml",
    "hunyuan",
    "minicpm",
    "k2_horizon",
    "telechat",
    "engines/json_members",
    "kimi_k3",
    "dots",
    "gigachat",
    "zaya",
    "solar_open2",
    "spark3",
    "berrylm",
    "schema",
]


def test_every_format_of_the_family_is_here() -> None:
    assert len(XML_FORMATS) == 34


@pytest.mark.parametrize("fmt", XML_FORMATS)
def test_no_feed_override_and_one_step_per_mode(fmt: str) -> None:
    cls = parser_class(fmt)
    assert cls.feed is FeedLoop.feed
    assert cls.finish is FeedLoop.finish
    parser = cls()
    assert parser._steps is not None
    assert len(parser._steps) == len(_xmlparams.Mode)


@pytest.mark.parametrize("module", MODULES)
def test_the_modules_import_the_text_layer_not_the_old_re_exports(module: str) -> None:
    tree = ast.parse((FORMATS_DIR / f"{module}.py").read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "streamcall.formats._scan" not in imported
    assert "streamcall._feedloop" not in imported
