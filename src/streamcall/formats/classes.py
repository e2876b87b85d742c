"""Each format name's parser class, found once: every module of ``streamcall.formats``
declares its classes in ``FORMATS``, and each class lists its names.

Loaded on first use (each format module imported then, once). The registry's
``parser_class`` answers the names users give (``auto`` included); this module answers the
format names only, so that the ``auto`` sniffer, which picks one of them, needs nothing
of the registry.
"""

from __future__ import annotations

import importlib
import pkgutil

import streamcall.formats as _pkg
from streamcall.aliases import tool_alias
from streamcall.formats.engines.base import ToolParser

__all__ = ["format_classes", "lookup"]

_CLASSES: dict[str, type[ToolParser]] = {}
_NOT_FORMATS = ("registry", "classes")


def format_classes() -> dict[str, type[ToolParser]]:
    """Every format name's class (the same dict each time)."""
    if not _CLASSES:
        for info in pkgutil.iter_modules(_pkg.__path__):
            if info.ispkg or info.name.startswith("_") or info.name in _NOT_FORMATS:
                continue
            module = importlib.import_module(f"{_pkg.__name__}.{info.name}")
            for cls in getattr(module, "FORMATS", ()):
                for name in cls.names:
                    _CLASSES[name] = cls
    return _CLASSES


def lookup(name: str) -> type[ToolParser]:
    """The parser class of the format ``name`` or of an SGLang spelling of it
    (``streamcall.aliases``); ``ValueError`` naming the known ones."""
    classes = format_classes()
    try:
        return classes[tool_alias(name)]
    except KeyError:
        known = ", ".join(sorted(classes))
        raise ValueError(f"unknown tool-call format {name!r}; known formats: {known}") from None
