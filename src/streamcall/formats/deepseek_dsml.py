"""DeepSeek DSML: ``<｜DSML｜invoke name="f"><｜DSML｜parameter name="k" string="true">v</…>``.

Grammar (vLLM ``deepseek_v32``, ``deepseek_v4``, ``deepseek_v41``)::

    text* ( ( BLOCK ws* invoke* ws* END-BLOCK | invoke ) text* )*
    invoke := P 'invoke name="' NAME '">' param* '</' P 'invoke>'
    param  := P 'parameter name="' KEY '"' (' string="' ('true'|'false') '"')? '>'
              value '</' P 'parameter>' ws*

with ``P`` = ``<｜DSML｜`` and BLOCK = ``function_calls`` (V3.2), ``tool_calls`` (V4);
V4.1 writes a space after the prefix (``<｜DSML｜ calls>``, ``<｜DSML｜ invoke …>``).
An invoke outside a block is a call too: DeepSeek-V4 often leaves the block token out
(SGLang's detectors accept it; vLLM's would keep it as text). The templates write a
value inline, so a value is kept as written, a newline at either end included (a file's
final newline): no newline there is framing.

The tool schema types a value when it knows the key (as vLLM's engine does, so
``string="true"`` over an integer property still gives a number); otherwise the flag does:
``string="true"`` is a string, streamed while it is written, and ``string="false"`` is
JSON, held to its closer (a string if it does not load). A ``string="false"`` value is
JSON whatever the schema says, so a JSON string (``"hello"``) is the string it encodes,
over a string property too, as vLLM's ``json.loads`` of the value has it
(``schema.flagged_json_value``). Without either, the untyped rule of ``schema.py``
applies.

An invoke whose body is a JSON object instead of parameters (``<｜DSML｜invoke
name="f">{"k": "v"}</｜DSML｜invoke>``, which SGLang's DSML detectors read) has that object
for arguments, streamed verbatim as it arrives and validated as it goes (``JSON_ARGS``). If
the object breaks, or anything but blanks and the closer follows it, the call ends
``incomplete`` with its object closed and the rest is text; a body that is neither
parameters nor an object gives ``{}`` and the body as text, as before.

A wrapper parameter: an invoke whose only parameter is ``arguments`` or ``input``, a name
the tool's schema does not have, holding a JSON object (raw, or a JSON string) whose keys
are all the tool's, has that object for arguments (``WRAPPER_KEYS``; vLLM and SGLang
unwrap it too). The parameter is held until the invoke's closer decides it. Holds back a partial block marker in text, a header until
its ``>``, and a partial closer inside a value (and a short parameter cut by the end of a
chunk, whole: see ``engines.xml_params``).
"""

from __future__ import annotations

import re
from typing import Any

from streamcall.formats.engines.xml_params import XmlParamsParser

_NAME = re.compile(r'\s*"(?P<name>[^"]*)"\s*>')
_KEY = re.compile(r'\s*"(?P<key>[^"]*)"(?:\s+string="(?P<string>true|false)")?\s*>')


class DeepSeekV32Parser(XmlParamsParser):
    names = ("deepseek_v32",)
    family = "DeepSeek-V3.2 (DSML)"
    vllm_differences = (
        "Streams string parameters while they are written (vLLM runs its regexes over "
        'the whole text each delta and emits a parameter at its closer); string="false" '
        "values that do not load as JSON become strings instead of failing the call; an "
        "invoke outside a block is a call, and an invoke whose body is a JSON object has "
        "that object for arguments (both as in SGLang). A wrapper parameter (the only one, "
        "arguments or input, not in the schema, holding an object of the tool's keys) is "
        "unwrapped only once the invoke's closer shows it is the only one, so that every "
        "chunking agrees (vLLM's streaming unwraps it at its own closer, its one-shot path "
        "only when it is alone). Text after the calls is kept. A value is kept as "
        "written, its first and last newline included: the templates write it inline "
        "(<｜DSML｜parameter ...>VALUE</｜DSML｜parameter>), so a newline there is the "
        "value's own (a file's final newline)."
    )
    # The templates write a value inline, with no framing newline inside its tags
    STRIP_NEWLINES = False
    P = "<｜DSML｜"
    CLOSE_P = "</｜DSML｜"
    BLOCK = "function_calls"
    BLOCK_OPEN = P + BLOCK + ">"
    BLOCK_CLOSE = CLOSE_P + BLOCK + ">"
    # A bare invoke, without the block around it, is a call too: DeepSeek-V4 often drops
    # the block token (SGLang's DSML suites).
    BARE_CALLS = True
    CALL_OPEN = (P + "invoke name=",)
    CALL_HEADER = _NAME
    CALL_CLOSE = CLOSE_P + "invoke>"
    PARAM_OPEN = (P + "parameter name=",)
    PARAM_HEADER = _KEY
    PARAM_CLOSE = CLOSE_P + "parameter>"
    JSON_ARGS = True
    WRAPPER_KEYS = ("arguments", "input")

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        p, q = cls.P, cls.CLOSE_P
        body = "".join(
            f'{p}invoke name="{name}">\n'
            + "".join(
                f'{p}parameter name="{k}" string="{"true" if isinstance(v, str) else "false"}">'
                f"{cls.raw_value(v)}{q}parameter>\n"
                for k, v in args.items()
            )
            + f"{q}invoke>\n"
            for name, args in calls
        )
        return f"{cls.BLOCK_OPEN}\n{body}{cls.BLOCK_CLOSE}"


class DeepSeekV4Parser(DeepSeekV32Parser):
    names = ("deepseek_v4",)
    family = "DeepSeek-V4 (DSML, tool_calls block)"
    BLOCK = "tool_calls"
    BLOCK_OPEN = DeepSeekV32Parser.P + BLOCK + ">"
    BLOCK_CLOSE = DeepSeekV32Parser.CLOSE_P + BLOCK + ">"


class DeepSeekV41Parser(DeepSeekV32Parser):
    names = ("deepseek_v41",)
    family = "DeepSeek-V4.1 (DSML with spaced tags, calls block)"
    P = "<｜DSML｜ "
    CLOSE_P = "</｜DSML｜ "
    BLOCK = "calls"
    BLOCK_OPEN = P + BLOCK + ">"
    BLOCK_CLOSE = CLOSE_P + BLOCK + ">"
    CALL_OPEN = (P + "invoke name=",)
    CALL_CLOSE = CLOSE_P + "invoke>"
    PARAM_OPEN = (P + "parameter name=",)
    PARAM_CLOSE = CLOSE_P + "parameter>"


FORMATS = (DeepSeekV32Parser, DeepSeekV4Parser, DeepSeekV41Parser)
