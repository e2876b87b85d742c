"""Runs every agent client through the proxy and prints one line each (``scripts/test-agents``).

    python scripts/agents/run.py [--only REGEX] [--modes render,none] [--timeout S]
                                 [--workarounds] [--save-fixtures DIR] [--out DIR] [--serve]

It starts the stack (``stack.py``: scripted upstream, ``streamcall serve`` in each mode,
a recorder in front of each), then runs each client once per mode, one after another, in a
throwaway directory with a throwaway HOME, under a time limit. A client passes when its loop
went all the way: the upstream was asked for a call and got one, the tool ran (its result,
``hi`` or the weather, reached the model in the next request), and the client showed the
model's final answer (``LOOP-OK ...``) and exited 0. Aider, which has no tools, passes when it
wrote ``hello.txt`` from the model's edit block. A client that looks up any host name fails
too (the DNS sink saw it; nothing leaves the namespace anyway).

Each run's files go to ``--out`` (default ``.agents/runs/<time>``): the client's stdout and
stderr, every request it sent with the proxy's answer (``client-<mode>.jsonl``), what the
upstream was sent (``upstream.jsonl``), the servers' logs. ``--save-fixtures DIR`` writes
the first request of each client on each route (and the first that carries a tool result),
scrubbed, as JSON files there. ``--serve`` only starts the stack and prints its URLs.

It must run inside a network namespace that has only loopback, with /etc/resolv.conf
pointing at 127.0.0.1 (``scripts/test-agents`` makes one); ``--no-netns`` skips that check.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from stack import MODES, Slice, Stack, env_base  # noqa: E402

MODEL = "Qwen/Qwen3-8B"
KEY = "sk-dummy-key"
SHELL_PROMPT = "run echo hi with your shell tool"
AIDER_PROMPT = "Please create hello.txt containing hi"


@dataclass
class Ctx:
    url: str  # the recorder in front of the proxy, no trailing /v1
    mode: str
    home: Path
    work: Path
    npm_bin: Path
    aider: Path
    python: str


@dataclass
class Outcome:
    rc: int | None  # None: timed out
    stdout: str
    stderr: str
    final: str | None = None  # the answer a framework case returned


# --- the clients --------------------------------------------------------------------------


def claude_code(ctx: Ctx) -> tuple[list[str], dict[str, str]]:
    env = {
        "ANTHROPIC_BASE_URL": ctx.url,
        "ANTHROPIC_API_KEY": KEY,
        "ANTHROPIC_MODEL": MODEL,
        "ANTHROPIC_DEFAULT_HAIKU_MODEL": MODEL,
        "ANTHROPIC_DEFAULT_SONNET_MODEL": MODEL,
        "ANTHROPIC_DEFAULT_OPUS_MODEL": MODEL,
        "ANTHROPIC_SMALL_FAST_MODEL": MODEL,
        "CLAUDE_CONFIG_DIR": str(ctx.home / ".claude"),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_BUG_COMMAND": "1",
        "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
    }
    argv = [
        str(ctx.npm_bin / "claude"),
        "-p",
        "run echo hi with Bash",
        "--model",
        MODEL,
        "--allowedTools",
        "Bash",
    ]
    return argv, env


def codex(ctx: Ctx) -> tuple[list[str], dict[str, str]]:
    codex_home = ctx.home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        f'''model = "{MODEL}"
model_provider = "streamcall"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.streamcall]
name = "streamcall"
base_url = "{ctx.url}/v1"
env_key = "STREAMCALL_TEST_KEY"
wire_api = "responses"

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"

# without this, codex fetches the curated plugin catalog at start
# (github.com, api.github.com, chatgpt.com)
[features]
plugins = false
'''
    )
    env = {"CODEX_HOME": str(codex_home), "STREAMCALL_TEST_KEY": KEY}
    argv = [str(ctx.npm_bin / "codex"), "exec", "--skip-git-repo-check", SHELL_PROMPT]
    return argv, env


def opencode(ctx: Ctx) -> tuple[list[str], dict[str, str]]:
    config = ctx.home / "opencode.json"
    config.write_text(
        json.dumps(
            {
                "$schema": "https://opencode.ai/config.json",
                "autoupdate": False,
                "share": "disabled",
                "model": f"streamcall/{MODEL}",
                "provider": {
                    "streamcall": {
                        "npm": "@ai-sdk/openai-compatible",
                        "name": "streamcall",
                        "options": {"baseURL": f"{ctx.url}/v1", "apiKey": KEY},
                        "models": {MODEL: {"name": "Qwen3 8B", "tool_call": True}},
                    }
                },
                "permission": {"bash": "allow", "edit": "allow"},
            },
            indent=2,
        )
    )
    # OpenCode installs its plugin SDK into each config directory that has no
    # node_modules (registry.npmjs.org); a directory that says it has it is left alone
    conf = ctx.home / ".config" / "opencode"
    (conf / "node_modules").mkdir(parents=True, exist_ok=True)
    (conf / "package.json").write_text("{}\n")
    lock = {"packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}
    (conf / "package-lock.json").write_text(json.dumps(lock) + "\n")
    env = {
        "XDG_CONFIG_HOME": str(ctx.home / ".config"),
        "XDG_DATA_HOME": str(ctx.home / ".local" / "share"),
        "XDG_CACHE_HOME": str(ctx.home / ".cache"),
        "XDG_STATE_HOME": str(ctx.home / ".local" / "state"),
        "OPENCODE_CONFIG": str(config),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_SHARE": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    }
    return [str(ctx.npm_bin / "opencode"), "run", SHELL_PROMPT], env


def qwen_code(ctx: Ctx) -> tuple[list[str], dict[str, str]]:
    settings = ctx.home / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        json.dumps(
            {
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
                "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
                "security": {"auth": {"selectedType": "openai"}},
            },
            indent=2,
        )
    )
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": f"{ctx.url}/v1", "OPENAI_MODEL": MODEL}
    argv = [
        str(ctx.npm_bin / "qwen"),
        "--auth-type",
        "openai",
        "--model",
        MODEL,
        "--approval-mode",
        "yolo",
        SHELL_PROMPT,
    ]
    return argv, env


def aider(ctx: Ctx) -> tuple[list[str], dict[str, str]]:
    git = ["git", "-c", "user.name=agents", "-c", "user.email=agents@example.invalid"]
    subprocess.run(["git", "init", "-q"], cwd=ctx.work, check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "init"], cwd=ctx.work, check=True)
    # without local metadata for the model, aider downloads litellm's model list
    # (raw.githubusercontent.com)
    metadata = ctx.home / "model-metadata.json"
    info = {
        "max_input_tokens": 32768,
        "max_output_tokens": 8192,
        "input_cost_per_token": 0,
        "output_cost_per_token": 0,
        "litellm_provider": "openai",
        "mode": "chat",
    }
    metadata.write_text(json.dumps({f"openai/{MODEL}": info}))
    env = {
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "GIT_AUTHOR_NAME": "agents",
        "GIT_AUTHOR_EMAIL": "agents@example.invalid",
        "GIT_COMMITTER_NAME": "agents",
        "GIT_COMMITTER_EMAIL": "agents@example.invalid",
    }
    argv = [
        str(ctx.aider),
        "--model",
        f"openai/{MODEL}",
        "--openai-api-base",
        f"{ctx.url}/v1",
        "--openai-api-key",
        KEY,
        "--model-metadata-file",
        str(metadata),
        "--no-check-update",
        "--no-analytics",
        "--yes-always",
        "--no-show-model-warnings",
        "--no-pretty",
        "--no-fancy-input",
        "--message",
        AIDER_PROMPT,
    ]
    return argv, env


CLIS: dict[str, Callable[[Ctx], tuple[list[str], dict[str, str]]]] = {
    "claude-code": claude_code,
    "codex": codex,
    "opencode": opencode,
    "qwen-code": qwen_code,
    "aider": aider,
}


def framework_cases(python: str) -> list[str]:
    out = subprocess.run(
        [python, str(HERE / "frameworks.py"), "--list"], capture_output=True, text=True, check=True
    )
    return out.stdout.split()


# --- verdicts -----------------------------------------------------------------------------


def _error_message(head: str) -> str:
    try:
        body = json.loads(head)
    except ValueError:
        return " ".join(head.split())[:200]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("message"))[:300]
    return json.dumps(body)[:200]


def _thread_refusal(head: str) -> bool:
    try:
        body = json.loads(head)
    except ValueError:
        return False
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    return isinstance(details, dict) and details.get("error_code") == "thread_unsupported_request"


def _stream_error(head: str) -> str | None:
    for event in ("response.failed", "event: error"):
        if event in head:
            tail = head[head.index(event) :]
            match = re.search(r'"message":\s*"((?:[^"\\]|\\.)*)"', tail)
            return f"{event}: {match.group(1) if match else tail[:200]}"
    return None


def verdict(name: str, kind: str, outcome: Outcome, got: Slice, ctx: Ctx) -> tuple[bool, str]:
    responses = got.responses()
    for req in got.requests():
        if req["method"] != "POST":
            continue
        resp = responses.get(req["n"])
        if resp is None:
            continue
        if resp["status"] == 400 and _thread_refusal(resp["head"]):
            # the proxy keeps no server-held thread and says so as the anthropic SDK reads
            # it (thread_unsupported_request); the SDK's tool runner then sends every turn
            # whole, without the field: the protocol working, not a failure
            continue
        if resp["status"] >= 400:
            return False, (
                f"HTTP {resp['status']} on POST {req['path']}: {_error_message(resp['head'])}"
            )
        broken = _stream_error(resp.get("head") or "")
        if broken:
            return False, f"POST {req['path']} stream ended in {broken}"
    hosts = sorted({d["name"] for d in got.dns})
    if hosts:
        return False, f"looked up {', '.join(hosts)} (blocked: loopback only)"
    if outcome.rc is None:
        return False, "timed out"
    notes = got.notes()
    if kind == "aider":
        target = ctx.work / "hello.txt"
        if not any(n["kind"] == "edit" for n in notes):
            return False, "the model was never asked to write the file"
        if not target.exists() or target.read_text().strip() != "hi":
            return False, f"hello.txt not written from the edit block (exit {outcome.rc})"
        if outcome.rc != 0:
            return False, f"exit {outcome.rc}: {_tail(outcome.stderr)}"
        return True, "wrote hello.txt from the model's edit block"
    wanted = "22 degrees" if kind == "framework" else "hi"
    calls = [n for n in notes if n["kind"] == "call"]
    finals = [n for n in notes if n["kind"] == "final" and wanted in n.get("result", "")]
    if not calls:
        seen = sorted({t for n in notes for t in n.get("tools", [])})
        return False, f"no call was asked for (tools the model saw: {seen[:12]})"
    if kind == "framework" and outcome.final is not None and "LOOP-OK" not in outcome.final:
        ran = "after" if finals else "before"
        return False, (
            f"final answer {outcome.final!r}, not the model's answer (the loop ended {ran} "
            f"{calls[0]['tool']} ran)"
        )
    if not finals:
        return False, (
            f"{calls[0]['tool']} was called but its result never reached the model (exit {outcome.rc}: "
            f"{_tail(outcome.stderr or outcome.stdout)})"
        )
    if kind == "framework":
        if outcome.final is None:
            return False, f"exit {outcome.rc}: {_tail(outcome.stderr)}"
        if "LOOP-OK" not in outcome.final:
            return False, f"final answer {outcome.final!r}, not the model's answer"
    elif "LOOP-OK" not in outcome.stdout:
        return False, f"the final answer was not shown (stdout ends {_tail(outcome.stdout)!r})"
    if outcome.rc != 0:
        return False, f"exit {outcome.rc}: {_tail(outcome.stderr)}"
    return True, f"{calls[0]['tool']} ran, final answer shown"


def _tail(text: str, n: int = 160) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-2:])[-n:] if lines else ""


# --- fixtures -----------------------------------------------------------------------------

KEEP_HEADERS = (
    "content-type",
    "accept",
    "anthropic-version",
    "anthropic-beta",
    "openai-beta",
    "user-agent",
    "originator",
    "x-app",
    "x-stainless-helper-method",
    "x-codex-beta-features",
)


class Scrubber:
    """Stable placeholders for what changes from run to run or machine to machine: the
    temporary folders, HOME, the host name, the ports, UUIDs, 64-digit hex ids, the run's
    dates (written as 2000-01-01; other dates, e.g. in beta names, are kept) and Unix times
    near it, and the dummy key."""

    UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)

    def __init__(self, temp_root: Path, ports: list[str], when: float) -> None:
        self.temp_root = str(temp_root)
        # the days the run may have seen (it may cross midnight), as 2000-01-01
        self.when = when
        self.days = [time.localtime(when + d * 86400) for d in (-1, 0, 1)]
        self.epoch = time.strptime("2000-01-01", "%Y-%m-%d")
        self.ports = ports
        self.uuids: dict[str, str] = {}
        self.home = os.path.expanduser("~")
        self.host = os.uname().nodename

    def _uuid(self, match: re.Match[str]) -> str:
        value = match.group(0).lower()
        if value not in self.uuids:
            self.uuids[value] = f"00000000-0000-4000-8000-{len(self.uuids) + 1:012d}"
        return self.uuids[value]

    def _stamp(self, match: re.Match[str]) -> str:
        """A Unix time (seconds or milliseconds) near the run's, as 2000-01-01T00:00:00Z."""
        value = int(match.group(0))
        millis = match.group(1) is not None
        if abs(value / (1000 if millis else 1) - self.when) > 3 * 86400:
            return match.group(0)
        return "946684800000" if millis else "946684800"

    def text(self, text: str) -> str:
        text = text.replace(self.temp_root, "/tmp/agents")
        # each client's folder, <temp root>/<client>-<mode>/{home,work,...}
        text = re.sub(r"/tmp/agents/[^/\"\s\\]+-(?:render|none)(?=[/\"\s\\])", "/tmp/agents", text)
        # the same path as some clients name a project after it (all but [A-Za-z0-9] as -)
        encoded = re.sub(r"[^A-Za-z0-9]", "-", self.temp_root)
        text = re.sub(
            re.escape(encoded) + r"-[A-Za-z0-9_-]*?-(?:render|none)-", "-tmp-agents-", text
        )
        if self.home not in ("/", ""):
            text = re.sub(re.escape(self.home) + r"(?=[/\"\s\\]|$)", "/home/user", text)
        if len(self.host) > 3:
            text = text.replace(self.host, "host")
        for port in self.ports:
            text = text.replace(f"127.0.0.1:{port}", "127.0.0.1:8000")
        text = self.UUID.sub(self._uuid, text)
        text = re.sub(r"\b[0-9a-f]{64}\b", "0" * 64, text)
        for day in self.days:
            for form in (
                "%Y-%m-%d",
                "%Y/%m/%d",
                "%A, %B %-d, %Y",
                "%B %-d, %Y",
                "%a %b %d %Y",
                "%a %b %-d %Y",
                "%d %B %Y",
            ):
                text = text.replace(time.strftime(form, day), time.strftime(form, self.epoch))
        text = re.sub(r"2000-01-01T\d{2}:\d{2}:\d{2}(\.\d+)?", "2000-01-01T00:00:00", text)
        text = re.sub(r"\b1\d{9}(\d{3})?\b", self._stamp, text)
        text = text.replace(KEY, "sk-dummy")
        return text

    def value(self, value: Any) -> Any:
        return json.loads(self.text(json.dumps(value)))


def _has_tool_result(route: str, body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    if route.endswith("/chat/completions"):
        return any(m.get("role") == "tool" for m in body.get("messages") or [])
    if route.endswith("/responses"):
        items = body.get("input")
        return isinstance(items, list) and any(
            isinstance(i, dict) and i.get("type") == "function_call_output" for i in items
        )
    if route.endswith("/messages"):
        for m in body.get("messages") or []:
            content = m.get("content")
            if isinstance(content, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in content
            ):
                return True
    return False


ROUTES = {"/v1/chat/completions": "chat", "/v1/responses": "responses", "/v1/messages": "messages"}


def save_fixtures(
    runs: list[dict[str, Any]], directory: Path, scrub: Scrubber, versions: dict[str, str]
) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    for run in runs:
        if run["mode"] != "render":  # the clients send the same in both modes
            continue
        picked: dict[str, dict[str, Any]] = {}
        for req in run["requests"]:
            route = ROUTES.get(req["path"])
            if route is None or req["method"] != "POST":
                continue
            body = req["body"]
            has_tools = isinstance(body, dict) and bool(body.get("tools"))
            if _has_tool_result(req["path"], body):
                picked.setdefault(f"{route}.tool-result", req)
            elif has_tools or run["kind"] == "aider":
                picked.setdefault(route, req)
        for suffix, req in picked.items():
            body = scrub.value(req["body"])
            headers = {k: v for k, v in req["headers"].items() if k.lower() in KEEP_HEADERS}
            client = run["client"]
            fixture = {
                "client": client,
                "client_version": versions.get(client, ""),
                "case": run["name"],
                "route": req["path"],
                "query": req["query"],
                "headers": scrub.value(headers),
                "body": body,
            }
            path = directory / f"{run['name']}.{suffix}.json"
            path.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n")
            saved.append(path)
    return saved


def write_fixtures(runs: list[dict[str, Any]], directory: Path, meta: dict[str, Any]) -> None:
    scrub = Scrubber(Path(meta["temp_root"]), meta["ports"], meta["time"])
    for path in save_fixtures(runs, directory, scrub, meta["versions"]):
        print(f"fixture: {path} ({path.stat().st_size // 1024} KB)")


def runs_from(out: Path) -> list[dict[str, Any]]:
    """The runs a finished run left in its folder (``--fixtures-from``)."""
    runs = []
    for case in sorted(
        out.glob("*/case.json"), key=lambda p: (p.parent / "stdout.txt").stat().st_mtime
    ):
        run = json.loads(case.read_text())
        lines = [json.loads(line) for line in (case.parent / "client.jsonl").open()]
        runs.append({**run, "requests": [r for r in lines if r.get("kind") == "request"]})
    return runs


# --- main ---------------------------------------------------------------------------------


def run_one(
    name: str,
    kind: str,
    mode: str,
    stack: Stack,
    temp_root: Path,
    args: argparse.Namespace,
    npm_bin: Path,
    aider_bin: Path,
) -> tuple[bool, str, Slice, float]:
    base = temp_root / f"{name}-{mode}"
    home, work = base / "home", base / "work"
    home.mkdir(parents=True)
    work.mkdir(parents=True)
    ctx = Ctx(stack.urls[mode], mode, home, work, npm_bin, aider_bin, sys.executable)
    env = env_base()
    env.update({"HOME": str(home), "TMPDIR": str(base), "NO_COLOR": "1", "CI": "1"})
    if kind == "framework":
        argv = [sys.executable, str(HERE / "frameworks.py"), name, "--base", ctx.url]
    else:
        argv, extra = CLIS[name](ctx)
        env.update(extra)
        env["PATH"] = f"{npm_bin}:{env.get('PATH', '')}"
    marks = stack.mark()
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=args.timeout)
        rc: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        rc = None
    took = time.monotonic() - started
    time.sleep(0.3)  # the recorder writes each answer once it is sent
    got = stack.since(marks, mode)
    outcome = Outcome(rc, stdout, stderr)
    if kind == "framework":
        for line in stdout.splitlines():
            if line.startswith("FINAL: "):
                outcome.final = json.loads(line[len("FINAL: ") :])
    out = args.out / f"{name}-{mode}"
    out.mkdir(parents=True, exist_ok=True)
    (out / "stdout.txt").write_text(stdout)
    (out / "stderr.txt").write_text(stderr)
    (out / "client.jsonl").write_text("".join(json.dumps(r) + "\n" for r in got.client))
    (out / "upstream.jsonl").write_text("".join(json.dumps(r) + "\n" for r in got.upstream))
    if got.dns:
        (out / "dns.jsonl").write_text("".join(json.dumps(r) + "\n" for r in got.dns))
    ok, why = verdict(name, kind, outcome, got, ctx)
    return ok, why, got, took


def versions(npm_prefix: Path, aider_bin: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for client, package in (
        ("claude-code", "@anthropic-ai/claude-code"),
        ("codex", "@openai/codex"),
        ("opencode", "opencode-ai"),
        ("qwen-code", "@qwen-code/qwen-code"),
    ):
        manifest = npm_prefix / "node_modules" / package / "package.json"
        if manifest.exists():
            out[client] = json.loads(manifest.read_text())["version"]
    try:
        got = subprocess.run([str(aider_bin), "--version"], capture_output=True, text=True)
        out["aider"] = got.stdout.strip().split()[-1]
    except OSError:
        pass
    from importlib import metadata

    for dist in (
        "openai",
        "anthropic",
        "openai-agents",
        "pydantic-ai-slim",
        "langchain-openai",
        "langchain-anthropic",
        "litellm",
    ):
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[dist] = metadata.version(dist)
    return out


def client_of(case: str) -> str:
    """The package a framework case exercises (for the version and the fixture's name)."""
    for prefix, dist in (
        ("openai-agents", "openai-agents"),
        ("openai", "openai"),
        ("anthropic", "anthropic"),
        ("pydantic-ai", "pydantic-ai-slim"),
        ("langchain-openai", "langchain-openai"),
        ("langchain-anthropic", "langchain-anthropic"),
        ("litellm", "litellm"),
    ):
        if case.startswith(prefix):
            return dist
    return case


def main() -> int:
    repo = HERE.parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", default=None, help="run the clients whose name matches")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per client")
    parser.add_argument("--workarounds", action="store_true", help="see recorder.py")
    parser.add_argument("--save-fixtures", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--no-netns", action="store_true")
    parser.add_argument("--npm-prefix", type=Path, default=repo / ".agents" / "npm")
    parser.add_argument("--aider", type=Path, default=repo / ".agents" / "aider" / "bin" / "aider")
    parser.add_argument(
        "--fixtures-from", type=Path, default=None, help="a run's folder: write its fixtures only"
    )
    args = parser.parse_args()
    if args.fixtures_from is not None:
        if args.save_fixtures is None:
            parser.error("--fixtures-from needs --save-fixtures DIR")
        meta = json.loads((args.fixtures_from / "meta.json").read_text())
        write_fixtures(runs_from(args.fixtures_from), args.save_fixtures, meta)
        return 0
    if not args.no_netns and os.environ.get("STREAMCALL_AGENTS_NETNS") != "1":
        print(
            "run.py: run it through scripts/test-agents (a loopback-only namespace)",
            file=sys.stderr,
        )
        return 2
    stamp = time.strftime("%Y%m%d-%H%M%S")
    args.out = (args.out or repo / ".agents" / "runs" / stamp).resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    streamcall = str(Path(sys.executable).parent / "streamcall")
    dns_log = None if args.no_netns else args.out / "dns.jsonl"
    stack = Stack(args.out, streamcall, dns_log, workarounds=args.workarounds)

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    temp_root = Path(tempfile.mkdtemp(prefix="test-agents-"))
    try:
        stack.start()
        if args.serve:
            print(json.dumps({"clients": stack.urls, "proxies": stack.proxy_urls}), flush=True)
            while True:
                time.sleep(3600)
        npm_bin = args.npm_prefix / "node_modules" / ".bin"
        have = versions(args.npm_prefix, args.aider)
        cases = [(name, "cli") for name in CLIS]
        cases += [(name, "framework") for name in framework_cases(sys.executable)]
        if args.only:
            cases = [c for c in cases if re.search(args.only, c[0])]
        modes = [m for m in args.modes.split(",") if m]
        print(
            "versions: " + ", ".join(f"{k} {v}" for k, v in have.items()),
            flush=True,
        )
        if args.workarounds:
            print("workarounds ON: Claude Code's and Codex's requests are edited (recorder.py)")
        passed = failed = 0
        started = time.time()
        runs: list[dict[str, Any]] = []
        width = max(len(f"{n} [{m}]") for n, _ in cases for m in modes) if cases else 10
        for name, kind in cases:
            for mode in modes:
                kind_ = "aider" if name == "aider" else kind
                ok, why, got, took = run_one(
                    name, kind_, mode, stack, temp_root, args, npm_bin, args.aider
                )
                passed += ok
                failed += not ok
                label = f"{name} [{mode}]"
                print(
                    f"{'PASS' if ok else 'FAIL'}  {label:<{width}}  {took:5.1f}s  {why}", flush=True
                )
                client = name if kind == "cli" else client_of(name)
                run = {"name": name, "client": client, "kind": kind_, "mode": mode}
                (args.out / f"{name}-{mode}" / "case.json").write_text(json.dumps(run) + "\n")
                runs.append({**run, "requests": got.requests()})
        print(f"{passed} passed, {failed} failed")
        print(f"logs: {args.out}")
        ports = [u.rsplit(":", 1)[1] for u in stack.urls.values()]
        meta = {"temp_root": str(temp_root), "ports": ports, "versions": have, "time": started}
        (args.out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
        if args.save_fixtures is not None:
            write_fixtures(runs, args.save_fixtures, meta)
        return 0 if failed == 0 else 1
    finally:
        stack.stop()
        shutil.rmtree(temp_root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
