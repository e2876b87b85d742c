"""What every verb of the command line shares: its name, its errors, its inputs, its two
outputs.

The rules, all of them:

1. **Bad input is one line.** A verb raises ``CLIError`` for anything the user can fix;
   ``main`` prints it as ``streamcall: error: MESSAGE`` on stderr and exits with its code
   (2 for bad input or usage, 1 for a failure at run time). argparse's own errors (a
   value of the wrong type, an unknown option) are the same one line, with a pointer to
   the verb's ``--help`` instead of a usage block (``ArgumentParser``). Nothing the user
   types ends in a traceback.
2. **One wording per fault.** A file that cannot be read is ``cannot read [WHAT] 'PATH':
   REASON`` from every verb (``cannot_read``; the reason is the system's, in lower case).
   Numbers are checked where argparse reads them (``positive_int``, ``seconds``,
   ``port_number``), so that a bad one never reaches a sleep or a socket.
3. **A bundled example is named, never guessed.** ``examples/NAME`` that is not in the
   current folder reads the copy shipped inside the package (``streamcall.bundled``); any
   other missing path is an error, which names the bundled copy when there is one.
4. **stdout is the result, stderr is talk.** ``write`` is for the output a pipe reads
   (events, a message, a table); ``note`` is for what was chosen and why, prefixed
   ``streamcall:``.
5. **Standard library only.** The verbs import rich, the server stack and the heavier
   parts of streamcall inside the functions that use them, so that ``streamcall --help``
   stays fast and works without any extra installed.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, NoReturn, TypeAlias

from streamcall import bundled

__all__ = [
    "PROG",
    "ArgumentParser",
    "CLIError",
    "Subparsers",
    "cannot_read",
    "directory",
    "existing_path",
    "input_file",
    "load_tools",
    "note",
    "os_reason",
    "port_number",
    "positive_int",
    "positive_seconds",
    "read_bytes",
    "read_text",
    "seconds",
    "version",
    "write",
]

PROG = "streamcall"


class CLIError(Exception):
    """Bad input or usage: reported as one line on stderr, exit status ``code``."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


class ArgumentParser(argparse.ArgumentParser):
    """argparse, with its errors as the one ``streamcall: error:`` line (exit status 2)
    and a pointer to the help of the verb that was typed. Subparsers are of this class
    too (``add_subparsers`` makes them of the parent's)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{PROG}: error: {message}; see '{self.prog} --help'\n")


#: what ``add_subparsers`` returns: each verb's module adds its parser to it
Subparsers: TypeAlias = "argparse._SubParsersAction[ArgumentParser]"


# --- output ------------------------------------------------------------------------------


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


# --- input files -------------------------------------------------------------------------


def cannot_read(path: str, reason: str | OSError, what: str = "") -> CLIError:
    """The one error for a file that cannot be read: ``cannot read [WHAT] 'PATH': REASON``."""
    if isinstance(reason, OSError):
        reason = os_reason(reason)
    return CLIError(f"cannot read {what + ' ' if what else ''}{path!r}: {reason}")


def os_reason(exc: OSError) -> str:
    """The system's reason for an ``OSError``, in lower case: ``no such file or directory``."""
    text = exc.strerror or str(exc)
    return text[:1].lower() + text[1:]


def _missing(path: str, what: str) -> CLIError:
    """A path that is not there, with where the bundled copies are if it names one."""
    parts = Path(path).parts
    hint = ""
    if len(parts) == 2 and parts[0] == "examples":
        names = ", ".join(ex.file for ex in bundled.examples())
        hint = f" (bundled examples: {names})"
    elif len(parts) == 1 and (bundled.example_dir() / path).is_file():
        hint = f" (the bundled copy is examples/{path})"
    return cannot_read(path, "no such file or directory" + hint, what)


def existing_path(path: str, what: str = "") -> Path:
    """``path`` if it exists (a file or a directory); else the one ``cannot read`` error."""
    found = Path(path)
    if not found.exists():
        raise _missing(path, what)
    return found


def directory(path: str, what: str) -> Path:
    """``path`` if it is a directory (``--model-dir``); else one line saying why not."""
    found = existing_path(path, what)
    if not found.is_dir():
        raise CLIError(f"{what} {path!r}: not a directory")
    return found


def input_file(path: str, what: str = "") -> Path:
    """The file ``path`` names: as given, or for ``examples/NAME`` the bundled copy."""
    found = bundled.resolve_path(path)
    if found is None:
        raise _missing(path, what)
    if found.is_dir():
        raise cannot_read(path, "it is a directory", what)
    return found


def read_bytes(path: str, what: str = "") -> bytes:
    """The bytes of an input file (``examples/NAME`` may be a bundled example)."""
    found = input_file(path, what)
    try:
        return found.read_bytes()
    except OSError as exc:
        raise cannot_read(path, exc, what) from None


def read_text(path: str, what: str = "") -> str:
    """An input file as text (UTF-8, undecodable bytes replaced)."""
    return read_bytes(path, what).decode("utf-8", errors="replace")


def load_tools(path: str) -> list[dict[str, Any]]:
    """An OpenAI ``tools`` list from a JSON file (or an object holding one as ``tools``)."""
    try:
        value = json.loads(read_text(path, "tools file"))
    except ValueError as exc:
        raise CLIError(f"tools file {path!r} is not valid JSON: {exc}") from None
    if isinstance(value, dict) and isinstance(value.get("tools"), list):
        value = value["tools"]
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise CLIError(
            f"tools file {path!r} must hold a JSON list of OpenAI tools "
            '([{"type": "function", "function": {...}}, ...])'
        )
    return value


# --- numbers, checked where argparse reads them ------------------------------------------


def positive_int(text: str) -> int:
    """A whole number, 1 or more (``--chunk``, ``--workers``)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number, 1 or more: {text!r}")
    return value


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def seconds(text: str) -> float:
    """A finite number of seconds, 0 or more (``--delay``, ``--replay-delay``)."""
    value = _float(text)
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a number of seconds, 0 or more: {text!r}")
    return value


def positive_seconds(text: str) -> float:
    """A finite number of seconds above 0 (``--timeout``)."""
    value = _float(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0: {text!r}")
    return value


def port_number(text: str) -> int:
    """A TCP port, 1 to 65535 (``--port``)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 1 to 65535: {text!r}")
    return value
