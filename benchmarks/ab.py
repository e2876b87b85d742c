"""Two commits, one run: ``python -m benchmarks ab --base REF [--head REF] [NAME ...]``.

The formats benchmark (``benchmarks/formats.py``: one call per format, string and object
arguments, fed in 7-character chunks), measured for two versions of ``src/`` side by side
so that both see the same machine noise:

- ``--base REF`` is the old side; ``--head REF`` the new one, by default the working tree
  as it is (uncommitted changes included). A commit is exported with ``git archive`` into a
  temporary directory (nothing is written to the repository, not even when the run is cut
  short); the working tree's ``src/`` is used in place.
- ``--rounds N`` rounds (default 5). Each round starts one fresh subprocess per side
  (``benchmarks/_ab_side.py``, with ``PYTHONPATH`` set to that side's ``src/``) and runs
  them in lockstep: for every format, shape and size each side times ``--repeat N`` runs
  (default 5), the two sides taking turns run by run (ABAB..., the first side alternating
  from run to run and from round to round). Each old run is paired with the new run beside
  it, so that a pair sees the same load. Every subprocess of a round gets the same
  ``PYTHONHASHSEED``.
- The measuring code is this checkout's, for both sides: ``_ab_side`` imports only public
  names and ``streamcall.formats.registry``'s ``formats``, ``parser_class`` and
  ``tool_parser``. A run is one fresh parser fed the whole call, in CPU time
  (``process_time``).

Reported per format and shape (``str``: one long string value; ``obj``: many small keys):
the old and new µs per chunk at the largest size (the median run), the new/old ratio (the
median of the paired runs' ratios at the largest size: on one commit against itself the
tightest of the statistics tried, against the median of per-round best times and the
ratio of the overall best times) with the lowest and highest per-round median beside it,
the old and new growth exponents over the sizes (from the median run at each; 1.0 is
linear), and ``events``: at the largest size, whether both sides rendered the same text
and gave the same coalesced result, and whether that is the call rendered. A target that
fails on a side (not registered there, no renderer, an exception) keeps its row, with the
reason. The last line gives the worst ratio, the worst new exponent and whether the bars
hold: every ratio <= 1.10 and every new exponent <= 1.05, every row measured.

``--sizes 4096,16384,65536`` (bytes of arguments, the formats benchmark's by default; a
``K`` suffix means KiB). ``--json FILE`` also writes every run's time. Giving the same
commit twice (``--base X --head X``) shows the noise floor of the machine.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks._util import growth_exponent, table
from benchmarks.formats import SIZES

ROOT = Path(__file__).resolve().parents[1]
RATIO_BAR = 1.10
EXPONENT_BAR = 1.05
SHAPES = ("str", "obj")


class ABError(Exception):
    """A side could not be set up or measured at all (bad ref, git missing, a crash)."""


@dataclass
class Side:
    """One version of ``src/``: a commit exported, or the working tree."""

    label: str  # "old" or "new"
    ref: str | None  # None: the working tree
    commit: str
    description: str
    src: Path


@dataclass
class Row:
    """One target and shape, both sides measured over every round."""

    label: str
    shape: str
    errors: dict[str, str] = field(default_factory=dict)  # side label -> reason
    # side -> per size, every run's seconds
    samples: dict[str, list[list[float]]] = field(default_factory=dict)
    pairs: list[tuple[int, float, float]] = field(default_factory=list)  # largest size
    chunks: dict[str, int] = field(default_factory=dict)  # at the largest size
    digests: dict[str, set[str]] = field(default_factory=dict)  # side -> coalesced results
    inputs: dict[str, set[str]] = field(default_factory=dict)  # side -> rendered texts
    ok: dict[str, bool] = field(default_factory=dict)

    def add(self, side: str, size_index: int, seconds: float) -> None:
        runs = self.samples.setdefault(side, [])
        while len(runs) <= size_index:
            runs.append([])
        runs[size_index].append(seconds)

    def us_per_chunk(self, side: str) -> float:
        """The median run at the largest size, in µs per chunk."""
        return statistics.median(self.samples[side][-1]) / self.chunks[side] * 1e6

    def ratio(self) -> float:
        """new/old: the median of the paired runs' ratios at the largest size."""
        return statistics.median(new / old for _, old, new in self.pairs)

    def round_ratios(self) -> list[float]:
        """The median of the paired ratios in each round."""
        by_round: dict[int, list[float]] = {}
        for n, old, new in self.pairs:
            by_round.setdefault(n, []).append(new / old)
        return [statistics.median(r) for r in by_round.values()]

    def exponent(self, side: str, sizes: list[int]) -> float:
        if len(sizes) < 2:
            return math.nan
        return growth_exponent(sizes, [statistics.median(r) for r in self.samples[side]])

    def events(self) -> str:
        """``same``, or what differs: the rendered input, the result; and a wrong side."""
        old, new = self.digests["old"], self.digests["new"]
        notes = [] if old == new and len(old) == 1 else ["DIFFER"]
        if self.inputs["old"] != self.inputs["new"]:
            notes.insert(0, "input differs")
        notes += [f"{s} wrong" for s in ("old", "new") if not self.ok[s]]
        return ", ".join(notes) or "same"


@dataclass
class Comparison:
    sides: list[Side]
    sizes: list[int]
    rounds: int
    repeat: int
    rows: list[Row]
    seconds: float


def _git(*args: str, repo: Path) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        raise ABError("git is not installed: ab needs it to read the commits") from None
    if done.returncode != 0:
        raise ABError(f"git {' '.join(args)} failed in {repo}: {done.stderr.strip()}")
    return done.stdout.strip()


def _subject(commit: str, repo: Path) -> str:
    return _git("log", "-1", "--format=%s", commit, repo=repo)


def _side(label: str, ref: str | None, repo: Path, tmp: Path) -> Side:
    if ref is None:
        commit = _git("rev-parse", "--verify", "HEAD^{commit}", repo=repo)
        dirty = _git("status", "--porcelain", "--", "src", repo=repo)
        state = "with uncommitted changes in src/" if dirty else "no changes in src/"
        return Side(
            label,
            None,
            commit,
            f"working tree at {commit} ({state}): {_subject(commit, repo)}",
            repo / "src",
        )
    commit = _git("rev-parse", "--verify", f"{ref}^{{commit}}", repo=repo)
    dest = tmp / label
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", commit, "--", "src"],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        raise ABError(f"git archive {commit} src failed: {archive.stderr.decode().strip()}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4
            tar.extractall(dest, filter="data")
        else:
            tar.extractall(dest)
    return Side(label, ref, commit, f"{ref} = {commit}: {_subject(commit, repo)}", dest / "src")


class _Process:
    """One side's ``_ab_side`` subprocess: a request a line in, a reply a line out."""

    def __init__(self, side: Side, seed: int, cwd: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env["PYTHONPATH"] = os.pathsep.join([str(side.src), str(ROOT)])
        env["PYTHONHASHSEED"] = str(seed)
        self.side = side
        # a file, not a pipe, so that a side writing much to stderr cannot block; close()
        self.stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-S", "-m", "benchmarks._ab_side", str(side.src)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            cwd=cwd,
            env=env,
        )
        try:
            self.streamcall = self._read()["streamcall"]
        except BaseException:
            self.close()
            raise

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # it has exited: _read says why
        return self._read()

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            self.stderr.seek(0)
            tail = (self.stderr.read().strip().splitlines() or ["no output"])[-1]
            raise ABError(
                f"the {self.side.label} side ({self.side.commit[:12]}) exited "
                f"(status {self.proc.returncode}): {tail}"
            )
        reply: dict[str, Any] = json.loads(line)
        return reply

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.stderr.close()


def _round(
    n: int,
    sides: list[Side],
    labels: list[str],
    rows: dict[tuple[str, str], Row],
    sizes: list[int],
    repeat: int,
    cwd: Path,
) -> None:
    """One round: a fresh process per side, the two taking turns run by run."""
    procs: dict[str, _Process] = {}
    try:
        for s in sides:
            procs[s.label] = _Process(s, n + 1, cwd)
        for label in labels:
            for shape in SHAPES:
                row = rows[label, shape]
                request: dict[str, Any] = {}
                for k, size in enumerate(sizes):
                    request = {"op": "time", "label": label, "shape": shape, "size": size}
                    for i in range(repeat):
                        order = sides if (n + i) % 2 == 0 else sides[::-1]
                        pair: dict[str, float] = {}
                        for s in order:
                            if s.label in row.errors:
                                continue
                            reply = procs[s.label].ask(request)
                            if "error" in reply:
                                row.errors[s.label] = reply["error"]
                                continue
                            pair[s.label] = reply["t"]
                            row.add(s.label, k, reply["t"])
                            row.chunks[s.label] = reply["chunks"]
                        if k == len(sizes) - 1 and len(pair) == 2:
                            row.pairs.append((n, pair["old"], pair["new"]))
                for s in sides:
                    if s.label in row.errors:
                        continue
                    check = procs[s.label].ask({**request, "op": "check"})
                    if "error" in check:
                        row.errors[s.label] = check["error"]
                        continue
                    row.digests.setdefault(s.label, set()).add(check["digest"])
                    row.inputs.setdefault(s.label, set()).add(check["input"])
                    row.ok[s.label] = row.ok.get(s.label, True) and check["ok"]
    finally:
        for p in procs.values():
            p.close()


def compare(
    base: str,
    head: str | None = None,
    names: list[str] | None = None,
    rounds: int = 5,
    repeat: int = 5,
    sizes: list[int] | None = None,
    repo: Path = ROOT,
    progress: bool = True,
) -> Comparison:
    """Measure ``base`` (old) and ``head`` (new; None: the working tree) in ``rounds``
    interleaved rounds; every requested target gets a row, failed or not."""
    sizes = sorted(sizes or SIZES)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="streamcall-ab-") as tmpdir:
        tmp = Path(tmpdir)
        sides = [_side("old", base, repo, tmp), _side("new", head, repo, tmp)]
        listed: dict[str, list[str]] = {}
        for s in sides:
            p = _Process(s, 0, tmp)
            try:
                listed[s.label] = p.ask({"op": "list"})["listed"]
            finally:
                p.close()
        if names:
            # a format name stands for its rows: the format's own and its extra ones
            wanted = []
            for name in names:
                for s in sides:
                    wanted += [t for t in listed[s.label] if t.split(" (")[0] == name]
                wanted.append(name)
            labels = list(dict.fromkeys(wanted))
        else:
            labels = list(dict.fromkeys(listed["new"] + listed["old"]))
        rows = {(label, shape): Row(label, shape) for label in labels for shape in SHAPES}
        for n in range(rounds):
            t0 = time.perf_counter()
            _round(n, sides, labels, rows, sizes, repeat, tmp)
            if progress:
                print(
                    f"  round {n + 1}/{rounds}: {time.perf_counter() - t0:.1f} s", file=sys.stderr
                )
    seconds = time.perf_counter() - start
    return Comparison(sides, sizes, rounds, repeat, list(rows.values()), seconds)


def report(c: Comparison) -> str:
    lines = [
        f"formats benchmark, A/B: {c.rounds} round(s) of {c.repeat} paired run(s), arguments "
        f"of {'/'.join(_size(s) for s in c.sizes)}, µs per chunk at {_size(c.sizes[-1])}, "
        "CPU time",
        *(f"{s.label}: {s.description}" for s in c.sides),
    ]
    headers = ["format", "shape", "old µs", "new µs", "new/old", "min", "max"]
    headers += ["old exp", "new exp", "events"]
    out: list[list[object]] = []
    notes: dict[str, str] = {}  # label -> why it failed, once for both shapes
    for r in c.rows:
        if r.errors:
            cells: list[object] = [r.label, r.shape]
            for side in ("old", "new"):
                cells.append("failed" if side in r.errors else f"{r.us_per_chunk(side):.2f}")
            out.append([*cells, "-", "-", "-", "-", "-", "failed (below)"])
            notes.setdefault(
                r.label, "; ".join(f"{side}: {why}" for side, why in sorted(r.errors.items()))
            )
            continue
        rounds = r.round_ratios()
        out.append(
            [
                r.label,
                r.shape,
                f"{r.us_per_chunk('old'):.2f}",
                f"{r.us_per_chunk('new'):.2f}",
                f"{r.ratio():.3f}",
                f"{min(rounds):.3f}",
                f"{max(rounds):.3f}",
                f"{r.exponent('old', c.sizes):.2f}",
                f"{r.exponent('new', c.sizes):.2f}",
                r.events(),
            ]
        )
    lines.append(table(headers, out))
    lines.extend(f"failed: {label}: {why}" for label, why in notes.items())
    lines.append(
        "µs: the median run; new/old: the median of the paired runs' ratios (min, max: of "
        "the per-round medians); exp: growth exponent over the sizes, from the median run at "
        "each; events: the rendered text and coalesced result at the largest size, old "
        "against new, and the result against the call rendered"
    )
    lines.append(f"measured in {c.seconds:.0f} s")
    lines.append(verdict(c))
    return "\n".join(lines)


def verdict(c: Comparison) -> str:
    """The last line: the worst ratio and exponent, and whether the bars hold."""
    measured = [r for r in c.rows if not r.errors]
    failed = [f"{r.label} {r.shape}" for r in c.rows if r.errors]
    parts = []
    holds = not failed and bool(measured)
    if measured:
        by_ratio = max(measured, key=lambda r: r.ratio())
        rounds = by_ratio.round_ratios()
        parts.append(
            f"worst ratio {by_ratio.ratio():.3f} ({by_ratio.label} {by_ratio.shape}; rounds "
            f"{min(rounds):.3f}-{max(rounds):.3f})"
        )
        exp, by_exp = max(((r.exponent("new", c.sizes), r) for r in measured), key=_first)
        old_exp = max(r.exponent("old", c.sizes) for r in measured)
        parts.append(
            f"worst new exponent {exp:.2f} ({by_exp.label} {by_exp.shape}; old worst {old_exp:.2f})"
        )
        holds = holds and by_ratio.ratio() <= RATIO_BAR and exp <= EXPONENT_BAR
    if failed:
        parts.append(f"{len(failed)} row(s) failed on a side: {', '.join(failed)}")
    differ = [f"{r.label} {r.shape}" for r in measured if r.events() != "same"]
    if differ:
        parts.append(f"events differ or wrong: {', '.join(differ)}")
    bars = f"ratio <= {RATIO_BAR:.2f}, exponent <= {EXPONENT_BAR:.2f}"
    parts.append(f"bars ({bars}): {'hold' if holds else 'DO NOT hold'}")
    return "; ".join(parts)


def _first(pair: tuple[float, Row]) -> float:
    return pair[0]


def dump(c: Comparison, path: Path) -> None:
    """Every run's time, per row and side, with the commits: for a second look."""
    data = {
        "sides": [{"label": s.label, "ref": s.ref, "commit": s.commit} for s in c.sides],
        "sizes": c.sizes,
        "rounds": c.rounds,
        "repeat": c.repeat,
        "rows": [
            {
                "label": r.label,
                "shape": r.shape,
                "errors": r.errors,
                "chunks": r.chunks,
                "seconds": r.samples,
                "pairs": r.pairs,
                "events": None if r.errors else r.events(),
            }
            for r in c.rows
        ],
    }
    path.write_text(json.dumps(data, indent=1) + "\n")


def _size(n: int) -> str:
    return f"{n // 1024}K" if n % 1024 == 0 else str(n)


def _sizes(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        part = part.strip()
        try:
            out.append(int(part[:-1]) * 1024 if part.upper().endswith("K") else int(part))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"--sizes takes sizes in bytes such as 4096,16K: {part!r}"
            ) from None
    if not out or min(out) <= 0:
        raise argparse.ArgumentTypeError(f"--sizes takes positive sizes: {text!r}")
    return out


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number: {text!r}")
    return n


def _arguments() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks ab",
        description="The formats benchmark for two commits, interleaved in one run.",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="formats (default: all)")
    p.add_argument("--base", required=True, metavar="REF", help="the old commit")
    p.add_argument(
        "--head", metavar="REF", default=None, help="the new commit (default: the working tree)"
    )
    p.add_argument("--rounds", type=_positive, default=5, metavar="N")
    p.add_argument("--repeat", type=_positive, default=5, metavar="N")
    p.add_argument("--json", type=Path, default=None, metavar="FILE", help="every run's time")
    p.add_argument("--sizes", type=_sizes, default=list(SIZES), metavar="BYTES,...")
    return p


def main(argv: list[str] | None = None) -> None:
    if not argv:
        print(
            "ab compares two commits and needs one: skipped "
            "(python -m benchmarks ab --base REF [--head REF] [NAME ...] [--rounds N])"
        )
        return
    args = _arguments().parse_args(argv)
    try:
        c = compare(args.base, args.head, args.names, args.rounds, args.repeat, args.sizes)
    except ABError as exc:
        print(f"ab: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    print(report(c))
    if args.json is not None:
        dump(c, args.json)


if __name__ == "__main__":
    main(sys.argv[1:])
