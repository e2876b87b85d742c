"""The fuzz campaign's commands in a fresh clone: ``python -m fuzz.replay`` with no saved
failure has nothing to replay (exit 0), and ``python -m fuzz --status`` is a query (exit 0
whether or not every target counts). Neither needs atheris."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz import replay

ROOT = Path(__file__).parents[1]


def _python_m(*argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), str(ROOT), env.get("PYTHONPATH")) if p
    )
    return subprocess.run(
        [sys.executable, "-m", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_replay_with_no_crashes_folder_has_nothing_to_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(replay, "CRASHES", tmp_path / "crashes")
    assert replay.main([]) == 0
    assert capsys.readouterr().out.startswith("nothing to replay: ")
    # a folder named on the command line that is not there is the user's mistake
    assert replay.main([str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err


@pytest.mark.skipif(replay.CRASHES.exists(), reason="a fuzz campaign has run in this checkout")
def test_replay_in_a_fresh_clone() -> None:
    proc = _python_m("fuzz.replay")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("nothing to replay: ") and proc.stderr == ""


def test_status_is_a_query_that_exits_0() -> None:
    # a target whose newest run no longer counts (the code changed since): still 0
    proc = _python_m("fuzz", "--status", "--time", "1e9", "tool:hermes")
    assert proc.returncode == 0, proc.stderr
    assert "tool:hermes" in proc.stdout and "0 of 1 targets count" in proc.stdout
