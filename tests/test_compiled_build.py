"""The optional compiled build (``STREAMCALL_COMPILE=1 pip install .``, mypyc).

The pure build is what this suite normally runs; ``scripts/test-compiled`` runs the same
suite against the compiled build with ``STREAMCALL_EXPECT_COMPILED=1``, and then the first
test here fails unless the hot path really is compiled.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import streamcall
from streamcall import _mypyc, build

ROOT = Path(__file__).parent.parent


def test_the_build_is_the_one_expected() -> None:
    expected = os.environ.get("STREAMCALL_EXPECT_COMPILED") == "1"
    assert streamcall.compiled() is expected
    files = [sys.modules[name].__file__ or "" for name in build.compiled_modules()]
    assert files and all(f.endswith(".py") is not expected for f in files), files


def test_what_is_compiled_is_pinned() -> None:
    # Each entry measured faster compiled than pure (docs/performance.md, "Compiled
    # build"); a module that measures slower compiled stays out of this list.
    assert _mypyc.COMPILED == (
        "streamcall/events.py",
        "streamcall/text/",
        "streamcall/formats/engines/",
        "streamcall/reasoning/_engine.py",
    )
    for path in _mypyc.COMPILED:
        assert (ROOT / "src" / path).exists(), path


def test_the_pure_build_needs_no_mypy_extensions() -> None:
    source = (ROOT / "src" / "streamcall" / "_mypyc.py").read_text()
    assert "except ImportError:" in source  # the no-op marker without mypy_extensions
    marker = _mypyc.mypyc_attr(allow_interpreted_subclasses=True)

    class Probe:
        pass

    assert marker(Probe) is Probe


def test_format_classes_subclass_the_compiled_engines() -> None:
    # the format files stay interpreted; the engines they subclass allow it
    p = streamcall.tool_parser("kimi_k2")
    events = p.feed(
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
        '<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_calls_section_end|>'
    )
    events += p.finish()
    assert [type(e).__name__ for e in events][-1] == "ToolCallEnd"
