"""``streamcall detect``: which formats a checkpoint writes, read off its directory, its
``tokenizer_config.json`` or a chat template file, and why (``streamcall.detect`` decides;
this module only prints)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

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
    derived = found.derived
    if args.json:
        row = {
            "format": found.format,
            "reasoning": found.reasoning,
            "template": found.template,
            "why": found.why,
            "tool_syntax": found.tool_syntax,
            "derived": None if derived is None else _as_data(derived),
        }
        write(json.dumps(row, indent=2, ensure_ascii=False) + "\n")
        return 0
    by_template = found.tool_syntax == "derived"
    lines = [
        f"tool-call format:  {found.format or ('derived' if by_template else 'none found')}",
        f"reasoning format:  {found.reasoning or _derived_reasoning(found)}",
        f"response template: {'yes' if found.template is not None else 'no'}",
        f"why: {found.why}",
        f"tool syntax:       {found.tool_syntax}",
    ]
    if derived is not None and (derived.calls is not None or derived.reasoning is not None):
        lines.append("derived from the rendered chat template:")
        lines.extend(f"  {line}" for line in derived.describe().splitlines())
    write("\n".join(lines) + "\n")
    return 0


def _derived_reasoning(found: Any) -> str:
    derived = found.derived
    return "derived" if derived is not None and derived.reasoning is not None else "none found"


def _as_data(derived: Any) -> dict[str, Any]:
    """The derived syntax as JSON values (``streamcall.derive.Derived``)."""
    return {
        "calls": None if derived.calls is None else dataclasses.asdict(derived.calls),
        "reasoning": None if derived.reasoning is None else dataclasses.asdict(derived.reasoning),
        "refusal": None if derived.refusal is None else dataclasses.asdict(derived.refusal),
        "response_template": derived.response_template(),
    }
