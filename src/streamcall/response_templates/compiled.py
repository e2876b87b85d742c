"""The compiled, frozen form of a response template: ``Anchor``, ``Field``, ``ResponseTemplate``.

``spec.compile_template`` checks a template and builds these; the one-shot reader
(``oneshot``), the streaming one (``stream``) and the content parsers (``content``) read
them. Rules: plain frozen, slotted data with no behaviour beyond reading itself; this
module imports nothing else of the package, so that every module of it can name these
types (``spec`` builds them, ``content`` reads a ``Field``) without an import circle.
``STREAMABLE_PARSERS`` lives here for the same reason: it is what ``Field.streamable``
asks.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from dataclasses import field as _dataclass_field
from typing import Any

__all__ = ["STREAMABLE_PARSERS", "Anchor", "Field", "ResponseTemplate"]

# Content parsers whose value is the body itself (up to whitespace): a streaming reader
# can show their text as it arrives. The others give a value only once the region closes.
STREAMABLE_PARSERS = frozenset({"text", "int", "float", "bool"})


@dataclass(frozen=True, slots=True)
class Anchor:
    r"""One delimiter: where a region opens or closes, or where the message starts.

    ``pattern`` is what matches it (compiled with ``DOTALL``). For a literal anchor,
    ``literals`` holds the strings (deduplicated, first-seen order) and ``pattern`` is
    their alternation, longest first; ``can_extend`` says that one literal is a strict
    prefix of another, so that a match of the shorter one at a buffer's edge may still
    grow. A regex anchor has ``literals`` None.

    ``ahead`` is set when the pattern is a lookahead that scans forward for something,
    ``(?=[\s\S]*?X)`` (or ``.*?``, greedy or lazy, ``X`` without named groups): it matches,
    zero-width, at every position at or before a match of ``X``. So the first match from a
    position is there exactly when ``ahead`` (``X``) matches there or later, which one
    forward search of ``X`` decides; the lookahead itself costs a scan to ``X`` (or to the
    end) from every position it is tried at."""

    pattern: re.Pattern[str]
    literals: tuple[str, ...] | None = None
    can_extend: bool = False
    ahead: re.Pattern[str] | None = None

    @property
    def groups(self) -> frozenset[str]:
        """The pattern's named groups (the captures a transform can use)."""
        return frozenset(self.pattern.groupindex)

    @property
    def is_literal(self) -> bool:
        return self.literals is not None


@dataclass(frozen=True, slots=True)
class Field:
    """One field of the output message, and the region of text it is read from.

    ``open`` None makes it the implicit field (text outside every other region);
    ``close`` None lets the region run to the end of the text. ``content_args`` and
    ``transform`` are private copies of the template's values, kept as given (they are
    checked when a region closes, as transformers checks them)."""

    name: str
    open: Anchor | None
    close: Anchor | None
    content: str = "text"
    content_args: Any = _dataclass_field(default_factory=dict)
    repeats: bool = False
    join: str | None = None
    optional: bool = True
    transform: Any = None
    transform_each: bool = False

    @property
    def streamable(self) -> bool:
        """Whether the body's text is the value (a streaming reader may show it as it
        arrives), rather than something parsed once the region closes."""
        return self.content in STREAMABLE_PARSERS


@dataclass(frozen=True, slots=True, eq=False)
class ResponseTemplate:
    """A checked, compiled response template.

    ``fields`` keeps the template's order; ``implicit`` is the field without an opener, if
    any. ``default_values`` and ``source`` are private copies of the template's
    ``defaults`` and of the whole dict; read them through :meth:`defaults` and
    :meth:`as_dict`, which give fresh copies."""

    fields: tuple[Field, ...]
    start_anchor: Anchor
    implicit: Field | None = None
    default_values: Any = _dataclass_field(default_factory=dict)
    source: Any = _dataclass_field(default_factory=dict)

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def defaults(self) -> dict[str, Any]:
        """A fresh copy of ``defaults``: the start of every result."""
        return copy.deepcopy(dict(self.default_values))

    def as_dict(self) -> dict[str, Any]:
        """The template as a dict again (a fresh copy of what it was compiled from)."""
        return copy.deepcopy(dict(self.source))
