"""Run benchmarks: ``python -m benchmarks [name [args ...]]``; no name runs every module.

Names are modules of this package (``sse``, ``partial``, ``formats``, ...). Arguments
after the name go to that module's ``main`` (``python -m benchmarks formats gemma4``).
``--help`` lists the names. A benchmark that needs a package which is not installed (the
peers and the proxy's server stack come with the ``bench`` extra) is one line saying
which, not a traceback; the others still run.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

EXTRA_HINT = "pip install -e '.[bench]' (from a clone of streamcall)"


def _modules() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.iter_modules([str(Path(__file__).parent)])
        if not info.name.startswith("_")
    )


def _usage(known: list[str]) -> str:
    return (
        "usage: python -m benchmarks [NAME [ARGS ...]]\n\n"
        "Runs the benchmark NAME (its ARGS go to it), or every one in turn.\n"
        f"Names: {', '.join(known)}\n"
        f"The peers measured side by side come with the bench extra: {EXTRA_HINT}\n"
    )


def _run(name: str, rest: list[str]) -> int:
    """One benchmark; 1, after one line on stderr, when a package it needs is missing."""
    try:
        entry = importlib.import_module(f"benchmarks.{name}").main
        if rest and inspect.signature(entry).parameters:
            entry(rest)
        else:
            entry()
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").partition(".")[0]
        if not missing or missing in ("benchmarks", "streamcall"):
            raise  # a bug of ours, not a package to install
        print(
            f"benchmark {name!r} needs {missing}, which is not installed: {EXTRA_HINT}",
            file=sys.stderr,
        )
        return 1
    return 0


def main(argv: list[str]) -> int:
    known = _modules()
    if argv[:1] in (["-h"], ["--help"]):
        print(_usage(known), end="")
        return 0
    if not argv:
        return max([_run(name, []) for name in known], default=0)
    name, rest = argv[0], argv[1:]
    if name not in known:
        print(f"unknown benchmark {name!r}; known: {', '.join(known)}", file=sys.stderr)
        print("see 'python -m benchmarks --help'", file=sys.stderr)
        return 2
    return _run(name, rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
