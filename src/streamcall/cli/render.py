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
from typing import Any

from streamcall.cli.common import (
    CLIError,
    Subparsers,
    existing_path,
    load_tools,
    read_text,
    write,
)

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
        help=(
            "a chat_template_kwargs member, its value in JSON, e.g. enable_thinking=false "
            "(repeatable)"
        ),
    )
    r.add_argument("--json", action="store_true", help="the prompt, stop strings and template")
    r.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Render the request; print the prompt (or, with ``--json``, its stop strings and
    template too)."""
    from streamcall.prompt import Prompter, TemplateError, family_for, load_chat_template

    body = _request(args)
    try:
        if args.model_dir is not None or args.template is not None:
            source = args.model_dir or args.template
            existing_path(source, "--model-dir" if args.model_dir is not None else "--template")
            template = load_chat_template(source)
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


def _request(args: argparse.Namespace) -> dict[str, Any]:
    """The chat request: the file (or a bare messages list), with what the options add."""
    raw = sys.stdin.read() if args.request == "-" else read_text(args.request)
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
        body["tools"] = load_tools(args.tools)
    for item in args.kwarg or []:
        key, value = _kwarg(item)
        body.setdefault("chat_template_kwargs", {})[key] = value
    return body


#: Python's spelling of JSON's three words, which a shell user types first
_PYTHON_WORDS = {"True": "true", "False": "false", "None": "null"}


def _kwarg(item: str) -> tuple[str, Any]:
    """``NAME=JSON`` as a name and its value. A value that is not JSON is an error, never
    a string: ``enable_thinking=False`` read as the string ``"False"`` would be truthy."""
    key, sep, value = item.partition("=")
    if not sep or not key:
        raise CLIError(f"--kwarg {item!r}: expected NAME=JSON, e.g. enable_thinking=false")
    try:
        return key, json.loads(value)
    except ValueError:
        pass
    if value in _PYTHON_WORDS:
        hint = f"{key}={_PYTHON_WORDS[value]}, not {value}"
    elif value[:1] in ("{", "[", "'", '"'):
        hint = "strings and keys in double quotes, true/false/null in lower case"
    else:
        hint = f"a string goes in double quotes: {key}='\"{value}\"'"
    raise CLIError(f"--kwarg {item!r}: the value must be JSON ({hint})")
