"""Which build is running: ``streamcall.compiled()``.

The compiled build (``STREAMCALL_COMPILE=1 pip install .``) compiles the modules
``streamcall._mypyc.COMPILED`` names with mypyc; every other install runs them as Python.
"""

from __future__ import annotations

import sys

from streamcall._mypyc import COMPILED

__all__ = ["compiled", "compiled_modules"]


def compiled_modules() -> list[str]:
    """The import names of the loaded modules that ``COMPILED`` covers."""
    names: list[str] = []
    for path in COMPILED:
        stem = path.rstrip("/").removesuffix(".py").replace("/", ".")
        names.extend(n for n in sys.modules if n == stem or n.startswith(stem + "."))
    return sorted(names)


def compiled() -> bool:
    """True when the hot path's modules are compiled (the ``STREAMCALL_COMPILE=1`` build)."""
    import streamcall.formats.engines.base
    import streamcall.reasoning._engine  # noqa: F401  (loaded, so that all are checked)

    files = [getattr(sys.modules[name], "__file__", None) or "" for name in compiled_modules()]
    return bool(files) and all(not f.endswith(".py") for f in files)
