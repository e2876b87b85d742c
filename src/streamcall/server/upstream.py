"""The upstream: the one HTTP client the proxy keeps, and what each request sends it.

``Upstream`` holds the shared ``httpx.AsyncClient`` (a connection pool, opened and closed
with the app's lifespan), the headers a request goes with (the proxy's own key, else the
client's, never both), and the route and body a chat request becomes by
``--upstream-tools`` (``upstream_body``; ``render`` is ``/v1/completions`` with the prompt
the proxy renders, ``server/render.py``). ``probe`` is the ``/health`` check of it.
Nothing here knows which client API a request came in on.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlsplit

import httpx
from starlette.applications import Starlette
from starlette.requests import Request

from streamcall.prompt import Prompter, TemplateError
from streamcall.server.api import BadRequest
from streamcall.server.config import UPSTREAM_TOOLS, ServerConfig, prompter_for
from streamcall.server.errors import describe, public_url, scrubber
from streamcall.server.render import completion_body, refused

__all__ = ["Upstream", "upstream_body"]

log = logging.getLogger("streamcall.server")
_HEALTH_TIMEOUT = 3.0  # seconds for the /health probe of the upstream


def upstream_body(body: dict[str, Any], mode: str) -> dict[str, Any]:
    """The request as the upstream gets it, by ``--upstream-tools``.

    ``pass``: as it is. ``strip``: without ``tools``, ``tool_choice`` and
    ``parallel_tool_calls`` (the model is then told of no tool: ``render`` is the mode for
    servers that refuse any tools). ``none``: ``tools`` kept, so the upstream's chat
    template still shows them to the model, and ``tool_choice: "none"``, so a server
    without a tool parser (vLLM, SGLang) accepts the request and leaves the text alone.
    ``render`` is not a chat request at all (``server/render.py``); here it is ``strip``.
    """
    if mode == "pass":
        return body
    out = dict(body)
    if mode in ("strip", "render"):
        for key in ("tools", "tool_choice", "parallel_tool_calls"):
            out.pop(key, None)
    elif mode == "none":
        if out.get("tools"):
            out["tool_choice"] = "none"
        else:
            out.pop("tool_choice", None)
    else:
        raise ValueError(f"upstream_tools must be one of {', '.join(UPSTREAM_TOOLS)}: {mode!r}")
    return out


class Upstream:
    """The upstream of one app (module docstring)."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        assert config.upstream is not None
        self.base_url = config.upstream.rstrip("/") + "/"
        self.shown = public_url(config.upstream)
        user = urlsplit(config.upstream)
        self.known_keys = [config.api_key, *config.client_keys, user.password, user.username]
        self.scrub = scrubber(self.known_keys)
        self.prompter = prompter_for(config) if config.upstream_tools == "render" else None
        # outside render mode, a checkpoint's template still says where its generation
        # prompt leaves the model (the parser's start state): rendered, not sent
        self.template: Prompter | None = None
        if config.model_dir and self.prompter is None:
            try:
                self.template = prompter_for(config)
            except (TemplateError, ValueError):  # a checkpoint with no chat template
                self.template = None
        self._client: httpx.AsyncClient | None = None
        self._warned = False  # strip's warning, once per process

    # -- the client ---------------------------------------------------------------------

    def _new_client(self) -> httpx.AsyncClient:
        config = self.config
        return httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(config.timeout, connect=config.connect_timeout),
            limits=httpx.Limits(
                max_connections=config.max_connections,
                max_keepalive_connections=min(config.max_connections, 200),
            ),
        )

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self._client = self._new_client()
        try:
            yield
        finally:
            client, self._client = self._client, None
            await client.aclose()

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:  # running without lifespan (some test harnesses)
            self._client = self._new_client()
        return self._client

    def scrubber_for(self, request: Request | None) -> Callable[[str], str]:
        """Scrubs the keys the proxy knows, and the one this client sent."""
        from streamcall.server.auth import client_key

        token = client_key(request.headers) if request is not None else None
        return scrubber([*self.known_keys, token]) if token else self.scrub

    def headers(self, request: Request | None) -> dict[str, str]:
        config = self.config
        headers = {"content-type": "application/json", "accept-encoding": "identity"}
        if config.api_key:
            headers["authorization"] = f"Bearer {config.api_key}"
        elif not config.client_keys and request is not None:
            # no key of its own: the client's is passed on (unless it was the proxy's own);
            # an Anthropic client's x-api-key as a bearer token, as the upstream reads it
            if "authorization" in request.headers:
                headers["authorization"] = request.headers["authorization"]
            elif request.headers.get("x-api-key"):
                headers["authorization"] = f"Bearer {request.headers['x-api-key']}"
        return headers

    # -- what a request sends -------------------------------------------------------------

    def request_for(self, body: dict[str, Any]) -> tuple[str, dict[str, Any], str | None]:
        """The upstream route and body for a chat request (``--upstream-tools``), and the
        prompt the proxy rendered for it (``render`` mode; else None): the parser takes its
        start state from the prompt's end (``output_parser``'s ``generation_prompt``)."""
        prompter = self.prompter
        mode = self.config.upstream_tools
        if prompter is None:
            if mode == "strip" and body.get("tools") and not self._warned:
                self._warned = True
                log.warning(
                    "--upstream-tools strip: the request's tools are not sent, so the model "
                    "is not told of them; --upstream-tools render writes them into the prompt"
                )
            return "chat/completions", upstream_body(body, mode), self._template_prompt(body)
        no = refused(body)
        if no is not None:
            raise BadRequest(
                f"'{no[0]}' is not supported with --upstream-tools render: {no[1]}", no[0]
            )
        try:
            prompt = prompter.prompt(body)
            return "completions", completion_body(body, prompt), prompt.text
        except TemplateError as exc:
            raise BadRequest(str(exc), "messages") from None
        except (ValueError, TypeError) as exc:
            raise BadRequest(f"cannot render the prompt: {exc}", "messages") from None

    def _template_prompt(self, body: dict[str, Any]) -> str | None:
        """The prompt the checkpoint's template (``--model-dir``) writes for ``body``, for
        the parser's start state only; None without one, or when it cannot render."""
        if self.template is None:
            return None
        try:
            return self.template.prompt(body).text
        except (TemplateError, ValueError, TypeError):
            return None

    @property
    def tokenize_url(self) -> str:
        """The upstream's ``/tokenize``, beside its ``/v1`` (as vLLM, SGLang and llama.cpp
        serve it)."""
        root = self.base_url.rstrip("/")
        return (root[: -len("/v1")] if root.endswith("/v1") else root) + "/tokenize"

    # -- health ---------------------------------------------------------------------------

    async def probe(self) -> str | None:
        """Why the upstream cannot serve now, or None: ``GET {upstream}/models``."""
        try:
            resp = await self.client.get(
                "models",
                headers=self.headers(None),
                timeout=httpx.Timeout(min(_HEALTH_TIMEOUT, self.config.connect_timeout)),
            )
        except httpx.HTTPError as exc:
            return f"the upstream {self.shown} cannot be reached: {self.scrub(describe(exc))}"
        if resp.status_code >= 500:
            return f"the upstream {self.shown} answers {resp.status_code} to GET /models"
        if resp.status_code in (401, 403) and self.config.api_key:
            return (
                f"the upstream {self.shown} refuses the proxy's API key "
                f"({resp.status_code} to GET /models)"
            )
        return None
