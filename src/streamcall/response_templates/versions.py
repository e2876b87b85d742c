"""Which transformers release's reading: the rules that changed between 5.24 and 5.25.

A response template says nothing about the release that reads it (its ``version`` is the
spec's, 1 in both), so the caller picks one with ``transformers_version=`` (a version
string such as ``"5.24"``, ``"5.25.0"`` or ``transformers.__version__``); ``None`` reads as
the newest release streamcall follows. A release before 5.25 reads by 5.24's rules, one
from 5.25 on by 5.25's.

What 5.25 changed in the reading of text (``utils/chat_parsing``):

- ``xml-inline`` takes ``value_parser_by: {"group": G, "parsers": {capture: parser}}``: each
  tag's value goes through the parser its group ``G`` captured (``value_parser`` when the
  capture has no entry or the group did not take part). 5.24 ignores the key.
- A region read by a field with ``value_parser_by`` is not typed by the request's tools:
  the model's output said how to read each value.
- The ``json`` and ``python-call-list`` parsers tell a quoted string from a literal, so the
  tools' typing leaves a parameter whose types allow ``string`` as it was read (5.24 casts
  a string value to the first type it fits, ``"5"`` to ``5`` for ``["integer", "string"]``).

5.25 also reads token ids, where a control token spelled out with ordinary tokens is text;
streamcall takes token-tagged text for that in either release's rules (``control``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["LATEST", "RELEASES", "Rules", "rules_for"]

# Structured parsers whose syntax tells quoted strings from typed literals (5.25).
TYPED_STRUCTURED_PARSERS = frozenset({"json", "python-call-list"})


@dataclass(frozen=True, slots=True)
class Rules:
    """One release's reading: ``release`` names it (``"5.24"``, ``"5.25"``)."""

    release: str
    value_parser_by: bool
    typed_parsers_keep_strings: bool

    def types_region(self, content_args: object) -> bool:
        """Whether a closed region of this field is typed by the request's tools."""
        if not self.value_parser_by:
            return True
        return "value_parser_by" not in content_args  # type: ignore[operator]

    def keeps_strings(self, content: str) -> bool:
        """Whether the tools' typing leaves string-allowing parameters of this field alone."""
        return self.typed_parsers_keep_strings and content in TYPED_STRUCTURED_PARSERS


RELEASES: dict[str, Rules] = {
    "5.24": Rules("5.24", value_parser_by=False, typed_parsers_keep_strings=False),
    "5.25": Rules("5.25", value_parser_by=True, typed_parsers_keep_strings=True),
}
LATEST = "5.25"

_VERSION = re.compile(r"(\d+)\.(\d+)")


def rules_for(version: str | None) -> Rules:
    """The rules of the release ``version`` names (the newest followed for ``None``).

    A ``ValueError`` for a string that is not a version, or names a release before 5
    (streamcall reads templates as 5.24 does, and as 5.25 does)."""
    if version is None:
        return RELEASES[LATEST]
    m = _VERSION.match(version) if isinstance(version, str) else None
    if m is None:
        raise ValueError(f"transformers_version: {version!r} is not a version such as '5.25.0'")
    major, minor = int(m.group(1)), int(m.group(2))
    if major < 5:
        raise ValueError(
            f"transformers_version: {version!r}: response templates are read as transformers "
            "5.24 and 5.25 read them; earlier releases are not followed"
        )
    return RELEASES["5.25" if (major, minor) >= (5, 25) else "5.24"]
