"""Deriving a parser from a chat template: ``streamcall.derive.derive`` per template.

    python -m benchmarks derive [--repeat N]

Every chat template of ``tests/fixtures/chat_templates`` is derived (its probe
conversations rendered through the sandboxed renderer, the syntax read off them, the
parser checked on the template's own rendering), the best of ``--repeat`` runs (3 by
default) in wall time. Each run starts cold: the renderer's compiled templates are cached
per process, so the cache is cleared before each run, as a proxy starting up finds it.
The table gives the median and the slowest templates, and the median of those derived and
of those refused; ``detect`` pays this once per checkpoint, at start-up, and only for a
template no fingerprint knows (or one that writes think tags no model id names).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from benchmarks._util import table
from streamcall.derive import derive

ROOT = Path(__file__).parents[1] / "tests" / "fixtures" / "chat_templates"


def _cold() -> None:
    from streamcall.prompt import jinja

    jinja._compile_cached.cache_clear()


def measure(repeat: int) -> list[tuple[str, float, str]]:
    """``(template, best seconds, outcome)`` for every fixture template."""
    entries = json.loads((ROOT / "manifest.json").read_text(encoding="utf-8"))["templates"]
    out = []
    for entry in entries:
        text = (ROOT / entry["file"]).read_text(encoding="utf-8")
        best = float("inf")
        outcome = ""
        for _ in range(repeat):
            _cold()
            start = time.perf_counter()
            found = derive(text)
            best = min(best, time.perf_counter() - start)
            outcome = found.calls.layout if found.calls else f"refused ({found.refusal.kind})"  # type: ignore[union-attr]
        out.append((entry["file"], best, outcome))
    return out


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 3
    print("== deriving a parser from a chat template (wall time, best of each, cold) ==")
    rows = measure(repeat)
    times = [t for _, t, _ in rows]
    derived = [t for _, t, o in rows if not o.startswith("refused")]
    refused = [t for _, t, o in rows if o.startswith("refused")]
    slowest = sorted(rows, key=lambda r: -r[1])[:5]
    summary = [
        ("all templates", len(rows), statistics.median(times) * 1e3, max(times) * 1e3),
        ("derived", len(derived), statistics.median(derived) * 1e3, max(derived) * 1e3),
        ("refused", len(refused), statistics.median(refused) * 1e3, max(refused) * 1e3),
    ]
    print(table(["templates", "n", "median ms", "max ms"], summary))
    print()
    print(table(["slowest", "ms", "outcome"], [(f, t * 1e3, o) for f, t, o in slowest]))


if __name__ == "__main__":
    main()
