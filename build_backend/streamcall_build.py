"""The build backend: setuptools', plus mypy as a build requirement when the compiled build
is asked for (``STREAMCALL_COMPILE=1``); a plain build needs nothing beyond setuptools."""

from __future__ import annotations

import os
from typing import Any

from setuptools import build_meta as _orig
from setuptools.build_meta import *  # noqa: F403

# the mypyc the hot path is tested with (scripts/test-compiled), and the optional imports
# mypy follows from the compiled modules, so that it checks them as the repository does
MYPYC = ["mypy==2.4.1", "orjson>=3.9", "jinja2>=3.1.6"]


def _compile() -> bool:
    return os.environ.get("STREAMCALL_COMPILE", "") not in ("", "0")


# (setuptools' own hooks run setup.py to ask it, and setup.py needs mypyc to be asked)


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    if _compile():
        return list(MYPYC)
    return _orig.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    if _compile():
        return list(MYPYC)
    return _orig.get_requires_for_build_editable(config_settings)
