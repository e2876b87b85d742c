"""One tool loop per Python framework, for ``scripts/test-agents``.

    python scripts/agents/frameworks.py CASE --base http://127.0.0.1:PORT

Each case asks "What is the weather in Paris?" with one tool, ``get_weather(city)``, that
answers ``22 degrees and sunny in Paris``, runs the framework's own loop (the model calls the
tool, the framework runs it and sends the result back, the model answers) against the proxy
at ``--base`` (its root; ``/v1`` is added where the framework wants it), and prints
``FINAL: <the answer>`` as the framework returns it. ``--list`` prints the cases.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable
from typing import Any

MODEL = "Qwen/Qwen3-8B"
KEY = "sk-dummy-key"
PROMPT = "What is the weather in Paris? Use the get_weather tool."
MAX_TURNS = 4

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")
os.environ.setdefault("LANGSMITH_TRACING", "false")


def get_weather(city: str) -> str:
    """Get the current weather in a city."""
    return f"22 degrees and sunny in {city}"


SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "the city"}},
    "required": ["city"],
}
DESCRIPTION = "Get the current weather in a city."
CASES: dict[str, Callable[[str], str]] = {}


def case(name: str) -> Callable[[Callable[[str], str]], Callable[[str], str]]:
    def add(fn: Callable[[str], str]) -> Callable[[str], str]:
        CASES[name] = fn
        return fn

    return add


def run_tool(name: str, arguments: str | dict[str, Any]) -> str:
    if name != "get_weather":
        raise RuntimeError(f"the model called an unknown tool {name!r}")
    args = json.loads(arguments) if isinstance(arguments, str) else arguments
    return get_weather(**args)


# --- openai SDK ---------------------------------------------------------------------------


def _openai(base: str) -> Any:
    from openai import OpenAI

    return OpenAI(base_url=f"{base}/v1", api_key=KEY, max_retries=0)


CHAT_TOOLS = [
    {
        "type": "function",
        "function": {"name": "get_weather", "description": DESCRIPTION, "parameters": SCHEMA},
    }
]
RESPONSES_TOOLS = [
    {"type": "function", "name": "get_weather", "description": DESCRIPTION, "parameters": SCHEMA}
]


def _chat_loop(base: str, stream: bool) -> str:
    client = _openai(base)
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    for _ in range(MAX_TURNS):
        if stream:
            with client.chat.completions.stream(
                model=MODEL, messages=messages, tools=CHAT_TOOLS
            ) as s:
                for _event in s:
                    pass
                completion = s.get_final_completion()
        else:
            completion = client.chat.completions.create(
                model=MODEL, messages=messages, tools=CHAT_TOOLS
            )
        message = completion.choices[0].message
        if not message.tool_calls:
            return message.content or ""
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = run_tool(call.function.name, call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    raise RuntimeError("no final answer")


@case("openai-chat")
def openai_chat(base: str) -> str:
    return _chat_loop(base, stream=False)


@case("openai-chat-stream")
def openai_chat_stream(base: str) -> str:
    return _chat_loop(base, stream=True)


def _responses_loop(base: str, stream: bool) -> str:
    client = _openai(base)
    items: list[Any] = [{"role": "user", "content": PROMPT}]
    for _ in range(MAX_TURNS):
        if stream:
            with client.responses.stream(model=MODEL, input=items, tools=RESPONSES_TOOLS) as s:
                for _event in s:
                    pass
                response = s.get_final_response()
        else:
            response = client.responses.create(model=MODEL, input=items, tools=RESPONSES_TOOLS)
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            return response.output_text
        items += [item.model_dump(exclude_none=True) for item in response.output]
        for call in calls:
            output = run_tool(call.name, call.arguments)
            items.append(
                {"type": "function_call_output", "call_id": call.call_id, "output": output}
            )
    raise RuntimeError("no final answer")


@case("openai-responses")
def openai_responses(base: str) -> str:
    return _responses_loop(base, stream=False)


@case("openai-responses-stream")
def openai_responses_stream(base: str) -> str:
    return _responses_loop(base, stream=True)


def _responses_runner(base: str, stream: bool) -> str:
    from openai.lib.responses_tool_runner import RegisteredFunction, ResponsesToolRunner

    fn = RegisteredFunction(tool=RESPONSES_TOOLS[0], execute=lambda args: get_weather(**args))
    runner = ResponsesToolRunner(functions=[fn])
    response = runner.run(
        _openai(base), {"model": MODEL, "input": PROMPT}, max_steps=MAX_TURNS, stream=stream
    )
    return response.output_text


@case("openai-responses-runner")
def openai_responses_runner(base: str) -> str:
    return _responses_runner(base, stream=False)


@case("openai-responses-runner-stream")
def openai_responses_runner_stream(base: str) -> str:
    return _responses_runner(base, stream=True)


# --- anthropic SDK ------------------------------------------------------------------------


def _anthropic(base: str) -> Any:
    import anthropic

    return anthropic.Anthropic(base_url=base, api_key=KEY, max_retries=0)


ANTHROPIC_TOOLS = [{"name": "get_weather", "description": DESCRIPTION, "input_schema": SCHEMA}]


def _messages_loop(base: str, stream: bool) -> str:
    client = _anthropic(base)
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    for _ in range(MAX_TURNS):
        args = {"model": MODEL, "max_tokens": 1024, "messages": messages, "tools": ANTHROPIC_TOOLS}
        if stream:
            with client.messages.stream(**args) as s:
                for _event in s:
                    pass
                message = s.get_final_message()
        else:
            message = client.messages.create(**args)
        uses = [block for block in message.content if block.type == "tool_use"]
        if not uses:
            return "".join(block.text for block in message.content if block.type == "text")
        messages.append(
            {
                "role": "assistant",
                "content": [b.model_dump(exclude_none=True) for b in message.content],
            }
        )
        results = [
            {"type": "tool_result", "tool_use_id": u.id, "content": run_tool(u.name, u.input)}
            for u in uses
        ]
        messages.append({"role": "user", "content": results})
    raise RuntimeError("no final answer")


@case("anthropic-messages")
def anthropic_messages(base: str) -> str:
    return _messages_loop(base, stream=False)


@case("anthropic-messages-stream")
def anthropic_messages_stream(base: str) -> str:
    return _messages_loop(base, stream=True)


def _anthropic_runner(base: str, stream: bool) -> str:
    from anthropic import beta_tool

    tool = beta_tool(get_weather)
    runner = _anthropic(base).beta.messages.tool_runner(
        model=MODEL,
        max_tokens=1024,
        tools=[tool],
        messages=[{"role": "user", "content": PROMPT}],
        max_iterations=MAX_TURNS,
        **({"stream": True} if stream else {}),
    )
    final = None
    for item in runner:
        if stream:
            for _event in item:
                pass
            final = item.get_final_message()
        else:
            final = item
    if final is None:
        raise RuntimeError("no message")
    return "".join(block.text for block in final.content if block.type == "text")


@case("anthropic-tool-runner")
def anthropic_tool_runner(base: str) -> str:
    return _anthropic_runner(base, stream=False)


@case("anthropic-tool-runner-stream")
def anthropic_tool_runner_stream(base: str) -> str:
    return _anthropic_runner(base, stream=True)


# --- openai-agents ------------------------------------------------------------------------


def _agents(base: str, api: str, stream: bool) -> str:
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        OpenAIResponsesModel,
        Runner,
        function_tool,
        set_tracing_disabled,
    )
    from openai import AsyncOpenAI

    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=f"{base}/v1", api_key=KEY, max_retries=0)
    if api == "chat":
        model: Any = OpenAIChatCompletionsModel(model=MODEL, openai_client=client)
    else:
        model = OpenAIResponsesModel(model=MODEL, openai_client=client)
    agent = Agent(
        name="weather",
        instructions="Answer briefly.",
        model=model,
        tools=[function_tool(get_weather)],
    )

    async def go() -> str:
        if stream:
            result = Runner.run_streamed(agent, PROMPT, max_turns=MAX_TURNS)
            async for _event in result.stream_events():
                pass
        else:
            result = await Runner.run(agent, PROMPT, max_turns=MAX_TURNS)
        return str(result.final_output)

    return asyncio.run(go())


@case("openai-agents-chat")
def agents_chat(base: str) -> str:
    return _agents(base, "chat", stream=False)


@case("openai-agents-chat-stream")
def agents_chat_stream(base: str) -> str:
    return _agents(base, "chat", stream=True)


@case("openai-agents-responses")
def agents_responses(base: str) -> str:
    return _agents(base, "responses", stream=False)


@case("openai-agents-responses-stream")
def agents_responses_stream(base: str) -> str:
    return _agents(base, "responses", stream=True)


# --- pydantic-ai --------------------------------------------------------------------------


def _pydantic_ai(base: str, api: str, stream: bool) -> str:
    from pydantic_ai import Agent

    if api == "anthropic":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        model: Any = AnthropicModel(MODEL, provider=AnthropicProvider(base_url=base, api_key=KEY))
    else:
        from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        provider = OpenAIProvider(base_url=f"{base}/v1", api_key=KEY)
        cls = OpenAIChatModel if api == "chat" else OpenAIResponsesModel
        model = cls(MODEL, provider=provider)
    agent = Agent(model, tools=[get_weather])

    async def go() -> str:
        if stream:
            async with agent.run_stream(PROMPT) as result:
                return str(await result.get_output())
        return str((await agent.run(PROMPT)).output)

    return asyncio.run(go())


for _api in ("chat", "responses", "anthropic"):
    for _stream in (False, True):
        CASES[f"pydantic-ai-{_api}{'-stream' if _stream else ''}"] = (
            lambda base, api=_api, stream=_stream: _pydantic_ai(base, api, stream)
        )


# --- langchain ----------------------------------------------------------------------------


def _langchain(base: str, kind: str, stream: bool) -> str:
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_core.tools import tool

    if kind == "anthropic":
        from langchain_anthropic import ChatAnthropic

        llm: Any = ChatAnthropic(
            model=MODEL, base_url=base, api_key=KEY, max_tokens=1024, max_retries=0
        )
    else:
        from langchain_openai import ChatOpenAI

        llm = ChatOpenAI(
            model=MODEL,
            base_url=f"{base}/v1",
            api_key=KEY,
            max_retries=0,
            use_responses_api=kind == "openai-responses",
        )
    weather = tool(get_weather)
    bound = llm.bind_tools([weather])
    messages: list[Any] = [HumanMessage(PROMPT)]
    for _ in range(MAX_TURNS):
        if stream:
            ai: Any = None
            for chunk in bound.stream(messages):
                ai = chunk if ai is None else ai + chunk
        else:
            ai = bound.invoke(messages)
        if not ai.tool_calls:
            return ai.text if isinstance(ai.text, str) else ai.text()
        messages.append(ai)
        for call in ai.tool_calls:
            messages.append(
                ToolMessage(run_tool(call["name"], call["args"]), tool_call_id=call["id"])
            )
    raise RuntimeError("no final answer")


for _kind in ("openai", "openai-responses", "anthropic"):
    for _stream in (False, True):
        CASES[f"langchain-{_kind}{'-stream' if _stream else ''}"] = (
            lambda base, kind=_kind, stream=_stream: _langchain(base, kind, stream)
        )


# --- litellm ------------------------------------------------------------------------------


def _litellm(base: str, stream: bool) -> str:
    import litellm

    litellm.telemetry = False
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    args = {"model": f"openai/{MODEL}", "api_base": f"{base}/v1", "api_key": KEY}
    for _ in range(MAX_TURNS):
        if stream:
            chunks = list(
                litellm.completion(messages=messages, tools=CHAT_TOOLS, stream=True, **args)
            )
            response = litellm.stream_chunk_builder(chunks, messages=messages)
        else:
            response = litellm.completion(messages=messages, tools=CHAT_TOOLS, **args)
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content or ""
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = run_tool(call.function.name, call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    raise RuntimeError("no final answer")


@case("litellm")
def litellm_completion(base: str) -> str:
    return _litellm(base, stream=False)


@case("litellm-stream")
def litellm_completion_stream(base: str) -> str:
    return _litellm(base, stream=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("case", nargs="?")
    parser.add_argument("--base", help="the proxy's root URL")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    if args.list or not args.case:
        print("\n".join(CASES))
        return 0
    final = CASES[args.case](args.base.rstrip("/"))
    print("FINAL: " + json.dumps(final))
    return 0


if __name__ == "__main__":
    sys.exit(main())
