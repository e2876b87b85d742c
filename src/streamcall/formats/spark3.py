"""Spark3: GLM's tagged calls, ``<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>``.

Grammar (vLLM ``vllm/tool_parsers/spark3_tool_parser.py``, at commit 81efe78; registered
as ``spark`` by the out-of-tree ``vllm-spark3-plugin`` that carries it since)::

    text* ( '<tool_call>' NAME ws* param* '</tool_call>' text* )*
    param := '<arg_key>' KEY '</arg_key>' ws* '<arg_value>' value '</arg_value>' ws*

GLM-4.7's grammar (``glm.py``, on the XML-parameter engine ``engines.xml_params``): the
name runs to its newline or the first tag; values are typed by the tool schema and kept
as written (vLLM's Spark3 parser strips no newline from them); an untyped value follows
the engine's first-character rule. A string value streams as it is written.

Held back: a partial ``<tool_call>`` at the end of text, the name until its newline or
the next tag, a key until ``<arg_value>`` (at most ``MAX_HEADER`` characters), a partial
closer inside a value. No reasoning format goes with it (vLLM registers none).
"""

from __future__ import annotations

from streamcall.formats.glm import GlmParser


class Spark3Parser(GlmParser):
    names = ("spark3", "spark")
    family = "Spark3 (GLM-style arg_key/arg_value in <tool_call>)"
    vllm_differences = (
        "Streams the call and its string values while they are written (vLLM's parser "
        "emits a call whole at </tool_call>); names are not checked against the tools "
        "(vLLM drops a call to an unknown tool); untyped values follow the documented "
        "first-character rule (vLLM keeps them strings); a call cut by the end of the "
        "stream is reported incomplete (vLLM drops the cut block); a value whose closer "
        "is missing ends at the next key or the call's closer (vLLM skips the pair)."
    )
    STRIP_NEWLINES = False


FORMATS = (Spark3Parser,)
