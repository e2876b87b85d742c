"""Two commits, one run: ``python -m benchmarks ab --base REF [--head REF] [NAME ...]``.

The formats benchmark (``benchmarks/formats.py``: one call per format, string and object
arguments, fed in 7-character chunks), measured for two versions of ``src/`` side by side
so that both see the same machine noise:

- ``--base REF`` is the old side; ``--head REF`` the new one, by default the working tree
  as it is (uncommitted changes included). A commit is exported with ``git archive`` into a
  temporary directory (nothing is written to the repository, not even when the run is cut
  short); the working tree's ``src/`` is used in place.
- ``--rounds N`` rounds (default 5). Each round runs one fresh subprocess per side
  (``benchmarks/_ab_side.py``, with ``PYTHONPATH`` set to that side's ``src/``), and the
  order alternates from round to round (AB, BA, AB, ...) so that neither side always goes
  first. Every subprocess of a round gets the same ``PYTHONHASHSEED``.
- The measuring code is this checkout's, for both sides: ``_ab_side`` imports only public
  names and ``streamcall.formats.registry``'s ``formats``, ``parser_class`` and
  ``tool_parser``.
- In a subprocess each size is timed ``--repeat N`` times (default 3), CPU time
  (``process_time``), best kept.

Reported per format and shape (``str``: one long string value; ``obj``: many small keys):
the old and new µs per chunk at the largest size (best over the rounds), the new/old ratio
as the median, min and max of the per-round ratios (the median is the figure held to the
bar), the old and new growth exponents over the sizes (from the best time at each size;
1.0 is linear), and ``events``: at the largest size, whether both sides rendered the same
text and gave the same coalesced result, and whether that is the call rendered. A target
that fails on a side (not registered there, no renderer, an exception) keeps its row, with
the reason. The last line gives the worst ratio, the worst new exponent and whether the
bars hold: every ratio <= 1.10 and every new exponent <= 1.05, every row measured.

``--sizes 4096,16384,65536`` (bytes of arguments, the formats benchmark's by default; a
``K`` suffix means KiB). Giving the same commit twice (``--base X --head X``) shows the
noise floor of the machine.
"""

from __future__ import annotations

import argparse
import io
import json
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
    times: dict[str, list[list[float]]] = field(default_factory=dict)  # side -> rounds x sizes
    chunks: dict[str, int] = field(default_factory=dict)
    digests: dict[str, set[str]] = field(default_factory=dict)  # side -> coalesced results
    inputs: dict[str, set[str]] = field(default_factory=dict)  # side -> rendered texts
    ok: dict[str, bool] = field(default_factory=dict)

    def per_chunk(self, side: str) -> list[float]:
        """µs per chunk at the largest size, one per round."""
        return [t[-1] / self.chunks[side] * 1e6 for t in self.times[side]]

    def best(self, side: str) -> float:
        return min(self.per_chunk(side))

    def ratios(self) -> list[float]:
        return [n / o for o, n in zip(self.per_chunk("old"), self.per_chunk("new"), strict=True)]

    def exponent(self, side: str, sizes: list[int]) -> float:
        if len(sizes) < 2:
            return float("nan")
        best = [min(r[i] for r in self.times[side]) for i in range(len(sizes))]
        return growth_exponent(sizes, best)

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


def _run_side(side: Side, request: dict[str, Any], seed: int, cwd: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = os.pathsep.join([str(side.src), str(ROOT)])
    env["PYTHONHASHSEED"] = str(seed)
    done = subprocess.run(
        [sys.executable, "-S", "-m", "benchmarks._ab_side", json.dumps(request)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ABError(f"{side.label} side ({side.commit[:12]}) failed: {tail}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def compare(
    base: str,
    head: str | None = None,
    names: list[str] | None = None,
    rounds: int = 5,
    repeat: int = 3,
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
        listing = {"targets": None, "sizes": sizes, "repeat": repeat}
        listed = {s.label: _run_side(s, {**listing, "src": str(s.src)}, 0, tmp) for s in sides}
        if names:
            # a format name stands for its rows: the format's own and its extra ones
            wanted = []
            for name in names:
                for s in sides:
                    wanted += [t for t in listed[s.label]["listed"] if t.split(" (")[0] == name]
                wanted.append(name)
            labels = list(dict.fromkeys(wanted))
        else:
            labels = list(dict.fromkeys(listed["new"]["listed"] + listed["old"]["listed"]))
        rows = {(label, shape): Row(label, shape) for label in labels for shape in SHAPES}
        request = {"targets": labels, "sizes": sizes, "repeat": repeat}
        for n in range(rounds):
            order = sides if n % 2 == 0 else sides[::-1]
            for s in order:
                t0 = time.perf_counter()
                out = _run_side(s, {**request, "src": str(s.src)}, n + 1, tmp)
                if progress:
                    print(
                        f"  round {n + 1}/{rounds}: {s.label} side "
                        f"{time.perf_counter() - t0:.1f} s",
                        file=sys.stderr,
                    )
                for target in out["targets"]:
                    for shape in SHAPES:
                        _record(rows[target["label"], shape], s.label, target)
    return Comparison(sides, sizes, rounds, list(rows.values()), time.perf_counter() - start)


def _record(row: Row, side: str, target: dict[str, Any]) -> None:
    if "error" in target:
        row.errors[side] = target["error"]
        return
    m = target["shapes"][row.shape]
    row.times.setdefault(side, []).append(m["times"])
    row.chunks[side] = m["chunks"]
    row.digests.setdefault(side, set()).add(m["digest"])
    row.inputs.setdefault(side, set()).add(m["input"])
    row.ok[side] = row.ok.get(side, True) and m["ok"]


def report(c: Comparison) -> str:
    lines = [
        f"formats benchmark, A/B: {c.rounds} interleaved round(s), arguments of "
        + "/".join(_size(s) for s in c.sizes)
        + f", µs per chunk at {_size(c.sizes[-1])}, CPU time",
        *(f"{s.label}: {s.description}" for s in c.sides),
    ]
    headers = ["format", "shape", "old µs", "new µs", "new/old", "min", "max"]
    headers += ["old exp", "new exp", "events"]
    out: list[list[object]] = []
    failed = []
    notes: dict[str, str] = {}  # label -> why it failed, once for both shapes
    for r in c.rows:
        if r.errors:
            cells: list[object] = [r.label, r.shape]
            for side in ("old", "new"):
                cells.append(f"{r.best(side):.2f}" if side not in r.errors else "failed")
            out.append([*cells, "-", "-", "-", "-", "-", "failed (below)"])
            failed.append(f"{r.label} {r.shape}")
            notes.setdefault(
                r.label, "; ".join(f"{side}: {why}" for side, why in sorted(r.errors.items()))
            )
            continue
        ratios = r.ratios()
        out.append(
            [
                r.label,
                r.shape,
                f"{r.best('old'):.2f}",
                f"{r.best('new'):.2f}",
                f"{statistics.median(ratios):.3f}",
                f"{min(ratios):.3f}",
                f"{max(ratios):.3f}",
                f"{r.exponent('old', c.sizes):.2f}",
                f"{r.exponent('new', c.sizes):.2f}",
                r.events(),
            ]
        )
    lines.append(table(headers, out))
    lines.extend(f"failed: {label}: {why}" for label, why in notes.items())
    lines.append(
        "new/old: median of the per-round ratios (min, max beside it); µs: best round; "
        "exp: growth exponent over the sizes, from the best time at each; events: the "
        "rendered text and coalesced result at the largest size, old against new, and the "
        "result against the call rendered"
    )
    lines.append(f"measured in {c.seconds:.0f} s")
    lines.append(verdict(c, failed))
    return "\n".join(lines)


def verdict(c: Comparison, failed: list[str] | None = None) -> str:
    """The last line: the worst ratio and exponent, and whether the bars hold."""
    measured = [r for r in c.rows if not r.errors]
    failed = failed if failed is not None else [f"{r.label} {r.shape}" for r in c.rows if r.errors]
    parts = []
    holds = not failed and bool(measured)
    if measured:
        by_ratio = max(measured, key=lambda r: statistics.median(r.ratios()))
        ratios = by_ratio.ratios()
        worst = statistics.median(ratios)
        parts.append(
            f"worst ratio {worst:.3f} ({by_ratio.label} {by_ratio.shape}; rounds "
            f"{min(ratios):.3f}-{max(ratios):.3f})"
        )
        exps = [(r.exponent("new", c.sizes), r) for r in measured]
        exp, by_exp = max(exps, key=lambda e: e[0])
        old_exp = max(r.exponent("old", c.sizes) for r in measured)
        parts.append(
            f"worst new exponent {exp:.2f} ({by_exp.label} {by_exp.shape}; old worst {old_exp:.2f})"
        )
        holds = holds and worst <= RATIO_BAR and exp <= EXPONENT_BAR
    if failed:
        parts.append(f"{len(failed)} row(s) failed on a side: {', '.join(failed)}")
    differ = [f"{r.label} {r.shape}" for r in measured if r.events() != "same"]
    if differ:
        parts.append(f"events differ or wrong: {', '.join(differ)}")
    bars = f"ratio <= {RATIO_BAR:.2f}, exponent <= {EXPONENT_BAR:.2f}"
    parts.append(f"bars ({bars}): {'hold' if holds else 'DO NOT hold'}")
    return "; ".join(parts)


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
    p.add_argument("--repeat", type=_positive, default=3, metavar="N")
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


if __name__ == "__main__":
    main(sys.argv[1:])
