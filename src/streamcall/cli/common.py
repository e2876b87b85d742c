"""What every verb of the command line shares: its name, its errors, its two outputs.

The rules, all of them:

1. **Bad input is one line.** A verb raises ``CLIError`` for anything the user can fix;
   ``main`` prints it as ``streamcall: error: MESSAGE`` on stderr and exits with its code
   (2 for bad input or usage, 1 for a failure at run time). Nothing the user types ends
   in a traceback.
2. **stdout is the result, stderr is talk.** ``write`` is for the output a pipe reads
   (events, a message, a table); ``note`` is for what was chosen and why, prefixed
   ``streamcall:``.
3. **Standard library only.** The verbs import rich, the server stack and the heavier
   parts of streamcall inside the functions that use them, so that ``streamcall --help``
   stays fast and works without any extra installed.
"""

from __future__ import annotations

import argparse
import sys
from typing import TypeAlias

__all__ = ["PROG", "CLIError", "Subparsers", "note", "version", "write"]

PROG = "streamcall"


class CLIError(Exception):
    """Bad input or usage: reported as one line on stderr, exit status ``code``."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def note(message: str) -> None:
    """One line on stderr, prefixed with the program's name."""
    sys.stderr.write(f"{PROG}: {message}\n")
    sys.stderr.flush()


def write(text: str) -> None:
    """The verb's output, on stdout."""
    sys.stdout.write(text)
    sys.stdout.flush()


def version() -> str:
    from streamcall import __version__

    return f"{PROG} {__version__}"


#: what ``add_subparsers`` returns: each verb's module adds its parser to it
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
