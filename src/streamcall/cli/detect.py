"""``streamcall detect``: which formats a checkpoint writes, read off its directory, its
``tokenizer_config.json`` or a chat template file, and why (``streamcall.detect`` decides;
this module only prints)."""

from __future__ import annotations

import argparse
import json

from streamcall.cli.common import CLIError, Subparsers, existing_path, write

__all__ = ["add_parser", "run"]


def add_parser(sub: Subparsers) -> None:
    """The ``detect`` verb's options."""
    d = sub.add_parser(
        "detect",
        help="say which formats a checkpoint writes (from its chat template or response template)",
        description=(
            "Read a model directory, its tokenizer_config.json or a chat template file and "
            "say which tool-call and reasoning formats its output is in, and why."
        ),
    )
    d.add_argument("source", metavar="DIR|FILE", help="model directory or file")
    d.add_argument("--json", action="store_true", help="machine-readable output")
    d.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print what ``streamcall.detect`` finds in the source, and why."""
    from streamcall.detect import detect

    try:
        found = detect(existing_path(args.source))
    except (OSError, ValueError) as exc:
        raise CLIError(str(exc)) from None
    if args.json:
        row = {
            "format": found.format,
            "reasoning": found.reasoning,
            "template": found.template,
            "why": found.why,
        }
        write(json.dumps(row, indent=2, ensure_ascii=False) + "\n")
        return 0
    lines = [
        f"tool-call format:  {found.format or 'none found'}",
        f"reasoning format:  {found.reasoning or 'none found'}",
        f"response template: {'yes' if found.template is not None else 'no'}",
        f"why: {found.why}",
    ]
    write("\n".join(lines) + "\n")
    return 0
