"""``streamcall render``: the prompt that ``serve --upstream-tools render`` sends for a
chat request, rendered with a checkpoint's chat template (``--model-dir``, ``--template``)
or with streamcall's own template for a format (``--format``, or routed from ``--model``).

The request is a JSON chat body or a bare list of messages; ``--tools`` and ``--kwarg``
add to it what a client would have sent. ``streamcall.prompt`` renders; this module reads
the inputs and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from streamcall.cli.common import CLIError, Subparsers, write

__all__ = ["add_parser", "run"]


def add_parser(sub: Subparsers) -> None:
    """The ``render`` verb's options."""
    r = sub.add_parser(
        "render",
        help="print the prompt that `serve --upstream-tools render` sends for a chat request",
        description=(
            "Render a chat request (a JSON file or -, with messages, tools and "
            "chat_template_kwargs) into the model's prompt: with a checkpoint's chat template "
            "(--model-dir, --template), as transformers' apply_chat_template renders it, or "
            "with streamcall's template for a format (--format, or routed from --model)."
        ),
    )
    r.add_argument("request", metavar="FILE|-", help="a chat request body, or a messages list")
    r.add_argument("--model-dir", metavar="DIR", help="the checkpoint whose chat template to use")
    r.add_argument("--template", metavar="FILE", help="a .jinja file or tokenizer_config.json")
    r.add_argument("--format", metavar="NAME", help="use streamcall's template for this format")
    r.add_argument("--model", metavar="ID", help="the request's model (routes to a format)")
    r.add_argument("--tools", metavar="FILE", help="an OpenAI tools list to add to the request")
    r.add_argument(
        "--kwarg",
        metavar="NAME=JSON",
        action="append",
        help="a chat_template_kwargs member, e.g. enable_thinking=false (repeatable)",
    )
    r.add_argument("--json", action="store_true", help="the prompt, stop strings and template")
    r.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from streamcall.prompt import Prompter, TemplateError, family_for, load_chat_template

    raw = sys.stdin.read() if args.request == "-" else _read_file(args.request)
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise CLIError(f"{args.request}: not a JSON chat request ({exc})") from None
    if isinstance(body, list):  # a bare list of messages
        body = {"messages": body}
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        raise CLIError(f"{args.request}: expected a chat request with a 'messages' list")
    if args.model is not None:
        body["model"] = args.model
    if args.tools is not None:
        try:
            body["tools"] = json.loads(_read_file(args.tools))
        except ValueError as exc:
            raise CLIError(f"{args.tools}: not a JSON tools list ({exc})") from None
    for item in args.kwarg or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise CLIError(f"--kwarg {item!r}: expected NAME=JSON, e.g. enable_thinking=false")
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        body.setdefault("chat_template_kwargs", {})[key] = parsed
    try:
        if args.model_dir is not None or args.template is not None:
            template = load_chat_template(args.model_dir or args.template)
            prompter = Prompter(template=template, format=args.format)
        else:
            if args.format is not None and family_for(args.format) is None:
                raise CLIError(
                    f"streamcall ships no chat template for {args.format!r}: give --model-dir "
                    "or --template"
                )
            prompter = Prompter(format=args.format)
        prompt = prompter.prompt(body)
    except (TemplateError, ValueError, OSError) as exc:
        raise CLIError(str(exc)) from None
    if args.json:
        row = {"prompt": prompt.text, "stop": list(prompt.stop), "template": prompt.source}
        write(json.dumps(row, indent=2, ensure_ascii=False) + "\n")
    else:
        write(prompt.text)
    return 0


def _read_file(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from None
