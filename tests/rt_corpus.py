"""Every response template the tests collect, with sample outputs, prompts and tools.

The templates: transformers' test-suite templates (named and inline, the invalid ones
included: they must fail the same way), the ecosystem's (TRL's and ``transformers
serve``'s, tests/fixtures/response_templates/ecosystem_templates.json), and those of the
documented stream/one-shot differences and quirks. Each comes with sample outputs: the
fixture texts that use it, and for the ecosystem templates, which have no fixtures, the
outputs below (written for these tests, in each model family's own format).

``pieces(entry)`` is the vocabulary generated outputs are drawn from: the anchors' literals,
what the regex anchors match in the samples (and its first half, a delimiter cut short),
the samples' text between delimiters, and a little JSON and markup.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from reference import transformers_ref as ref

# Sample model outputs for the ecosystem templates, in each family's own syntax.
ECOSYSTEM_SAMPLES: dict[str, list[str]] = {
    "trl:qwen3": [
        "<think>\nLet me check.\n</think>\n\nSure.<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>\n'
        "<|im_end|>",
        "<think>\n\n</think>\n\nHello there!<|im_end|>",
    ],
    "trl:qwen3_5": [
        "<think>\nHmm.\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\n"
        "Paris\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
        "<|im_end|>",
        "Just text.<|im_end|>",
    ],
    "trl:glm4moe": [
        "<think>ok</think>\nHi<tool_call>get_weather\n<arg_key>city</arg_key>\n"
        "<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n"
        "</tool_call><|user|>",
        "Hello there<|user|>",
    ],
    "trl:llama3": [
        '{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}<|eot_id|>',
        "Hello!<|eot_id|>",
    ],
    "trl:gptoss": [
        "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant "
        "to=functions.get_weather<|channel|>commentary json<|message|>"
        '{"city": "Paris"}<|call|>',
        "<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>final"
        "<|message|>Hi!<|return|>",
    ],
    "trl:lfm2_2_5": [
        "<think>a</think>\n<|tool_call_start|>[get_weather(city='Paris', days=3), ping()]"
        "<|tool_call_end|>Done.<|im_end|>",
        "<|tool_call_start|>[f(x=[1, {'a': 'b'}], y=\"q\")]<|tool_call_end|><|im_end|>",
    ],
    "trl:nemotron_3": [
        "Reasoning here.\n</think>\nAnswer.<tool_call>\n<function=get_weather>\n"
        "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n<|im_end|>",
        "No closer at all, just text<|im_end|>",
    ],
    "trl:gemma4": [
        '<|channel>thought\nhmm<channel|>Sure<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,'
        "days:3}<tool_call|><|tool_response>",
        "Hi there<turn|>",
    ],
    "trl:deepseek_r1_distill": [
        "Reasoning</think>\n\nAnswer<｜end▁of▁sentence｜>",
        "Only content",
    ],
}
ECOSYSTEM_SAMPLES["transformers_serve:gemma4"] = ECOSYSTEM_SAMPLES["trl:gemma4"]
ECOSYSTEM_SAMPLES["transformers_serve:qwen3_5+qwen3_5_text+qwen3_5_moe+qwen3_5_moe_text"] = [
    *ECOSYSTEM_SAMPLES["trl:qwen3_5"]
]
ECOSYSTEM_SAMPLES[
    "transformers_serve:qwen2+qwen2_moe+qwen2_vl+qwen2_5_vl+qwen3+qwen3_moe+qwen3_next+qwen3_vl+qwen3_vl_moe"
] = [*ECOSYSTEM_SAMPLES["trl:qwen3"]]

ECOSYSTEM_PROMPTS: dict[str, list[str]] = {
    "trl:nemotron_3": ["<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n"],
    "trl:deepseek_r1_distill": ["<｜User｜>hi<｜Assistant｜><think>\n"],
}

# Templates written for these tests, for what the others do not reach: ties between
# matches, anchors whose match depends on what precedes it (``^``, lookbehind, ``\b``),
# zero-width anchors, ``$`` before a final newline, content parsers' error paths.
CONSTRUCTED: dict[str, tuple[dict[str, Any], list[str]]] = {
    "tie_open_close": (
        {
            "start_anchor": "<s>",
            "fields": {"content": {"close": "<x>"}, "a": {"open": "<x>", "close": "</x>"}},
        },
        ["pre<x>in</x>post<x>more"],
    ),
    "tie_names": (
        {
            "start_anchor": "<s>",
            "fields": {
                "content": {"content_args": {"strip": False}, "repeats": True, "join": "|"},
                "b": {"open": "<y>", "close": "</y>"},
                "a": {"open": "<y>", "close": "</y>", "repeats": True},
            },
        },
        ["one<y>two</y> three <y>four</y>"],
    ),
    "tie_longest": (
        {
            "start_anchor": "<s>",
            "fields": {
                "content": {},
                "short": {"open": "<a", "close": ">"},
                "long": {"open_pattern": "<ab", "close": ">"},
            },
        },
        ["x<ab c>y<a d>z"],
    ),
    "context_anchors": (
        {
            "start_anchor_pattern": "^<s>|(?<=\n)<s>",
            "fields": {
                "content": {"close_pattern": "^END|(?<=\n)END\\b", "repeats": True},
                "note": {"open_pattern": "(?<![a-z])NOTE:", "close_pattern": "\n|\\Z"},
            },
        },
        ["END first\nNOTE: n1\nmid ENDING\nEND\nxNOTE: not\nNOTE: n2"],
    ),
    "zero_width": (
        {
            "start_anchor": "<s>",
            "fields": {
                "content": {"close_pattern": "(?=<a>)|$", "repeats": True},
                "a": {"open_pattern": "(?=<a>)", "close_pattern": "</a>\\s*"},
            },
        },
        ["t1<a>x</a>  t2\n", "<a>y</a>\n\n"],
    ),
    "scan_ahead": (
        {
            "start_anchor": "<s>",
            "fields": {
                "thinking": {"open_pattern": "(?=[\\s\\S]*?(?<=\n)</t>)", "close": "</t>"},
                "content": {"repeats": True},
                "x": {"open_pattern": "(?=.*<x>)", "close": "<x>"},
            },
        },
        ["a\n</t>b", "a</t>b\n</t>c<x>d<x>", "no closer", "<x>"],
    ),
    "parser_errors": (
        {
            "start_anchor": "<s>",
            "fields": {
                "content": {},
                "n": {"open": "<n>", "close": "</n>", "content": "int"},
                "f": {"open": "<f>", "close": "</f>", "content": "float", "repeats": True},
                "b": {"open": "<b>", "close": "</b>", "content": "bool"},
                "j": {
                    "open": "<j>",
                    "close": "</j>",
                    "content": "json",
                    "content_args": {"string_delims": [["<q>", "</q>"]], "unquoted_keys": True},
                },
                "kv": {
                    "open": "<kv>",
                    "close": "</kv>",
                    "content": "kv-lines",
                    "content_args": {"kv_sep": "=", "value_parser": {"name": "int"}},
                },
                "calls": {
                    "open_pattern": "<calls>(?=\\[)",
                    "close": "</calls>",
                    "content": "python-call-list",
                    "transform_each": True,
                    "transform": {
                        "type": "function",
                        "function": {"name": "{name}", "arguments": "{arguments}"},
                    },
                },
            },
        },
        [
            '<n> 42 </n><f>1e3</f><f>nan</f><b>TRUE</b><j>{a: <q>x"y</q>, "k": [1]}</j>',
            "<kv>a = 1\nb=2\nnoline\n</kv><calls>[f(x='a\\u00e9', y=[1, {'k': None}]), g()]</calls>",
            "<n>4.5</n>",
            "<calls>[f(1)]</calls>",
        ],
    ),
    # transformers 5.25: xml-inline's value_parser_by, and a field with it left untyped
    "value_parser_by": (
        {
            "start_anchor": "<s>",
            "fields": {
                "content": {"repeats": True, "join": ""},
                "tool_calls": {
                    "open_pattern": '<call name="(?P<name>\\w+)">',
                    "close": "</call>",
                    "repeats": True,
                    "content": "xml-inline",
                    "content_args": {
                        "tag_pattern": '<arg name="(?P<key>\\w+)"(?: type="(?P<type>\\w+)")?>'
                        "(?P<value>.*?)</arg>",
                        "value_parser": {"name": "text"},
                        "value_parser_by": {
                            "group": "type",
                            "parsers": {"int": {"name": "int"}, "json": {"name": "json"}},
                        },
                        "merge_duplicates": True,
                    },
                    "transform": {
                        "type": "function",
                        "function": {"name": "{name}", "arguments": "{content}"},
                    },
                },
            },
        },
        [
            '<call name="get_weather"><arg name="city">Paris</arg>'
            '<arg name="days" type="int"> 3 </arg><arg name="x" type="str">5</arg>'
            '<arg name="tags" type="json">["a", 1]</arg></call>',
            'Hi<call name="f"><arg name="x">7</arg><arg name="x">8</arg>'
            '<arg name="hour" type="int">x</arg></call>',
            '<call name="ping"><arg name="days">4</arg><arg name="y" type="json">null</arg></call>',
        ],
    ),
    "value_parser_by_unknown_group": (
        {
            "start_anchor": "<s>",
            "fields": {
                "content": {},
                "args": {
                    "open": "<a>",
                    "close": "</a>",
                    "content": "xml-inline",
                    "content_args": {
                        "tag_pattern": "<(?P<key>\\w+)>(?P<value>[^<]*)</(?P=key)>",
                        "value_parser_by": {"group": "kind", "parsers": {}},
                    },
                },
            },
        },
        ["<a><x>1</x></a>", "<a>none</a>", "text"],
    ),
    "value_parser_by_malformed": (
        {
            "start_anchor": "<s>",
            "fields": {
                "content": {},
                "args": {
                    "open": "<a>",
                    "close": "</a>",
                    "content": "xml-inline",
                    "content_args": {
                        "tag_pattern": "<(?P<key>\\w+)>(?P<value>[^<]*)</(?P=key)>",
                        "value_parser_by": {"group": "key", "parsers": ["int"]},
                    },
                },
            },
        },
        ["<a><x>1</x></a>", "text"],
    ),
    # transformers 5.25: json and python-call-list values keep string-allowing parameters
    "typed_parsers_keep_strings": (
        {
            "start_anchor": "<s>",
            "fields": {
                "content": {"repeats": True, "join": ""},
                "tool_calls": {
                    "open": "<tool_call>",
                    "close": "</tool_call>",
                    "repeats": True,
                    "content": "json",
                    "transform": {
                        "type": "function",
                        "function": {"name": "{content.name}", "arguments": "{content.arguments}"},
                    },
                },
                "calls": {
                    "open": "<calls>",
                    "close": "</calls>",
                    "content": "python-call-list",
                    "transform_each": True,
                    "transform": {
                        "type": "function",
                        "function": {"name": "{name}", "arguments": "{arguments}"},
                    },
                },
            },
        },
        [
            '<tool_call>{"name": "f", "arguments": {"x": "5", "days": "3", "city": "7",'
            ' "y": "null", "tags": ["1", "a"]}}</tool_call>',
            '<tool_call>{"name": "get_weather", "arguments": {"x": 5, "hour": "2"}}</tool_call>',
            "<calls>[f(x='5', days='3', city='7'), ping(x=['1', '2'], a='2.5')]</calls>",
        ],
    ),
}

FILLER = [
    " ",
    "\n",
    "\n\n",
    "hi",
    "Hello there",
    "é中😀",
    "{",
    "}",
    '{"a": 1}',
    '{"name": "get_weather", "arguments": {"city": "Paris"}}',
    '"',
    "'",
    "[",
    "]",
    "(",
    ")",
    "=",
    ",",
    ":",
    "<",
    ">",
    "/",
    "true",
    "7",
    "3.5",
    "null",
    "\\",
    "\x01",
]

WEATHER_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "x": {"type": ["integer", "string"]},
                    "y": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
                    "a": {"type": "number"},
                    "hour": {"type": "integer"},
                    "enabled": {"type": "boolean"},
                    "tags": {"type": "array"},
                },
            },
        },
    }
    for name in ("get_weather", "set_alarm", "f", "ping", "search")
]


@dataclass
class Collected:
    """A template and what to read with it."""

    id: str
    template: Any
    samples: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    tools: list[list[dict[str, Any]]] = field(default_factory=list)


def _key(template: Any) -> str:
    return json.dumps(template, sort_keys=True, ensure_ascii=False)


def collect() -> list[Collected]:
    """Every collected template once (by content), with its samples."""
    data = ref.load_cases()
    by_key: dict[str, Collected] = {}

    def add(id_: str, template: Any) -> Collected:
        key = _key(template)
        if key not in by_key:
            by_key[key] = Collected(id_, template)
        return by_key[key]

    for name, template in data["templates"].items():
        add(f"fixtures:{name}", template)
    for case in data["cases"]:
        template = ref.case_template(data, case)
        tmpl_id = case["template"] if isinstance(case["template"], str) else case["id"]
        entry = add(f"fixtures:{tmpl_id}", template)
        text = case["text"] if isinstance(case["text"], str) else "".join(case["text"])
        entry.samples.append(text)
        if case["prefix"]:
            entry.prompts.append(case["prefix"])
        if case.get("tools"):
            entry.tools.append(case["tools"])
    eco = ref.load_ecosystem()
    for source in ("trl", "transformers_serve"):
        for name, template in eco[source].items():
            entry = add(f"{source}:{name}", template)
            entry.samples += ECOSYSTEM_SAMPLES[f"{source}:{name}"]
            entry.prompts += ECOSYSTEM_PROMPTS.get(f"{source}:{name}", [])
    differences = ref.load_differences()
    for d in differences["disagreements"]:
        entry = add(f"difference:{d['id']}", ref.resolve_template(d["template"]))
        entry.samples.append("".join(d["chunks"]))
    for q in differences["quirks"]:
        entry = add(f"quirk:{q['id']}", ref.resolve_template(q["template"]))
        entry.samples.append(q["text"])
    for name, (template, samples) in CONSTRUCTED.items():
        add(f"constructed:{name}", template).samples.extend(samples)
    out = list(by_key.values())
    for entry in out:
        entry.samples = list(dict.fromkeys(entry.samples))
        entry.prompts = list(dict.fromkeys(entry.prompts))
        if WEATHER_TOOLS not in entry.tools:
            entry.tools.append(WEATHER_TOOLS)
    return out


def _anchors(template: Any) -> tuple[list[str], list[str]]:
    """(literals, regex sources) of every anchor in a template, as far as it is a dict."""
    literals: list[str] = []
    patterns: list[str] = []
    if not isinstance(template, dict):
        return literals, patterns
    specs: list[tuple[Any, str, str]] = [(template, "start_anchor", "start_anchor_pattern")]
    fields = template.get("fields")
    if isinstance(fields, dict):
        for spec in fields.values():
            if isinstance(spec, dict):
                specs += [(spec, "open", "open_pattern"), (spec, "close", "close_pattern")]
    for spec, literal_key, pattern_key in specs:
        raw = spec.get(literal_key)
        if isinstance(raw, str):
            literals.append(raw)
        elif isinstance(raw, list):
            literals += [s for s in raw if isinstance(s, str)]
        source = spec.get(pattern_key)
        if isinstance(source, str):
            patterns.append(source)
    return literals, patterns


def pieces(entry: Collected) -> list[str]:
    """The vocabulary generated outputs are made of (see the module)."""
    literals, patterns = _anchors(entry.template)
    delimiters = [s for s in literals if s]
    for source in patterns:
        try:
            compiled = re.compile(source, re.DOTALL)
        except re.error:
            continue
        for sample in entry.samples:
            delimiters += [m.group() for m in compiled.finditer(sample) if m.group()]
    out = list(delimiters)
    out += [d[: len(d) // 2] for d in delimiters if len(d) > 1]
    splitter = "|".join(re.escape(d) for d in sorted(set(delimiters), key=len, reverse=True))
    for sample in entry.samples:
        parts = re.split(splitter, sample) if splitter else [sample]
        out += [p for p in parts if p]
    out += FILLER
    return list(dict.fromkeys(out))
