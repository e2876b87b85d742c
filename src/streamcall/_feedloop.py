"""Temporary re-export: the feed loop lives in ``streamcall.text.loop`` now.

This module goes when the last engine not yet on the text layer (issue 15) does.
"""

from __future__ import annotations

from streamcall.text.loop import FeedLoop

__all__ = ["FeedLoop"]
