"""GLM-4.5/4.6/4.7/5, Poolside, Ling 3, IQuest Q1: ``<tool_call>NAME<arg_key>k</arg_key>...``.

Grammar (vLLM ``glm45``, ``glm47``, ``poolside_v1``, ``ling3``; SGLang ``iquest_q1``)::

    text* ( '<tool_call>' NAME ('\\n' | before '<') param* '</tool_call>' text* )*
    param := ( '<arg_key>' KEY '</arg_key>' ws* )+ '<arg_value>' value '</arg_value>' ws*

GLM-4.5 writes a newline after NAME (``glm45``); GLM-4.7 and GLM-5 do not (``glm47``);
both are accepted by every name. Their templates write a value inline
(``<arg_value>VALUE</arg_value>``), so a value is kept as written, a newline at either end
included (a file's final newline); Ling 3 strips one newline at each end as framing, as
vLLM's ling3 cases have it. Values are typed by the tool schema (see
``schema.py``: string values stream as they are written; others are held to their
closer). A key with no value before the next key is dropped. Holds back a partial
``<tool_call>`` in text, the name until its newline or the next tag, a key until
``<arg_value>`` (at most ``MAX_HEADER`` characters), and a partial closer inside a value
(and a short parameter cut by the end of a chunk, whole: see ``engines.xml_params``).

inclusionAI Ling 3 writes GLM-4.7's calls (vLLM's ``ling3`` is the GLM-4.7 parser with its
own reasoning: ``reasoning/specs.py``). IQuest Q1 writes them in ``<iquest_tool_call>``
and keeps string values as written (SGLang ``iquest_q1``: no newline stripped), which
IQuest-Coder V2's ``<iquestcoder_tool_call>`` is not.

``glm_call_header`` is the header of the formats that write GLM's calls in other tags
(``k2_horizon.py``, ``telechat.py``): GLM's name, or a JSON call object's head.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from streamcall.formats.engines.xml_params import XmlParamsParser

_DIFF = (
    "Streams string values while they are written (vLLM's glm4_moe emits them per "
    "regex over the whole text each delta); accepts the name with or without the "
    "newline under every name; untyped values follow the documented first-character "
    "rule (vLLM tries json.loads/literal_eval on any untyped value); text after the "
    "calls is kept as content (vLLM's one-shot path returns only the text before them). "
    "A value is kept as written, its first and last newline included: the GLM-4.5 to 5 "
    "templates write values inline (<arg_value>VALUE</arg_value>), so a newline there is "
    "the value's own (a file's final newline)."
)


#: a JSON call object's head, ``{"name": "`` (its name follows, then its tail)
_JSON_HEAD = r'(?P<json>\{\s*"name"\s*:\s*")?'
#: the name's closing quote, then the arguments' key before their ``{``, or the object's ``}``
_JSON_TAIL = r'"\s*(?:,\s*"(?:arguments|parameters)"\s*:\s*(?=\{)|(?=\}))'
#: what, after a call's opener, can never be a header: a tag (no name), a JSON object
#: whose first key is not ``name``, or a JSON call whose arguments are not an object
JSON_NO_HEADER = re.compile(
    r'\s*(?:<|\{\s*(?!"name")\S[\s\S]{5}'
    r'|\{\s*"name"\s*:\s*"[^"\\]*"\s*,\s*"(?:arguments|parameters)"\s*:\s*[^\s{])'
)


def glm_call_header(name_end: str) -> re.Pattern[str]:
    """A call's header: GLM's name, complete at its newline or before one of the
    characters ``name_end`` (``<``, the next tag), its blanks left out, or a JSON call
    object's head (the ``json`` group: ``engines.xml_params`` then reads its arguments object and
    its ``}``). Read in runs, possessively, so that a run of blanks costs its length."""
    ends = re.escape(name_end)
    run = rf"[^<\s\"{ends}]"
    return re.compile(
        rf"\s*+{_JSON_HEAD}(?P<name>[^<\s{{\"]"
        rf"(?(json)[^<\n\"]*+|(?:{run}++|[^\S\n]++(?={run}))*+))"
        rf"(?(json){_JSON_TAIL}|[^\S\n]*+(?:\n|(?=[{ends}])))"
    )


class GlmParser(XmlParamsParser):
    names: ClassVar[tuple[str, ...]] = ("glm45",)
    family = "Zhipu GLM-4.5/4.6 (name, newline), GLM-4.7/5 (no newline)"
    vllm_differences = _DIFF
    CALL_OPEN = ("<tool_call>",)
    # The name is complete at its newline or at the next tag, and never before a character
    # that is not a blank: a newline that only leads the name (``<tool_call>\nf``) does
    # not end an empty one. Blanks before the first tag with no name: not a call.
    CALL_HEADER = re.compile(
        r"\s*+(?P<name>[^<\s](?:[^<\s]++|[^\S\n]++(?=[^<\s]))*+)[^\S\n]*+(?:\n|(?=<))"
    )
    NO_HEADER = re.compile(r"\s*<")
    CALL_CLOSE = "</tool_call>"
    PARAM_OPEN = ("<arg_key>",)
    # A key written without a value before the next key (``<arg_key>a</arg_key><arg_key>b
    # </arg_key><arg_value>``) is dropped: the value belongs to the last key (SGLang's
    # poolside_v1 and GLM detectors do the same).
    PARAM_HEADER = re.compile(
        r"(?:[^<]*+</arg_key>\s*+<arg_key>)*+(?P<key>[^<]*+)</arg_key>\s*+<arg_value>"
    )
    PARAM_CLOSE = "</arg_value>"
    NEWLINE = "\n"
    # The templates write <arg_value>VALUE</arg_value>, no framing newline inside
    STRIP_NEWLINES = False

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        nl = cls.NEWLINE
        return "".join(
            f"{cls.CALL_OPEN[0]}{name}{nl}"
            + "".join(
                f"<arg_key>{k}</arg_key>{nl}<arg_value>{cls.raw_value(v)}</arg_value>{nl}"
                for k, v in args.items()
            )
            + cls.CALL_CLOSE
            for name, args in calls
        )


class Glm47Parser(GlmParser):
    names = ("glm47",)
    family = "Zhipu GLM-4.7, GLM-5 (no newline after the name)"
    NEWLINE = ""


class PoolsideParser(GlmParser):
    names = ("poolside_v1",)
    family = "Poolside (GLM-style arg_key/arg_value)"
    # vLLM's poolside_v1 keeps string values verbatim (code bodies keep their newlines).
    STRIP_NEWLINES = False


class Ling3Parser(Glm47Parser):
    names = ("ling3",)
    family = "inclusionAI Ling 3 / Ring 3 (GLM-4.7 calls)"
    # vLLM's ling3 cases frame a value in newlines (<arg_value>\nNew York\n</arg_value>)
    STRIP_NEWLINES = True


class IQuestQ1Parser(Glm47Parser):
    names = ("iquest_q1",)
    family = "IQuest Q1 (GLM-4.7 calls in iquest_tool_call tags)"
    vllm_differences = (
        "SGLang's name (vLLM has none). Streams string values while they are written "
        "(SGLang emits a call whole at its closer); a call whose value closer is missing "
        "ends at the call's closer, and a call cut by the end of the stream is reported "
        "incomplete (SGLang keeps both as text); names are not checked against the tools "
        "(SGLang drops calls to unknown tools)."
    )
    CALL_OPEN = ("<iquest_tool_call>",)
    CALL_CLOSE = "</iquest_tool_call>"
    # String values are kept byte-exact (SGLang's iquest_q1), their newlines included.
    STRIP_NEWLINES = False


FORMATS = (GlmParser, Glm47Parser, PoolsideParser, Ling3Parser, IQuestQ1Parser)
