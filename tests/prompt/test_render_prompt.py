"""``render_prompt`` beside transformers' ``apply_chat_template``: what it takes (dicts,
the openai SDK's pydantic messages, dataclasses), its one different default
(``add_generation_prompt``), and ``continue_final_message``.

The transformers parts run where transformers is installed (``scripts/test-transformers``);
the rest hold the same behaviour to the templates through streamcall's own renderer.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest
from prompt_cases import CONVERSATIONS, FIXTURES, SECOND, TEMPLATES, TOOLS, template_source
from pydantic import BaseModel

from streamcall import render_prompt
from streamcall.prompt import ChatTemplate, openai_messages


def _template(family: str) -> ChatTemplate:
    return ChatTemplate.from_string(template_source(family), special_tokens=TEMPLATES[family][2])


class Function(BaseModel):
    name: str
    arguments: str


class ToolCall(BaseModel):
    id: str
    type: str = "function"
    function: Function


class Message(BaseModel):
    """The shape of the openai SDK's ``ChatCompletionMessage`` (its ``None`` members
    included), for where the SDK is not installed."""

    role: str
    content: str | None = None
    refusal: str | None = None
    tool_calls: list[ToolCall] | None = None


def _pydantic(messages: list[dict[str, Any]], content: str | None = "") -> list[Any]:
    """SECOND with its assistant message as a pydantic object, arguments as JSON text (and
    its other members ``None``, as in a response)."""
    out: list[Any] = copy.deepcopy(messages)
    call = out[2]["tool_calls"][0]
    out[2] = Message(
        role="assistant",
        content=content,
        tool_calls=[
            ToolCall(
                id=call["id"],
                function=Function(
                    name="get_weather", arguments='{"city": "Paris", "unit": "celsius"}'
                ),
            )
        ],
    )
    return out


def _as_dicts(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = copy.deepcopy(messages)
    out[2] = {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": out[2]["tool_calls"][0]["id"],
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "arguments": '{"city": "Paris", "unit": "celsius"}',
                },
            }
        ],
    }
    return out


@pytest.mark.parametrize("model", ["Qwen/Qwen3-8B", "Qwen/Qwen3.5-4B", "meta-llama/Llama-3.1-8B"])
def test_pydantic_messages_render_as_their_dicts_with_a_family(model: str) -> None:
    assert render_prompt(_pydantic(SECOND), tools=TOOLS, model=model) == render_prompt(
        _as_dicts(SECOND), tools=TOOLS, model=model
    )


@pytest.mark.parametrize("family", ["qwen3", "granite4", "glm45"])
def test_pydantic_messages_render_as_their_dicts_with_a_template(family: str) -> None:
    template = _template(family)
    ours = render_prompt(openai_messages(_pydantic(SECOND)), tools=TOOLS, template=template)
    assert ours == render_prompt(openai_messages(_as_dicts(SECOND)), tools=TOOLS, template=template)
    assert "None" not in ours  # refusal=None is dropped, not written


def test_the_openai_sdk_s_own_message_objects() -> None:
    """What an agent appends from a response: ``ChatCompletionMessage``, with
    ``content=None`` (dropped, as transformers drops it)."""
    types = pytest.importorskip("openai.types.chat")
    message = types.ChatCompletionMessage(
        role="assistant",
        content=None,
        tool_calls=[
            types.ChatCompletionMessageFunctionToolCall(
                id="a1b2c3d4e",
                type="function",
                function={
                    "name": "get_weather",
                    "arguments": '{"city": "Paris", "unit": "celsius"}',
                },
            )
        ],
    )
    messages = [*copy.deepcopy(SECOND[:2]), message, copy.deepcopy(SECOND[3])]
    expected = _as_dicts(SECOND)
    del expected[2]["content"]
    assert render_prompt(messages, tools=TOOLS, model="Qwen/Qwen3-8B") == render_prompt(
        expected, tools=TOOLS, model="Qwen/Qwen3-8B"
    )
    granite = _template("granite4")
    assert render_prompt(openai_messages(messages), tools=TOOLS, template=granite) == render_prompt(
        openai_messages(expected), tools=TOOLS, template=granite
    )


def test_dataclass_messages() -> None:
    @dataclasses.dataclass
    class Plain:
        role: str
        content: str

    messages = [Plain("user", "Hello!")]
    assert render_prompt(messages, model="Qwen/Qwen3-8B") == render_prompt(
        [{"role": "user", "content": "Hello!"}], model="Qwen/Qwen3-8B"
    )


def test_what_is_not_a_message_is_refused() -> None:
    with pytest.raises(ValueError, match=r"messages\[0\] must be a message object"):
        render_prompt(["hi"], model="Qwen/Qwen3-8B")  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"messages\[0\] must be a dict"):
        render_prompt(["hi"], template=_template("qwen3"))  # type: ignore[list-item]


def test_add_generation_prompt_defaults_to_true_unlike_transformers() -> None:
    messages, _ = CONVERSATIONS["plain"]
    template = _template("qwen3")
    with_prompt = render_prompt(copy.deepcopy(messages), template=template)
    without = render_prompt(copy.deepcopy(messages), template=template, add_generation_prompt=False)
    assert with_prompt == without + "<|im_start|>assistant\n"


PARTIAL = [
    {"role": "user", "content": "Tell me a joke."},
    {"role": "assistant", "content": "Why did the chicken "},
]


@pytest.mark.parametrize("family", ["qwen3", "qwen3_coder", "llama3.1", "granite4", "glm45"])
def test_continue_final_message_cuts_after_its_text(family: str) -> None:
    template = _template(family)
    whole = render_prompt(copy.deepcopy(PARTIAL), template=template, add_generation_prompt=False)
    cut = render_prompt(copy.deepcopy(PARTIAL), template=template, continue_final_message=True)
    assert cut.rstrip().endswith("Why did the chicken")
    assert whole.startswith(cut.rstrip())
    assert "CONTINUE_FINAL_MESSAGE_TAG" not in cut


@pytest.mark.parametrize(
    ("model", "checkpoint"),
    [
        ("Qwen/Qwen3-8B", "Qwen-Qwen3-0.6B.jinja"),
        ("Qwen/Qwen3.5-4B", "Qwen3.5-4B.jinja"),
        ("Qwen/Qwen2.5-7B-Instruct", "Qwen-Qwen2.5-7B-Instruct.jinja"),
        ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama-Llama-3.1-8B-Instruct.jinja"),
    ],
)
def test_continue_final_message_with_a_family_is_its_template_s(
    model: str, checkpoint: str
) -> None:
    template = ChatTemplate.from_string(
        (FIXTURES / checkpoint).read_text(encoding="utf-8"),
        special_tokens={"bos_token": "<|begin_of_text|>"} if "llama" in checkpoint else {},
    )
    ours = render_prompt(copy.deepcopy(PARTIAL), model=model, continue_final_message=True)
    theirs = render_prompt(copy.deepcopy(PARTIAL), template=template, continue_final_message=True)
    assert ours == theirs
    assert ours.rstrip().endswith("Why did the chicken")


def test_continue_final_message_and_a_generation_prompt_are_refused_together() -> None:
    with pytest.raises(ValueError, match="not compatible"):
        render_prompt(
            PARTIAL, model="Qwen/Qwen3-8B", continue_final_message=True, add_generation_prompt=True
        )
    with pytest.raises(ValueError, match="not compatible"):
        render_prompt(
            PARTIAL,
            template=_template("qwen3"),
            continue_final_message=True,
            add_generation_prompt=True,
        )


# -- against transformers ----------------------------------------------------------------


def _tokenizer(family: str) -> Any:
    pytest.importorskip(
        "transformers", reason="transformers is not installed: scripts/test-transformers runs this"
    )
    from transformers_side import tokenizer

    return tokenizer(family)


@pytest.mark.parametrize("family", ["qwen3", "qwen3_coder", "granite4", "glm45", "gpt-oss"])
def test_transformers_default_is_no_generation_prompt(family: str) -> None:
    messages, tools = CONVERSATIONS["call-and-result"]
    theirs = _tokenizer(family).apply_chat_template(
        copy.deepcopy(messages), tools=tools, tokenize=False
    )
    ours = render_prompt(
        copy.deepcopy(messages),
        tools=tools,
        template=_template(family),
        add_generation_prompt=False,
    )
    assert ours == theirs
    assert render_prompt(copy.deepcopy(messages), tools=tools, template=_template(family)) != theirs


@pytest.mark.parametrize(
    ("family", "content"), [("qwen3", ""), ("granite4", ""), ("granite4", None), ("llama3.1", "")]
)
def test_pydantic_messages_as_transformers_reads_them(family: str, content: str | None) -> None:
    """A pydantic message (arguments as JSON text, ``None`` members dropped) is read as
    transformers reads it."""
    tools = TOOLS if family != "llama3.1" else None
    theirs = _tokenizer(family).apply_chat_template(
        _pydantic(SECOND, content), tools=tools, tokenize=False, add_generation_prompt=True
    )
    ours = render_prompt(_pydantic(SECOND, content), tools=tools, template=_template(family))
    assert ours == theirs


@pytest.mark.parametrize(
    "family", ["qwen3", "qwen3_coder", "llama3.1", "granite4", "glm45", "mistral"]
)
@pytest.mark.parametrize("field", [True, "content"])
def test_continue_final_message_as_transformers_does(family: str, field: bool | str) -> None:
    theirs = _tokenizer(family).apply_chat_template(
        copy.deepcopy(PARTIAL), tokenize=False, continue_final_message=field
    )
    ours = render_prompt(
        copy.deepcopy(PARTIAL), template=_template(family), continue_final_message=field
    )
    assert ours == theirs
