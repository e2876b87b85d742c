"""The campaign: every target (or those named) under atheris, ``--jobs`` at a time.

    python -m fuzz --time 600 --jobs 2                 # every target, 10 minutes each
    python -m fuzz --time 60 'tool:*' partial          # glob patterns pick targets
    python -m fuzz --list                              # the target names

Each target runs in its own process (``fuzz.run_target``) for ``--time`` seconds, from its
corpus (``fuzz/corpus/<target>/``, seeded on the first run by ``fuzz.seeds`` and kept, so
that later runs start from the coverage already found). The first input of every new
failure signature lands in ``<crashes>/<target>/``; at the end each is minimised (the
shortest input the campaign finds that fails the same way, ``<hash>.min`` and a ``.txt``
saying what failed, with the minimised input as a Python literal). A hang, an interpreter
crash or running out of memory stops libFuzzer: the artifact is kept, counted as a failure,
and the target goes on for the rest of its time. The end prints, per target, the inputs
tried, the inputs that failed and the distinct failures, and writes the same as
``<crashes>/summary.json``. The exit status is 1 if anything failed.

Every run also appends a line to the ledger (``fuzz/ledger.jsonl``, committed: a campaign
is longer than one sitting, and a new checkout must know which runs still count): the
target, the commit, the inputs, the failures, how long it ran clean at the end, and the
fingerprint of the code it tested (``fuzz.fingerprint``: a digest per function the corpus
reaches). ``--status`` reads it: a target counts when its newest run clean for ``--time``
seconds tested code that is still the same, function by function; otherwise it names what
changed (a query: its exit status is 0 either way). ``--skip-done`` runs only the targets that do not count.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import fnmatch
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
_DONE = re.compile(rb"Done (\d+) runs in")


def _slug(target: str) -> str:
    return target.replace(":", "-")


def _seed_corpus(target: str, corpus: Path) -> None:
    if corpus.is_dir() and any(corpus.iterdir()):
        return
    from fuzz.seeds import seeds

    corpus.mkdir(parents=True, exist_ok=True)
    for data in seeds(target):
        (corpus / hashlib.sha1(data).hexdigest()).write_bytes(data)


def run_target(target: str, seconds: float, args: argparse.Namespace) -> dict[str, Any]:
    slug = _slug(target)
    corpus = Path(args.corpus) / slug
    crashes = Path(args.crashes) / slug
    logs = Path(args.crashes) / "logs"
    crashes.mkdir(parents=True, exist_ok=True)
    logs.mkdir(parents=True, exist_ok=True)
    _seed_corpus(target, corpus)
    commit = _git("rev-parse", "HEAD")  # what the run tests: the checkout as it starts
    deadline = time.monotonic() + seconds
    inputs = failures = stops = 0
    signatures: dict[str, int] = {}
    attempt = 0
    started = time.monotonic()
    last_failure: float | None = None  # seconds into the target's run
    while True:
        attempt_started = time.monotonic()
        left = int(deadline - attempt_started)
        if left < 1:
            break
        stats = logs / f"{slug}.{attempt}.json"
        env = dict(os.environ, FUZZ_CRASHES=str(crashes), FUZZ_STATS=str(stats))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        cmd = [
            sys.executable,
            "-m",
            "fuzz.run_target",
            target,
            f"-max_total_time={left}",
            f"-max_len={args.max_len}",
            f"-timeout={args.timeout}",
            f"-rss_limit_mb={args.rss_limit_mb}",
            f"-artifact_prefix={crashes}{os.sep}",
            str(corpus),
        ]
        log = logs / f"{slug}.{attempt}.log"
        with log.open("wb") as out:
            proc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        text = log.read_bytes()
        done = _DONE.findall(text)
        counted: dict[str, Any] = {}
        if stats.exists():
            counted = json.loads(stats.read_text())
        inputs += int(done[-1]) if done else int(counted.get("inputs", 0))
        failures += int(counted.get("failures", 0))
        if counted.get("last_failure_s") is not None:
            last_failure = attempt_started - started + float(counted["last_failure_s"])
        for sig, count in counted.get("signatures", {}).items():
            signatures[sig] = signatures.get(sig, 0) + count
        if proc.returncode != 0:
            # libFuzzer stopped: a hang, an interpreter crash or out of memory.
            stops += 1
            failures += 1
            last_failure = time.monotonic() - started
            kind = "libFuzzer stop"
            for word in (b"timeout", b"out-of-memory", b"crash", b"deadly signal"):
                if word in text:
                    kind = f"libFuzzer: {word.decode()}"
                    break
            signatures[kind] = signatures.get(kind, 0) + 1
            if stops >= args.max_stops:
                break
        attempt += 1
        if proc.returncode == 0:
            break
    fuzzed = time.monotonic() - started
    minimised = _minimise_all(target, crashes, args.minimise_time)
    result = {
        "target": target,
        "seconds": seconds,
        "inputs": inputs,
        "failures": failures,
        "distinct": len(signatures),
        "last_failure_s": None if last_failure is None else round(last_failure, 1),
        "clean_last_s": round(fuzzed - (last_failure or 0.0), 1),
        "signatures": signatures,
        "minimised": minimised,
    }
    _record(result, commit, corpus, Path(args.ledger), args.fingerprint_time)
    return result


def _git(*argv: str) -> str:
    done = subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


_TESTED = ("src", "fuzz/targets.py")  # what a run tests, beside the fuzz package's plumbing


def _record(
    result: dict[str, Any], commit: str, corpus: Path, ledger: Path, seconds: float
) -> None:
    """Append the run and the fingerprint of the code it tested to the ledger. The
    fingerprint is taken on the checkout as it is at the end: if the tested code is not
    then the commit the run started on (an edit, a pull), the line says ``dirty``."""
    cmd = [sys.executable, "-m", "fuzz.fingerprint", result["target"], "--corpus", str(corpus)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [*cmd, "--time", str(seconds)], capture_output=True, text=True, env=env, cwd=ROOT
    )
    line = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": commit,
        "dirty": not commit or bool(_git("diff", "--name-only", commit, "--", *_TESTED)),
        **{k: result[k] for k in ("target", "seconds", "inputs", "failures", "clean_last_s")},
    }
    if done.returncode == 0:
        line["fingerprint"] = json.loads(done.stdout)
    else:
        line["fingerprint_error"] = done.stderr.strip()[-2000:]
    ledger.parent.mkdir(parents=True, exist_ok=True)
    with ledger.open("a") as out:
        out.write(json.dumps(line) + "\n")


def read_ledger(ledger: Path) -> list[dict[str, Any]]:
    if not ledger.exists():
        return []
    return [json.loads(line) for line in ledger.read_text().splitlines() if line.strip()]


def status(names: list[str], ledger: Path, need: float) -> list[tuple[str, bool, str]]:
    """(target, counts, why) per target: the latest run in the ledger (by its end,
    ``when``) clean for ``need`` seconds, with a whole fingerprint whose digests all hold
    on the code as it is now, and no later run that failed."""
    from fuzz.fingerprint import VERSION, Index, changed, load

    load()
    index = Index()
    lines = read_ledger(ledger)
    out = []
    for name in names:
        runs = [r for r in lines if r["target"] == name]
        clean = [r for r in runs if r.get("clean_last_s", 0) >= need]
        if not clean:
            why = "never run" if not runs else f"no run clean for {need:g} s"
            if runs and runs[-1].get("failures"):
                why += f" (newest: {runs[-1]['failures']:,} failed)"
            out.append((name, False, why))
            continue
        run = max(clean, key=lambda r: str(r["when"]))
        said = f"{run['inputs']:,} inputs, clean {run['clean_last_s']:.0f} s, {run['commit'][:7]}"
        said += f"{'+' if run.get('dirty') else ''} {run['when']}"
        fp = run.get("fingerprint")
        failed = [r for r in runs if str(r["when"]) > str(run["when"]) and r.get("failures")]
        if failed:
            last = failed[-1]
            out.append((name, False, f"{said}; a later run failed ({last['when']})"))
        elif fp is None:
            out.append((name, False, f"{said}; no fingerprint"))
        elif fp.get("version") != VERSION:
            out.append((name, False, f"{said}; fingerprint of another version: take it again"))
        elif fp.get("partial"):
            out.append((name, False, f"{said}; fingerprint partial (corpus did not fit)"))
        elif run.get("dirty"):
            out.append((name, False, f"{said}; ran on uncommitted code"))
        else:
            moved = changed(fp["digests"], index)
            if moved:
                shown = ", ".join(k.removeprefix("streamcall.") for k in moved[:3])
                more = f" and {len(moved) - 3} more" if len(moved) > 3 else ""
                out.append((name, False, f"{said}; changed since: {shown}{more}"))
            else:
                n = len(fp["digests"])
                out.append((name, True, f"{said}; {n} functions and classes unchanged"))
    return out


def _minimise_all(target: str, crashes: Path, seconds: float) -> list[str]:
    """Shrink the first input of each signature; returns the files written."""
    from fuzz.minimise import minimise
    from fuzz.targets import failure_of, get_target

    fn = get_target(target)
    written = []
    for path in sorted(crashes.glob("*.input")):
        data = path.read_bytes()
        failure = failure_of(fn, data)
        if failure is None:
            continue  # fixed since it was found
        small = minimise(fn, data, failure[0], seconds, text=target not in ("sse", "chunk"))
        _, message = failure_of(fn, small) or failure
        out = path.with_suffix(".min")
        out.write_bytes(small)
        literal = small.decode("utf-8", "replace") if target not in ("sse", "chunk") else small
        out.with_suffix(".txt").write_text(
            f"target: {target}\nsignature: {failure[0]}\nminimised: {literal!r}\n\n{message}\n"
        )
        written.append(str(out))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("patterns", nargs="*", help="target names or globs (default: all)")
    parser.add_argument("--time", type=float, default=60, help="seconds per target (60)")
    parser.add_argument("--jobs", type=int, default=1, help="targets run at once (1)")
    parser.add_argument("--crashes", default=str(HERE / "crashes"), help="failures go here")
    parser.add_argument("--corpus", default=str(HERE / "corpus"), help="corpora, kept")
    parser.add_argument("--max-len", type=int, default=2048, help="longest input (2048)")
    parser.add_argument("--timeout", type=int, default=30, help="seconds before a hang (30)")
    parser.add_argument("--rss-limit-mb", type=int, default=3072)
    parser.add_argument("--max-stops", type=int, default=20, help="libFuzzer stops per target")
    parser.add_argument("--minimise-time", type=float, default=60, help="seconds per failure")
    parser.add_argument("--list", action="store_true", help="print the target names")
    parser.add_argument("--ledger", default=str(HERE / "ledger.jsonl"), help="runs recorded")
    parser.add_argument(
        "--fingerprint-time", type=float, default=300, help="seconds to fingerprint a run"
    )
    parser.add_argument(
        "--status", action="store_true", help="which targets count, from the ledger; no run"
    )
    parser.add_argument(
        "--skip-done", action="store_true", help="run only the targets that do not count"
    )
    args = parser.parse_args(argv)

    from fuzz.targets import target_names

    names = target_names()
    if args.list:
        print("\n".join(names))
        return 0
    chosen = [
        n for n in names if not args.patterns or any(fnmatch.fnmatch(n, p) for p in args.patterns)
    ]
    if not chosen:
        parser.error(f"no target matches {args.patterns}; see --list")
    if args.status or args.skip_done:
        rows = status(chosen, Path(args.ledger), args.time)
        if args.status:
            for name, counts, why in rows:
                print(f"{name:<34} {'counts' if counts else 'to run':<7} {why}")
            done = sum(counts for _, counts, _ in rows)
            print(f"{done} of {len(rows)} targets count ({args.time:g} s clean, code unchanged)")
            return 0  # a query answered: what counts is in the lines, not the status
        chosen = [name for name, counts, _ in rows if not counts]
        if not chosen:
            print("every chosen target counts already")
            return 0
    if importlib.util.find_spec("atheris") is None:
        parser.error("atheris is not installed: pip install -e '.[fuzz]'")
    waves = -(-len(chosen) // max(1, args.jobs))
    print(
        f"{len(chosen)} targets, {args.time:g} s each, {args.jobs} at a time: about "
        f"{waves * args.time / 60:.0f} min of fuzzing, plus minimising",
        flush=True,
    )
    started = time.monotonic()
    results: list[dict[str, Any]] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_target, n, args.time, args): n for n in chosen}
        for future in concurrent.futures.as_completed(futures):
            try:
                result = future.result()
            except Exception as exc:  # the campaign's own failure: report it, go on
                name = futures[future]
                sig = f"campaign error: {type(exc).__name__}: {exc}"
                result = {"target": name, "inputs": 0, "failures": 1, "distinct": 1}
                result["signatures"] = {sig: 1}
            results.append(result)
            print(
                f"  {result['target']:<34} {result['inputs']:>10,} inputs"
                f" {result['failures']:>7,} failed {result['distinct']:>3} distinct",
                flush=True,
            )
    results.sort(key=lambda r: names.index(r["target"]))
    wall = time.monotonic() - started
    print(f"\n{'target':<34} {'inputs':>10} {'failed':>7} {'distinct':>8} {'clean for':>10}")
    for r in results:
        clean = f"{r.get('clean_last_s', 0):.0f} s"
        print(
            f"{r['target']:<34} {r['inputs']:>10,} {r['failures']:>7,} {r['distinct']:>8}"
            f" {clean:>10}"
        )
        for sig, count in sorted(r["signatures"].items(), key=lambda kv: -kv[1]):
            print(f"    {count:>7,}  {sig}")
    total = sum(r["failures"] for r in results)
    print(
        f"{len(results)} targets, {sum(r['inputs'] for r in results):,} inputs, "
        f"{total:,} failed; wall time {wall / 60:.1f} min"
    )
    summary = Path(args.crashes) / "summary.json"
    summary.parent.mkdir(parents=True, exist_ok=True)
    summary.write_text(json.dumps({"wall_seconds": wall, "targets": results}, indent=1))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
