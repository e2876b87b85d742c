"""Message framing that a tool parser and a reasoning parser of the same model both read.

``harmony``: OpenAI Harmony's ``<|start|>``/``<|channel|>``/``<|message|>`` tokens (the
``openai`` tool format and the ``openai_gptoss`` reasoning format); ``muse``: Meta Muse's
messages with ``to=`` recipients (the ``muse`` family in both layers); ``citations``:
Cohere's inline citation tags (``cohere_command3``/``cohere_command4`` in both); ``inkling``:
Thinking Machines Inkling's message tokens; ``filters``: how a parser runs an event filter
inside its own loop (the citation tags, Inkling's framing). They sit below
``formats/`` and ``reasoning/`` and import neither, only the scanning primitives of
``streamcall.text``.
"""
