"""The optional compiled build: which modules it compiles, and the one marker it needs.

``STREAMCALL_COMPILE=1 pip install .`` compiles the hot path (the modules named in
``COMPILED``) with mypyc, from this same typed source; a plain install stays pure Python.
``streamcall.compiled()`` (``streamcall/build.py``) says which build is running. A class that code outside the
compiled modules subclasses (a format file subclassing an engine) carries
``@mypyc_attr(allow_interpreted_subclasses=True)``: the marker comes from
``mypy_extensions`` when it is there (the compiled build's build needs it) and is a no-op
otherwise, so the pure build imports nothing beyond the standard library.

A module goes in ``COMPILED`` only if the compiled build measures faster with it there
(``python -m benchmarks rust``); ``tests/test_compiled_build.py`` pins the list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

_T = TypeVar("_T")

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure build: the marker is a no-op

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[_T], _T]:
        return lambda cls: cls


#: The hot path, compiled in the compiled build: events, the text layer, the engines and
#: the reasoning engine (paths under ``src/``; a directory means every module in it).
COMPILED: tuple[str, ...] = (
    "streamcall/events.py",
    "streamcall/text/",
    "streamcall/formats/engines/",
    "streamcall/reasoning/_engine.py",
)


__all__ = ["COMPILED", "mypyc_attr"]
