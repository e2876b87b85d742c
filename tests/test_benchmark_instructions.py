"""``python -m benchmarks instructions``: two versions of ``src/`` counted in CPU instructions
under callgrind. The count is deterministic, so the same code on both sides counts the same
(the working tree against HEAD while ``src/`` is unchanged, or HEAD against itself)."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from benchmarks import instructions
from benchmarks.ab import ROOT, _side


def test_the_same_code_counts_the_same_instructions_per_chunk() -> None:
    if shutil.which("valgrind") is None or shutil.which("git") is None:
        pytest.skip("benchmarks instructions needs valgrind and git (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        old = _side("old", "HEAD", ROOT, Path(tmp))
        again = _side("new", "HEAD", ROOT, Path(tmp) / "again")
        a = instructions.per_chunk(old, "hermes", "str", 512)
        b = instructions.per_chunk(again, "hermes", "str", 512)
    # a chunk of a Hermes call costs thousands of instructions; two copies of one commit
    # differ only in where their files lie
    assert 1_000 < a < 100_000
    assert abs(b / a - 1) < 0.02, (a, b)
