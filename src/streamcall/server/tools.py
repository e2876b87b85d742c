"""The tools a Responses or Messages request offers, as the chat tools the model is shown.

The model behind the proxy writes function calls; the client APIs have more kinds of tool.
Each becomes one of three things:

- **offered**: a chat function tool the model can call, with ``names`` mapping the name
  the model sees back to the tool as the client named it (``Offered``), so that the answer
  reports each call as the client's SDK types describe it:

  - a function tool: itself;
  - a Responses ``namespace`` (function and custom tools grouped under a name, as Codex
    sends its MCP tools): each of its tools, under its own name when no other tool has it,
    else ``<namespace>__<name>``; a call is reported with the bare ``name`` and its
    ``namespace``;
  - a Responses ``custom`` (freeform) tool: a function taking one string, ``input``, with
    the tool's format (a grammar's definition) in its description; a call is reported as
    a ``custom_tool_call`` with that ``input``;
  - Anthropic's client-run ``bash_*`` and ``text_editor_*`` tools: a function with the
    input schema Anthropic documents for them;

- **hosted**: a tool that the API's own servers run (web search, file search, code
  interpreter or execution, computer use, image generation, MCP, tool search, web fetch,
  memory, a local or hosted shell, apply_patch): the proxy cannot run it and the model
  behind it cannot call it, so it is not offered; ``hosted`` lists each with where it
  stood (``tools[3]``), for the proxy to say once in its log and count in ``/health``, or
  to refuse with a 400 when ``--hosted-tools refuse`` says so;
- anything else (an unknown type, a tool without its name): a 400 naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from streamcall.server.api import BadRequest, Offered
from streamcall.server.fields import kind_error

__all__ = ["Offered", "ToolSet", "messages_tools", "responses_tools"]


@dataclass
class ToolSet:
    """A request's tools as chat tools, with how to name their calls back."""

    tools: list[dict[str, Any]] = field(default_factory=list)
    names: dict[str, Offered] = field(default_factory=dict)  # offered name -> the client's
    hosted: list[tuple[str, str]] = field(default_factory=list)  # (where, type)

    def offer(self, name: str, offered: Offered, function: dict[str, Any]) -> None:
        function["name"] = name
        self.tools.append({"type": "function", "function": function})
        self.names[name] = offered

    def offered_name(self, name: str, namespace: str | None = None) -> str | None:
        """The name the model sees for the client's tool ``name`` (in ``namespace``)."""
        for offered_as, offered in self.names.items():
            if offered.name == name and offered.namespace == namespace:
                return offered_as
        return None


# -- the Responses API ------------------------------------------------------------------------

_RESPONSES_HOSTED = {
    "file_search",
    "computer",
    "computer_use_preview",
    "web_search",
    "web_search_2025_08_26",
    "web_search_preview",
    "web_search_preview_2025_03_11",
    "mcp",
    "code_interpreter",
    "programmatic_tool_calling",
    "image_generation",
    "local_shell",
    "shell",
    "tool_search",
    "apply_patch",
}
_INPUT_SCHEMA = {
    "type": "object",
    "properties": {"input": {"type": "string"}},
    "required": ["input"],
}


def responses_tools(tools: Any) -> ToolSet:
    """A Responses request's ``tools`` (module docstring)."""
    if not isinstance(tools, list):
        raise BadRequest("'tools' must be a list of tools", "tools")
    found = ToolSet()
    entries: list[tuple[str, dict[str, Any], str | None]] = []  # (where, tool, namespace)
    for number, tool in enumerate(tools):
        where = f"tools[{number}]"
        if not isinstance(tool, dict):
            raise BadRequest(f"{where} must be an object", where)
        kind = tool.get("type")
        if kind in ("function", "custom"):
            entries.append((where, tool, None))
        elif kind == "namespace":
            space = tool.get("name")
            inner = tool.get("tools")
            if not isinstance(space, str) or not space:
                raise BadRequest(f"{where}.name is required (the namespace's name)", where)
            if not isinstance(inner, list):
                raise BadRequest(f"{where}.tools must be a list of tools", where)
            for index, member in enumerate(inner):
                at = f"{where}.tools[{index}]"
                if not isinstance(member, dict) or member.get("type") not in ("function", "custom"):
                    raise BadRequest(
                        f"{at}.type must be function or custom (the tools a namespace holds)",
                        at,
                    )
                entries.append((at, member, space))
        elif kind in _RESPONSES_HOSTED:
            found.hosted.append((where, str(kind)))
        else:
            raise BadRequest(
                f"{where}.type {kind!r} is not a tool type of the Responses API (function, "
                "custom, namespace, or a hosted tool)",
                where,
            )
    counts: dict[str, int] = {}
    for where, tool, _ in entries:
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            raise BadRequest(f"{where}.name is required (a non-empty string)", where)
        counts[name] = counts.get(name, 0) + 1
    for where, tool, space in entries:
        name = tool["name"]
        shown = name if space is None or counts[name] == 1 else f"{space}__{name}"
        if tool["type"] == "function":
            function: dict[str, Any] = {}
            for key, kind in (("description", "string"), ("parameters", "object")):
                why = kind_error(tool.get(key), kind)
                if why is not None:
                    raise BadRequest(f"{where}.{key} {why}", where)
                if tool.get(key) is not None:
                    function[key] = tool[key]
            if tool.get("strict") is not None:
                function["strict"] = tool["strict"]
            found.offer(shown, Offered("function", name, space), function)
        else:
            found.offer(
                shown,
                Offered("custom", name, space),
                {"description": _custom_description(tool, where), "parameters": _INPUT_SCHEMA},
            )
    return found


def _custom_description(tool: dict[str, Any], where: str) -> str:
    text = tool.get("description")
    if text is not None and not isinstance(text, str):
        raise BadRequest(f"{where}.description must be a string", where)
    lines = [text] if text else []
    fmt = tool.get("format")
    if isinstance(fmt, dict) and fmt.get("type") == "grammar":
        syntax, definition = fmt.get("syntax"), fmt.get("definition")
        if isinstance(definition, str):
            lines.append(f"The input follows this {syntax or ''} grammar:\n{definition}")
    lines.append("Give the tool's whole input, as free text, in the string `input`.")
    return "\n\n".join(lines)


# -- Anthropic's Messages API -----------------------------------------------------------------

_ANTHROPIC_HOSTED = (
    "web_search_",
    "web_fetch_",
    "code_execution_",
    "computer_",
    "memory_",
    "tool_search_tool_",
    "browser_toolset_",
    "computer_toolset_",
    "mcp_toolset",
)
_BASH_SCHEMA = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The bash command to run."},
        "restart": {"type": "boolean", "description": "Restart the bash session."},
    },
}
_EDITOR_SCHEMA = {
    "type": "object",
    "properties": {
        "command": {
            "type": "string",
            "enum": ["view", "create", "str_replace", "insert", "undo_edit"],
        },
        "path": {"type": "string"},
        "file_text": {"type": "string"},
        "old_str": {"type": "string"},
        "new_str": {"type": "string"},
        "insert_line": {"type": "integer"},
        "insert_text": {"type": "string"},
        "view_range": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["command", "path"],
}


def messages_tools(tools: Any) -> ToolSet:
    """A Messages request's ``tools`` (module docstring)."""
    if not isinstance(tools, list):
        raise BadRequest("tools: must be a list of tools", "tools")
    found = ToolSet()
    for number, tool in enumerate(tools):
        where = f"tools.{number}"
        if not isinstance(tool, dict):
            raise BadRequest(f"{where}: must be an object", where)
        kind = tool.get("type")
        name = tool.get("name")
        if isinstance(kind, str) and kind.startswith(_ANTHROPIC_HOSTED):
            found.hosted.append((where, kind))
            continue
        if kind not in (None, "custom") and not (
            isinstance(kind, str) and kind.startswith(("bash_", "text_editor_"))
        ):
            raise BadRequest(
                f"{where}.type: {kind!r} is not a tool type of the Messages API (a client "
                "tool, custom, bash_*, text_editor_*, or a server tool)",
                where,
            )
        if not isinstance(name, str) or not name:
            raise BadRequest(f"{where}.name: field required", where)
        if kind is not None and kind.startswith("bash_"):
            schema: Any = _BASH_SCHEMA
            description: Any = "Run a command in a bash shell."
        elif kind is not None and kind.startswith("text_editor_"):
            schema = _EDITOR_SCHEMA
            description = "View, create and edit files."
        else:
            schema, description = tool.get("input_schema"), tool.get("description")
            if not isinstance(schema, dict):
                raise BadRequest(
                    f"{where}.input_schema: field required (a JSON schema object)", where
                )
            if description is not None and not isinstance(description, str):
                raise BadRequest(f"{where}.description: must be a string", where)
        function: dict[str, Any] = {"parameters": schema}
        if description:
            function["description"] = description
        found.offer(name, Offered("function", name), function)
    return found
