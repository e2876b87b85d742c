"""Thinking Machines Inkling's message tokens, which the ``inkling`` tool parser reads and
the ``inkling`` reasoning parser drops when no tool parser reads its text.

Grammar (one message of the model's turn)::

    message := '<|message_model|>' HEADER? KIND body END?
    KIND    := VISIBLE | '<|content_thinking|>' | '<|content_invoke_tool_json|>'
    VISIBLE := '<|content_text|>' | '<|content_invoke_tool_text|>' | '<|content_tool_error|>'
    END     := '<|end_message|>' | '<|content_model_end_sampling|>'

Only the tokens live here; each layer reads them with its own modes.
"""

from __future__ import annotations

__all__ = [
    "CONTENT_TEXT",
    "CONTENT_THINKING",
    "ENDS",
    "END_MESSAGE",
    "END_SAMPLING",
    "INVOKE_TOOL_JSON",
    "INVOKE_TOOL_TEXT",
    "KINDS",
    "MARKERS",
    "MESSAGE_MODEL",
    "TOOL_ERROR",
    "VISIBLE",
]

MESSAGE_MODEL = "<|message_model|>"
CONTENT_TEXT = "<|content_text|>"
CONTENT_THINKING = "<|content_thinking|>"
INVOKE_TOOL_JSON = "<|content_invoke_tool_json|>"
INVOKE_TOOL_TEXT = "<|content_invoke_tool_text|>"
TOOL_ERROR = "<|content_tool_error|>"
END_MESSAGE = "<|end_message|>"
END_SAMPLING = "<|content_model_end_sampling|>"

VISIBLE = (CONTENT_TEXT, INVOKE_TOOL_TEXT, TOOL_ERROR)
KINDS = (*VISIBLE, CONTENT_THINKING, INVOKE_TOOL_JSON)
ENDS = (END_MESSAGE, END_SAMPLING)
MARKERS = (MESSAGE_MODEL, *KINDS, *ENDS)
