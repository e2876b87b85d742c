"""Two commits, counted not timed: ``python -m benchmarks instructions --base REF [NAME ...]``.

The formats benchmark's runs (one call of ``--size`` bytes of arguments, 16 KB by default,
string or many small keys, fed in 7-character chunks to a fresh parser), for two versions
of ``src/`` as ``benchmarks ab`` sets them up (``--base REF`` old, ``--head REF`` new, by
default the working tree), each counted in CPU instructions under valgrind's callgrind
instead of timed. An instruction count is the same from run to run of the same code and
input, whatever else the machine is doing (seen here: the same count to 0.03% three times
over, beside a loaded core), so a few percent shows on a shared machine where the paired
timings of ``ab`` spread by ten.

How: each side runs ``benchmarks/_ab_side.py``'s preparation and one parser fed the whole
call, in a ``python -S`` with that side's ``src/`` on the path, under
``valgrind --tool=callgrind``, once with one run and once with three. The difference,
halved and divided by the chunks, is the instructions per chunk of a run: start-up,
imports and the fixture's preparation cancel out. ``PYTHONHASHSEED`` is fixed, and the
objects loaded before the runs are frozen out of the collector's sight (``gc.freeze``), so
that a side which imports more does not count its longer collections as the parser's.

Reported per format and shape: old and new instructions per chunk and new/old. Instructions
are not time (a cache miss counts once), so this is the tiebreaker for ``ab``'s timings, not
their replacement. Needs valgrind (``apt-get install valgrind``); without it, one line says so.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._util import table
from benchmarks.ab import ROOT, SHAPES, ABError, Side, _side

_DRIVER = """
import sys
sys.path.insert(0, {root!r})
from benchmarks import _ab_side as S
label, shape, size, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
fmt, pieces, tools, args = S._prepare(label, shape, size, S._targets())
from streamcall.formats.registry import tool_parser
import gc
gc.collect()
gc.freeze()  # what was loaded is not the parser's: no collection walks it
for _ in range(runs):
    p = tool_parser(fmt, tools=tools)
    for piece in pieces:
        p.feed(piece)
    p.finish()
print("chunks", len(pieces))
"""
DEFAULT_NAMES = ("granite4", "pythonic", "hermes", "kimi_k2")
DEFAULT_SIZE = 16384


def _count(side: Side, label: str, shape: str, size: int, runs: int) -> tuple[int, int]:
    """(instructions of the whole process, chunks) for ``runs`` runs on ``side``."""
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(side.src))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-S",
                "-c",
                _DRIVER.format(root=str(ROOT)),
                label,
                shape,
                str(size),
                str(runs),
            ],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise ABError(f"{side.label} {label} {shape}: {done.stderr.strip()[-300:]}")
        totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
    chunks = int(done.stdout.split()[-1])
    return int(totals[-1].split()[1]), chunks


def per_chunk(side: Side, label: str, shape: str, size: int) -> float:
    """Instructions per chunk of one run (module docstring)."""
    one, chunks = _count(side, label, shape, size, 1)
    three, _ = _count(side, label, shape, size, 3)
    return (three - one) / 2 / chunks


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks instructions")
    parser.add_argument("names", nargs="*", help=f"formats (default: {' '.join(DEFAULT_NAMES)})")
    parser.add_argument("--base", default="HEAD", help="the old side (default: HEAD)")
    parser.add_argument("--head", default=None, help="the new side (default: the working tree)")
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE, help="bytes of arguments")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("benchmark 'instructions' needs valgrind: apt-get install valgrind", file=sys.stderr)
        raise SystemExit(1)
    names = args.names or list(DEFAULT_NAMES)
    with tempfile.TemporaryDirectory() as tmp:
        old = _side("old", args.base, ROOT, Path(tmp))
        new = _side("new", args.head, ROOT, Path(tmp))
        rows = []
        for name in names:
            for shape in SHAPES:
                a = per_chunk(old, name, shape, args.size)
                b = per_chunk(new, name, shape, args.size)
                rows.append([name, shape, f"{a:,.0f}", f"{b:,.0f}", f"{b / a:.3f}"])
    print(f"instructions per chunk (callgrind), {args.size} bytes of arguments, 7-character chunks")
    print(f"old: {old.description}")
    print(f"new: {new.description}")
    print(table(["format", "shape", "old", "new", "new/old"], rows))


if __name__ == "__main__":
    main(sys.argv[1:])
