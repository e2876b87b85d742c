"""``python -m benchmarks ab`` runs end to end, so that the A/B tool cannot rot.

One format and a name no side registers, one round, small sizes, the checkout's ``HEAD``
against its working tree: both sides measured with the commit named, a failed row kept
with its reason, and the verdict line. No timing is asserted. A row that failed on one side
only is checked on a built comparison (no commit lacks a format here).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from benchmarks import ab

ROOT = Path(__file__).parents[1]


def test_ab_runs_head_against_the_working_tree(capsys: pytest.CaptureFixture[str]) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: ab reads the commits it measures with git")
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    argv = ["--base", "HEAD", "hermes", "nope", "--rounds", "1", "--repeat", "1"]
    ab.main([*argv, "--sizes", "256,1K"])
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[1].startswith(f"old: HEAD = {head}: ")
    assert lines[2].startswith(f"new: working tree at {head} (")
    rows = {tuple(line.split()[:2]): line.split() for line in lines if line.startswith("hermes")}
    assert set(rows) == {("hermes", "str"), ("hermes", "obj")}
    for cells in rows.values():
        old_us, new_us, ratio = (float(c) for c in cells[2:5])
        assert old_us > 0 and new_us > 0 and ratio > 0
        assert cells[-1] == "same"  # same events on both sides, and the call rendered
    failed = [line.split()[:4] for line in lines if line.startswith("nope")]
    assert failed == [["nope", s, "failed", "failed"] for s in ("str", "obj")]
    assert "failed: nope: new: format 'nope' is not registered on this side" in out
    assert lines[-1].startswith("worst ratio ")
    assert "2 row(s) failed on a side: nope str, nope obj" in lines[-1]
    assert lines[-1].endswith("bars (ratio <= 1.10, exponent <= 1.05): DO NOT hold")


def test_a_row_failed_on_one_side_keeps_the_other_sides_figure() -> None:
    sides = [
        ab.Side("old", "X", "a" * 40, "X = aaaa: old", Path("old")),
        ab.Side("new", None, "b" * 40, "working tree", Path("new")),
    ]
    gone = ab.Row("gone", "str", errors={"new": "format 'gone' is not registered on this side"})
    gone.samples["old"] = [[1e-3], [4e-3]]
    gone.chunks["old"] = 1000
    kept = ab.Row("kept", "str", samples={"old": [[1e-3], [4e-3]], "new": [[1e-3], [4.2e-3]]})
    kept.pairs = [(0, 4e-3, 4.2e-3), (1, 4e-3, 4.4e-3), (1, 4e-3, 4e-3)]
    kept.chunks = {"old": 1000, "new": 1000}
    kept.digests = {"old": {"d"}, "new": {"d"}}
    kept.inputs = {"old": {"i"}, "new": {"i"}}
    kept.ok = {"old": True, "new": True}
    text = ab.report(ab.Comparison(sides, [256, 1024], 2, 2, [gone, kept], 0.0))
    gone_cells = next(line.split() for line in text.splitlines() if line.startswith("gone"))
    assert gone_cells[2:4] == ["4.00", "failed"]
    assert "failed: gone: new: format 'gone' is not registered on this side" in text
    kept_cells = next(line.split() for line in text.splitlines() if line.startswith("kept"))
    # new/old is the median of the three pairs; min and max are the two rounds' medians
    assert kept_cells[2:7] == ["4.00", "4.20", "1.050", "1.050", "1.050"]
    assert kept_cells[-1] == "same"
    verdict = text.splitlines()[-1]
    assert verdict.startswith("worst ratio 1.050 (kept str;")
    assert "1 row(s) failed on a side: gone str" in verdict
    assert verdict.endswith("DO NOT hold")


def test_ab_without_a_base_is_skipped_with_its_usage(capsys: pytest.CaptureFixture[str]) -> None:
    ab.main()
    assert "needs one: skipped" in capsys.readouterr().out
