"""The ``streamcall`` command line: one module per verb, and ``main``.

    parse      cli/parse.py     model text or an SSE capture to events or a final message
    formats    cli/formats.py   the tool-call and reasoning formats and their routing
    examples   cli/examples.py  the bundled recorded outputs
    detect     cli/detect.py    which formats a checkpoint writes, and why
    render     cli/render.py    the prompt ``serve --upstream-tools render`` sends
    serve      cli/serve.py     the OpenAI-compatible proxy (the ``server`` extra)
    bench      cli/bench.py     ``python -m benchmarks``, from a source checkout

Each verb's module builds its own subparser (``add_parser``) and runs it (``run``);
``cli/common.py`` holds what they share (``CLIError`` and the one-line errors, reading
input files, checked numbers, stderr and stdout), and ``cli/sinks.py`` what ``parse``
writes. This module only wires them together.

Only the standard library is imported at module level; rich and the server stack are
imported lazily by the verbs that need them. Bad input never ends in a traceback: it gets
one line on stderr and exit status 2 (1 for a failure at run time, 130 on ^C).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from streamcall.cli import bench, detect, examples, formats, parse, render, serve
from streamcall.cli.common import PROG, ArgumentParser, CLIError, note, version
from streamcall.cli.formats import formats_markdown
from streamcall.cli.parse import looks_like_sse
from streamcall.cli.serve import parse_size
from streamcall.cli.sinks import event_json

__all__ = [
    "CLIError",
    "build_parser",
    "event_json",
    "formats_markdown",
    "looks_like_sse",
    "main",
    "parse_size",
]

#: the verbs, in the order ``streamcall --help`` lists them
_VERBS = (parse, formats, examples, detect, render, serve, bench)


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: the program's options, then each verb's subparser."""
    parser = ArgumentParser(
        prog=PROG,
        description=(
            "Streaming LLM output to clean events: text, reasoning and tool calls with "
            "streamed arguments, for every model's tool-call format."
        ),
        epilog="Start here: streamcall parse examples/hermes_think.txt --message",
    )
    parser.add_argument("--version", action="version", version=version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for verb in _VERBS:
        verb.add_parser(sub)
    return parser


def _verb_parser(parser: argparse.ArgumentParser, verb: str | None) -> Any:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(verb) if verb else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:  # said by the verb's parser, whose --help lists what it takes
            verb = _verb_parser(parser, args.command)
            (verb or parser).error(f"unrecognized arguments: {' '.join(extras)}")
    except SystemExit as exc:  # --help, --version, or argparse's one-line error
        return exc.code if isinstance(exc.code, int) else 2
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except CLIError as exc:
        note(f"error: {exc}")
        return exc.code
    except KeyboardInterrupt:
        note("interrupted")
        return 130
    except BrokenPipeError:
        # the reader went away (streamcall parse ... | head): not an error; point stdout
        # at /dev/null so that the interpreter's final flush does not complain
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
