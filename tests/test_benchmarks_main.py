"""``python -m benchmarks`` as a user types it: ``--help`` lists the names, a benchmark whose
packages are not installed is one line naming the extra, and a peer that is not installed
reads "not installed" in a table, never ``nan``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from benchmarks import partial

ROOT = Path(__file__).parents[1]


def _benchmarks(*argv: str, blocked: str = "") -> subprocess.CompletedProcess[str]:
    """``python -m benchmarks ARGV...`` from the checkout; ``blocked`` names a package made
    impossible to import, as if it were not installed."""
    code = (
        f"import runpy, sys; sys.modules[{blocked!r}] = None; "
        f"sys.argv = ['benchmarks', *{list(argv)!r}]; "
        "runpy.run_module('benchmarks', run_name='__main__')"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), str(ROOT), env.get("PYTHONPATH")) if p
    )
    argv_run = [sys.executable, "-c", code] if blocked else [sys.executable, "-m", "benchmarks"]
    return subprocess.run(
        argv_run if blocked else [*argv_run, *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_help_lists_the_benchmarks() -> None:
    for flag in ("--help", "-h"):
        proc = _benchmarks(flag)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("usage: python -m benchmarks")
        assert "partial" in proc.stdout and "proxy" in proc.stdout
        assert "unknown benchmark" not in proc.stderr


def test_an_unknown_name_points_to_help() -> None:
    proc = _benchmarks("nope")
    assert proc.returncode == 2
    assert "unknown benchmark 'nope'" in proc.stderr and "--help" in proc.stderr


def test_proxy_without_the_server_stack_is_one_line() -> None:
    proc = _benchmarks("proxy", blocked="httpx")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr == (
        "benchmark 'proxy' needs httpx, which is not installed: "
        "pip install -e '.[bench]' (from a clone of streamcall)\n"
    )


def test_partial_without_jiter_says_not_installed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "jiter", None)
    monkeypatch.setattr(partial, "SIZES", (256, 512, 1024))
    monkeypatch.setattr(partial, "PEER_BUDGET_S", 0.01)
    partial.main()
    out = capsys.readouterr().out
    assert "nan" not in out
    assert "jiter is not installed" in out
    cut = out[out.index("cut at 2/3") :].splitlines()  # the table with a × jiter column
    rows = [line for line in cut if ": streamcall parse_partial_json" in line]
    assert rows and all(line.endswith("not installed") for line in rows)
