"""streamcall pure, streamcall compiled and vLLM's Rust tool parser, per chunk:
``python -m benchmarks rust [--with PYTHON] [--rust PATH]``.

vLLM 0.27.1 ships three of its tool parsers in Rust (``vllm/_rust_tool_parser.abi3.so``,
a PyO3 module that imports without torch or the rest of vLLM): ``KimiK2ToolParser``,
``DeepSeekV4ToolParser`` and ``MinimaxM3ToolParser``. They are streamcall's ``kimi_k2``,
``deepseek_v4`` and ``minimax_m3``. For each, one call whose arguments are 16 and 64 KB
(``string``: one long string value; ``object``: many small keys, as in ``formats``) is
rendered and fed in 7-character chunks to each parser, which is made afresh for each run
and finished at the end; the Rust parser is driven as vLLM's ``RustToolParser`` drives it
(``parse_into(delta, output)`` per chunk, ``finish()`` at the end). Reported: the CPU per
chunk at 64 KB, each side's growth exponent from 16 to 64 KB, and the ratio of each
streamcall build to Rust. The issue's bar is at most 2x Rust for the compiled build.

The Rust module is one file of the vLLM wheel; no GPU stack is installed::

    pip download vllm==0.27.1 --no-deps -d /tmp/vllm-wheel
    unzip -o /tmp/vllm-wheel/vllm-0.27.1-*.whl 'vllm/_rust_tool_parser.abi3.so' -d .vllm-rust

(``.vllm-rust/vllm/_rust_tool_parser.abi3.so`` is where this looks; ``--rust PATH`` or
``$VLLM_RUST_TOOL_PARSER`` names another place.) Without it the Rust columns say so.

Two builds side by side: this interpreter's streamcall (pure or compiled, as
``streamcall.compiled()`` says) and, with ``--with PYTHON``, the streamcall installed for
another interpreter, measured there in a subprocess on the same fixtures. Without
``--with``, a pure interpreter is paired with ``.venv-compiled/bin/python`` when that
exists (``scripts/test-compiled`` makes it). Each side is measured three times,
interleaved, and its best kept. ``--json`` prints this interpreter's figures only (what
the subprocess answers).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import streamcall
from benchmarks._util import best_of, growth_exponent, table
from benchmarks.formats import chunks_of, object_args, stream_time, string_args, tools_for
from streamcall.formats.registry import parser_class

ROOT = Path(__file__).parent.parent
PAIRS = (
    ("kimi_k2", "KimiK2ToolParser"),
    ("deepseek_v4", "DeepSeekV4ToolParser"),
    ("minimax_m3", "MinimaxM3ToolParser"),
)
SIZES = (16384, 65536)
KINDS = {"string": string_args, "object": object_args}
ROUNDS = 3
DEFAULT_RUST = ROOT / ".vllm-rust" / "vllm" / "_rust_tool_parser.abi3.so"
DEFAULT_OTHER = ROOT / ".venv-compiled" / "bin" / "python"

Fixture = tuple[str, str, int, list[str], list[dict[str, Any]], dict[str, Any]]


def fixtures() -> list[Fixture]:
    out = []
    for fmt, _ in PAIRS:
        for kind, make in KINDS.items():
            for size in SIZES:
                args = make(size)
                text = parser_class(fmt).render([("f", args)])
                out.append((fmt, kind, size, chunks_of(text), tools_for(args), args))
    return out


def load_rust(path: Path) -> ModuleType | None:
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("vllm._rust_tool_parser", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rust_time(rust: ModuleType, name: str, fixture: Fixture) -> tuple[float, bool]:
    """Rust's best time, and whether its coalesced call is the fixture's call."""
    _, _, _, pieces, tools, args = fixture
    schema = tools[0]["function"]["parameters"]
    rtools = [rust.Tool("f", None, schema, None)]

    def run() -> None:
        p = rust.ToolParser(name, rtools)
        out = rust.ToolParserOutput()
        parse_into = p.parse_into
        for piece in pieces:
            parse_into(piece, out)
        p.finish()

    p = rust.ToolParser(name, rtools)
    out = rust.ToolParserOutput()
    for piece in pieces:
        p.parse_into(piece, out)
    out.append(p.finish())
    got = out.coalesce()
    same = len(got.calls) == 1 and json.loads(got.calls[0].arguments or "{}") == args
    return best_of(run, repeat=5, clock=time.process_time), same


def own_times(fixes: list[Fixture]) -> dict[str, float]:
    return {f"{f[0]} {f[1]} {f[2]}": stream_time(f[0], f[3], f[4]) for f in fixes}


def other_times(python: str) -> tuple[bool, dict[str, float]] | None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # benchmarks/ from this checkout
    done = subprocess.run(
        [python, "-m", "benchmarks.rust", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        print(f"--with {python}: failed: {done.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    answer = json.loads(done.stdout)
    return bool(answer["compiled"]), answer["times"]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks rust", description=__doc__)
    ap.add_argument("--with", dest="other", help="another interpreter's streamcall beside")
    ap.add_argument("--rust", default=os.environ.get("VLLM_RUST_TOOL_PARSER", str(DEFAULT_RUST)))
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    opts = ap.parse_args(argv or [])
    fixes = fixtures()
    if opts.json:
        best: dict[str, float] = {}
        for _ in range(ROUNDS):
            for key, t in own_times(fixes).items():
                best[key] = min(best.get(key, t), t)
        print(json.dumps({"compiled": streamcall.compiled(), "times": best}))
        return
    here = "compiled" if streamcall.compiled() else "pure"
    other = opts.other
    if other is None and here == "pure" and DEFAULT_OTHER.exists():
        other = str(DEFAULT_OTHER)
    rust = load_rust(Path(opts.rust))
    print(
        f"kimi_k2 / deepseek_v4 / minimax_m3: one call, {'/'.join(str(s // 1024) for s in SIZES)}"
        f" KB arguments in 7-char chunks; this interpreter: streamcall {here}"
    )
    if rust is None:
        print(f"vLLM's Rust module is not at {opts.rust}: see this file's header to fetch it")
    sides: dict[str, dict[str, float]] = {here: {}}
    rust_best: dict[str, float] = {}
    rust_same: dict[str, bool] = {}
    for _ in range(ROUNDS):  # interleaved rounds: the sides see the same machine
        for key, t in own_times(fixes).items():
            sides[here][key] = min(sides[here].get(key, t), t)
        if other:
            got = other_times(other)
            if got is not None:
                label = "compiled" if got[0] else "pure"
                label = label if label != here else f"{label} ({other})"
                mine = sides.setdefault(label, {})
                for key, t in got[1].items():
                    mine[key] = min(mine.get(key, t), t)
        if rust is not None:
            for fix, (_, rname) in ((f, p) for f in fixes for p in PAIRS if p[0] == f[0]):
                key = f"{fix[0]} {fix[1]} {fix[2]}"
                t, same = rust_time(rust, rname, fix)
                rust_best[key] = min(rust_best.get(key, t), t)
                rust_same[key] = same
    labels = sorted(sides, key=lambda s: (s != "pure", s))
    rows = []
    for fmt, _ in PAIRS:
        for kind in KINDS:
            keys = [f"{fmt} {kind} {size}" for size in SIZES]
            n = len(next(f for f in fixes if f[0] == fmt and f[1] == kind and f[2] == SIZES[-1])[3])
            row: list[object] = [f"{fmt} {kind}"]
            for label in labels:
                times = [sides[label][k] for k in keys]
                row += [times[-1] / n * 1e6, growth_exponent(SIZES, times)]
            if rust_best:
                times = [rust_best[k] for k in keys]
                row += [times[-1] / n * 1e6, growth_exponent(SIZES, times)]
                row += [f"{sides[label][keys[-1]] / rust_best[keys[-1]]:.2f}x" for label in labels]
                row.append("yes" if all(rust_same[k] for k in keys) else "NO")
            rows.append(row)
    headers = ["format args"]
    for label in labels:
        headers += [f"{label} µs/chunk", "exp"]
    if rust_best:
        headers += ["Rust µs/chunk", "exp", *(f"{label}/Rust" for label in labels), "Rust right"]
    print(table(headers, rows))
    print(
        "CPU per chunk at 64 KB (best of 5 runs, 3 interleaved rounds); exp: growth from 16 "
        "to 64 KB (1.0 linear); Rust right: its coalesced call equals the fixture's"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
