"""``streamcall bench``: runs ``python -m benchmarks NAME ...`` from a source checkout
(the benchmarks ship with the source tree, not the wheel), one benchmark at a time, and
stops at the first that fails."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from streamcall.cli.common import CLIError, Subparsers, note, write

__all__ = ["add_parser", "run"]


def add_parser(sub: Subparsers) -> None:
    """The ``bench`` verb's options."""
    b = sub.add_parser("bench", help="run the benchmarks (python -m benchmarks NAME ...)")
    b.add_argument("names", nargs="*", metavar="NAME", help="benchmark names (default: all)")
    b.add_argument("--list", action="store_true", help="list the benchmarks")
    b.set_defaults(func=run)


def _benchmarks_root() -> Path | None:
    here = Path(__file__).resolve()
    for base in (Path.cwd(), *Path.cwd().parents, *here.parents):
        if (base / "benchmarks" / "__main__.py").is_file():
            return base
    return None


def run(args: argparse.Namespace) -> int:
    root = _benchmarks_root()
    if root is None:
        raise CLIError(
            "the benchmarks ship with the source tree, not the wheel: run `streamcall bench` "
            "from a checkout of streamcall",
            code=1,
        )
    available = sorted(
        p.stem for p in (root / "benchmarks").glob("*.py") if not p.stem.startswith("_")
    )
    if args.list:
        write("\n".join(available) + "\n")
        return 0
    unknown = [n for n in args.names if n not in available]
    if unknown:
        raise CLIError(f"unknown benchmark {unknown[0]!r}; available: {', '.join(available)}")
    names = args.names or available
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
    for i, name in enumerate(names, 1):
        note(f"benchmark {i}/{len(names)}: {name}")
        rc = subprocess.call([sys.executable, "-m", "benchmarks", name], cwd=root, env=env)
        if rc != 0:
            note(f"benchmark {name} failed (exit status {rc})")
            return rc
    return 0
