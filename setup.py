"""Only for the optional compiled build: ``STREAMCALL_COMPILE=1 pip install .`` compiles the
hot path with mypyc (the modules ``src/streamcall/_mypyc.py`` names in ``COMPILED``). Without
the variable this adds nothing, and the package is pure Python as ``pyproject.toml`` says."""

from __future__ import annotations

import os
import runpy

from setuptools import setup

ext_modules = []
if os.environ.get("STREAMCALL_COMPILE", "") not in ("", "0"):
    from mypyc.build import mypycify

    spec = runpy.run_path(os.path.join("src", "streamcall", "_mypyc.py"))
    # (mypyc names each module from its path: src/ holds no __init__.py)
    ext_modules = mypycify([os.path.join("src", p) for p in spec["COMPILED"]], opt_level="3")

setup(ext_modules=ext_modules)
