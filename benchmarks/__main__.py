"""Run benchmarks: ``python -m benchmarks [name [args ...]]``; no name runs every module.

Names are modules of this package (``sse``, ``partial``, ``formats``, ...). Arguments
after the name go to that module's ``main`` (``python -m benchmarks formats gemma4``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
from pathlib import Path


def _modules() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.iter_modules([str(Path(__file__).parent)])
        if not info.name.startswith("_")
    )


def main(argv: list[str]) -> int:
    known = _modules()
    if not argv:
        for name in known:
            importlib.import_module(f"benchmarks.{name}").main()
        return 0
    name, rest = argv[0], argv[1:]
    if name not in known:
        print(f"unknown benchmark {name!r}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    entry = importlib.import_module(f"benchmarks.{name}").main
    if rest and inspect.signature(entry).parameters:
        entry(rest)
    else:
        entry()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
