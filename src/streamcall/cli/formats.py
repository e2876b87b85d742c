"""``streamcall formats``: the tool-call and reasoning formats, and how model ids route to
them; ``--markdown`` is the per-format table of docs/formats.md (a test keeps the two the
same), ``--response-template NAME`` a format as a Hugging Face response template.

Everything printed is read off the registries (``streamcall.formats.registry`` and
``streamcall.reasoning``): a new format shows up here without a change to this module.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from streamcall.cli.common import CLIError, Subparsers, write

__all__ = ["add_parser", "formats_markdown", "run"]


def add_parser(sub: Subparsers) -> None:
    """The ``formats`` verb's options."""
    f = sub.add_parser("formats", help="list tool-call and reasoning formats and their routing")
    f.add_argument("--json", action="store_true", help="machine-readable output")
    f.add_argument(
        "--markdown", action="store_true", help="the per-format table of docs/formats.md"
    )
    f.add_argument(
        "--response-template",
        metavar="NAME",
        help="print format NAME as a Hugging Face response template (JSON for tokenizer_config.json)",
    )
    f.set_defaults(func=run)


def _format_rows() -> list[dict[str, Any]]:
    from streamcall.formats.registry import ROUTES, formats, parser_class

    rows: list[dict[str, Any]] = []
    for name in formats():
        cls = parser_class(name)
        rows.append(
            {
                "name": name,
                "canonical": cls.names[0] if cls.names else name,
                "family": cls.family,
                "routes": [pattern for pattern, fmt in ROUTES if fmt == name],
                "vllm_differences": cls.vllm_differences,
            }
        )
    return rows


def _reasoning_rows() -> list[dict[str, Any]]:
    from streamcall.reasoning import REASONING_ROUTES, reasoning_formats

    return [
        {"name": name, "routes": [pattern for pattern, fmt in REASONING_ROUTES if fmt == name]}
        for name in reasoning_formats()
    ]


def formats_markdown() -> str:
    """The per-format table of docs/formats.md, generated from the registry."""
    lines = [
        "| format | model family | routed from model ids containing | where streamcall differs "
        "from vLLM on purpose |",
        "|---|---|---|---|",
    ]
    for r in _format_rows():
        alias = f" (alias of `{r['canonical']}`)" if r["canonical"] != r["name"] else ""
        routes = ", ".join(f"`{p}`" for p in r["routes"]) or "–"
        notes = r["vllm_differences"].replace("|", "\\|") or "–"
        lines.append(f"| `{r['name']}` | {r['family']}{alias} | {routes} | {notes} |")
    lines += ["", "| reasoning format | routed from model ids containing |", "|---|---|"]
    for r in _reasoning_rows():
        routes = ", ".join(f"`{p}`" for p in r["routes"]) or "–"
        lines.append(f"| `{r['name']}` | {routes} |")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    if args.response_template is not None:
        return _response_template(args.response_template)
    if args.markdown:
        write(formats_markdown())
        return 0
    tool_rows = _format_rows()
    reasoning_rows = _reasoning_rows()
    if args.json:
        write(json.dumps({"tool_call": tool_rows, "reasoning": reasoning_rows}, indent=2) + "\n")
        return 0
    lines = ["Tool-call formats (--format NAME; routed from --model by substring, in order):"]
    width = max((len(r["name"]) for r in tool_rows), default=4)
    for r in tool_rows:
        alias = f" (= {r['canonical']})" if r["canonical"] != r["name"] else ""
        routes = _routes_text(r["routes"], f"--format {r['name']}")
        lines.append(f"  {r['name']:<{width}}  {r['family']}{alias}")
        lines.append(f"  {'':<{width}}  {routes}")
    lines.append(
        f"  {'auto':<{width}}  the format whose marker comes first in the text (sniffed; the "
        "default of `streamcall parse` with neither --format nor --model)"
    )
    lines.append("")
    lines.append("Reasoning formats (--reasoning NAME):")
    width = max((len(r["name"]) for r in reasoning_rows), default=4)
    for r in reasoning_rows:
        routes = _routes_text(r["routes"], f"--reasoning {r['name']}")
        lines.append(f"  {r['name']:<{width}}  {routes}")
    write("\n".join(lines) + "\n")
    return 0


def _response_template(name: str) -> int:
    from streamcall.response_templates.export import UNEXPRESSIBLE, response_template_for

    try:
        template = response_template_for(name)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if template is None:
        raise CLIError(f"the response-template spec cannot express {name!r}: {UNEXPRESSIBLE[name]}")
    write(json.dumps(template, indent=2, ensure_ascii=False) + "\n")
    return 0


def _routes_text(routes: list[str], option: str) -> str:
    if routes:
        return "model ids containing: " + ", ".join(routes)
    return f"no routing: no model id picks it; give {option}"
