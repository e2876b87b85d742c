"""The engines the tool-call formats are declared on.

Each format file in ``streamcall.formats`` is a small declaration: markers, a header
regex, options, and what differs from vLLM, on one of these engines, which do the reading.

- ``base``: ``ToolParser``, what every format shares (ids, events, closing a call,
  releasing markup as text, the feed loop's modes).
- ``json_calls``: calls written as JSON objects (``{"name": ..., "arguments": ...}``),
  in a block, a list or bare (Hermes, Llama 3, Mistral's JSON, Granite, ...);
  ``json_embedded``: that engine reading a block of JSON calls for another engine.
- ``json_members``: a JSON object's members typed by the tool's schema (K2 Horizon's JSON
  dialect, the XML engine's JSON bodies).
- ``header_json``: a header naming the function, then its JSON arguments (DeepSeek, Kimi
  K2, Mistral's [TOOL_CALLS]NAME, PLaMo 3, Solar Open, ...).
- ``py_calls``: Python call syntax (pythonic, Llama 4, Olmo 3, LFM2).
- ``xml_params``: tagged parameters (Qwen3-Coder, GLM, MiniMax, DSML, ...): text, blocks,
  headers; ``xml_args``: that engine's arguments, values and their typing.

Schema typing (``streamcall.formats.schema``), the registry and sniffing stay beside the
formats: the engines read them, and so do the formats.
"""
