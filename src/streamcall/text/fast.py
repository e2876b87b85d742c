"""The one switch for the text layer's fast reads.

A fast read takes, in one regex or one test, a piece of text that the reference read
beside it would take in several steps: whole small members of a JSON object at once, a
run of plain string text, a member cut by the end of the chunk held whole, a buffer in
which no stop marker can begin. Each one is a method or function of the text layer
(``streamcall.text``) with its reference path next to it, and each one reads ``FAST``
every time it runs: when it is False every fast read takes its reference path, so the
equivalence tests run the same parser both ways (``with reference(): ...``).

``FAST`` is True: every fast read measured faster than its reference path
(``docs/performance.md``). A read that measures slower is not written as a fast read.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["FAST", "reference"]

#: Whether the fast reads run (True), or every read takes its reference path (False).
FAST = True


@contextmanager
def reference() -> Iterator[None]:
    """Run the block with every fast read on its reference path (for tests)."""
    global FAST
    saved = FAST
    FAST = False
    try:
        yield
    finally:
        FAST = saved
