"""streamcall: a streaming LLM response to clean events, in linear time, for every format.

The layers, in the order data flows through them:

    bytes -> sse (SSEDecoder) -> chunks (decode_chunk) -> reasoning -> formats -> events
                                  partial (repair_json, PartialJSON) serves every layer

Everything here is sans-IO: ``feed`` in, events out.
"""

from __future__ import annotations

# --- events -------------------------------------------------------------------------------
from streamcall.events import (
    Event,
    Finish,
    Reasoning,
    StreamError,
    Text,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)

# --- model-text layer: tool-call formats --------------------------------------------------
# isort: split
from streamcall.formats.registry import (
    Parsed,
    ToolCall,
    ToolParser,
    format_for_model,
    formats,
    parse_tool_calls,
    tool_parser,
)

# --- reasoning ----------------------------------------------------------------------------
# isort: split
from streamcall.output import OutputParser, output_parser, parse_output
from streamcall.reasoning import (
    ReasoningParser,
    reasoning_format_for_model,
    reasoning_formats,
    reasoning_parser,
)
from streamcall.reasoning.switches import prompt_opened_for, thinking_requested

# --- reading the checkpoint: Hugging Face response templates -------------------------------
# isort: split
from streamcall.response_templates import (
    ResponseTemplate,
    load_response_template,
    parse_response,
    response_parser,
    response_template_for,
)

# --- syntax layer: partial JSON, and the UI layer -----------------------------------------
# isort: split
from streamcall.partial import (
    PartialJSON,
    StringAppend,
    ValueComplete,
    parse_partial_json,
    repair_json,
)
from streamcall.view import CallView, call_view

# --- byte and chunk layers, whole streams -------------------------------------------------
# isort: split
from streamcall.chunks import (
    ChatAccumulator,
    ChunkDelta,
    ChunkError,
    Message,
    MessageToolCall,
    ToolCallFragment,
    Usage,
    decode_chunk,
)
from streamcall.sse import SSEDecoder, SSEEncoder, SSEEvent
from streamcall.stream import StreamParser

# --- the streams agents receive: the Responses and Messages APIs ----------------------
# isort: split
from streamcall.agent_streams import MessagesStreamParser, ResponsesStreamParser

# --- reading the checkpoint: which formats it writes ----------------------------------
# isort: split
from streamcall.build import compiled
from streamcall.detect import Detected, detect
from streamcall.prompt import ChatTemplate, TemplateError, load_chat_template, render_prompt

__version__ = "0.1.0"

__all__ = [
    "CallView",
    "ChatAccumulator",
    "ChatTemplate",
    "ChunkDelta",
    "ChunkError",
    "Detected",
    "Event",
    "Finish",
    "Message",
    "MessageToolCall",
    "MessagesStreamParser",
    "OutputParser",
    "Parsed",
    "PartialJSON",
    "Reasoning",
    "ReasoningParser",
    "ResponseTemplate",
    "ResponsesStreamParser",
    "SSEDecoder",
    "SSEEncoder",
    "SSEEvent",
    "StreamError",
    "StreamParser",
    "StringAppend",
    "TemplateError",
    "Text",
    "ToolCall",
    "ToolCallArgs",
    "ToolCallEnd",
    "ToolCallFragment",
    "ToolCallStart",
    "ToolParser",
    "Usage",
    "UsageEvent",
    "ValueComplete",
    "call_view",
    "compiled",
    "decode_chunk",
    "detect",
    "format_for_model",
    "formats",
    "load_chat_template",
    "load_response_template",
    "output_parser",
    "parse_output",
    "parse_partial_json",
    "parse_response",
    "parse_tool_calls",
    "prompt_opened_for",
    "reasoning_format_for_model",
    "reasoning_formats",
    "reasoning_parser",
    "render_prompt",
    "repair_json",
    "response_parser",
    "response_template_for",
    "thinking_requested",
    "tool_parser",
]
