"""``streamcall examples``: the recorded model outputs bundled with the package
(``streamcall.bundled``), which ``parse examples/NAME`` reads from any directory and the
proxy's built-in upstream replays."""

from __future__ import annotations

import argparse
import json

from streamcall import bundled
from streamcall.cli.common import Subparsers, write

__all__ = ["add_parser", "run"]


def add_parser(sub: Subparsers) -> None:
    """The ``examples`` verb's options."""
    e = sub.add_parser("examples", help="list the bundled recorded outputs")
    e.add_argument("--json", action="store_true", help="machine-readable output")
    e.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    exs = bundled.examples()
    if args.json:
        rows = [
            {
                "file": ex.file,
                "path": str(ex.path),
                "model": ex.model,
                "format": ex.format,
                "reasoning": ex.reasoning,
                "about": ex.about,
            }
            for ex in exs
        ]
        write(json.dumps(rows, indent=2) + "\n")
        return 0
    lines = [f"Bundled examples ({bundled.example_dir()}):"]
    for ex in exs:
        lines.append(f"  examples/{ex.file}")
        lines.append(f"      model {ex.model}; {ex.about}")
    write("\n".join(lines) + "\n")
    return 0
