"""Where each MCP client keeps its server list, and how `codefathom serve` is added to it or
taken out: merged into the client's own file, other entries untouched, a backup kept.

Per-client knowledge is the CLIENTS table (file per scope, format, the key servers live under);
the code reads, edits and writes JSON or TOML the same way for all of them.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import shutil
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codefathom.errors import UsageError

__all__ = [
    "CLIENTS", "SERVER_NAME", "Client", "Change", "install", "uninstall", "found_clients", "has_server",
    "server_command", "GUIDE", "write_guide", "remove_guide",
]

SERVER_NAME = "codefathom"


@dataclass(frozen=True)
class Client:
    name: str  # as typed on the command line
    title: str
    project: str | None  # the file in a project, relative to its root; None: the client has none
    user: dict[str, str]  # the user's file per platform ("linux", "darwin", "win32"; "*" for all), ~-relative
    key: str  # the object (JSON) or table (TOML) its servers live under
    entry: dict[str, Any] = field(default_factory=dict)  # fields every entry of this client carries
    executables: tuple[str, ...] = ()  # on PATH when the client is installed
    guide: str = "AGENTS.md"  # the project's instructions file its agent reads; "" when it has none

    @property
    def format(self) -> str:
        return "toml" if (self.project or next(iter(self.user.values()))).endswith(".toml") else "json"


_APPDATA = "AppData/Roaming"
CLIENTS: dict[str, Client] = {c.name: c for c in (
    Client("claude-code", "Claude Code", ".mcp.json", {"*": ".claude.json"}, "mcpServers",
           {"type": "stdio"}, ("claude",), "CLAUDE.md"),
    Client("cursor", "Cursor", ".cursor/mcp.json", {"*": ".cursor/mcp.json"}, "mcpServers", {}, ("cursor",)),
    Client("vscode", "VS Code (Copilot)", ".vscode/mcp.json",
           {"linux": ".config/Code/User/mcp.json", "darwin": "Library/Application Support/Code/User/mcp.json",
            "win32": f"{_APPDATA}/Code/User/mcp.json"}, "servers", {"type": "stdio"}, ("code",)),
    Client("windsurf", "Windsurf", None, {"*": ".codeium/windsurf/mcp_config.json"}, "mcpServers", {},
           ("windsurf",)),
    Client("claude-desktop", "Claude Desktop", None,
           {"linux": ".config/Claude/claude_desktop_config.json",
            "darwin": "Library/Application Support/Claude/claude_desktop_config.json",
            "win32": f"{_APPDATA}/Claude/claude_desktop_config.json"}, "mcpServers", {}, (), ""),
    Client("codex", "Codex CLI", ".codex/config.toml", {"*": ".codex/config.toml"}, "mcp_servers", {}, ("codex",)),
    Client("gemini", "Gemini CLI", ".gemini/settings.json", {"*": ".gemini/settings.json"}, "mcpServers", {},
           ("gemini",), "GEMINI.md"),
    Client("zed", "Zed", ".zed/settings.json",
           {"linux": ".config/zed/settings.json", "darwin": ".config/zed/settings.json",
            "win32": f"{_APPDATA}/Zed/settings.json"}, "context_servers", {}, ("zed", "zeditor")),
)}


@dataclass
class Change:
    client: Client
    path: Path
    action: str  # "added", "updated", "removed", "unchanged", "absent"
    diff: str = ""
    backup: Path | None = None


def server_command(command: str | None = None) -> list[str]:
    """The command line a client runs: `command` split on spaces, else this installation's own
    `codefathom` (an absolute path, so a client that does not see this shell's PATH finds it)."""
    if command:
        return [*command.split(), "serve"] if "serve" not in command.split() else command.split()
    beside = Path(sys.executable).parent / ("codefathom.exe" if sys.platform == "win32" else "codefathom")
    if beside.exists():  # the script pip installed with this interpreter
        return [str(beside), "serve"]
    return [sys.executable, "-m", "codefathom", "serve"]


def config_path(client: Client, scope: str, project: Path, home: Path | None = None) -> Path:
    home = home or Path.home()
    if scope == "project":
        if client.project is None:
            raise UsageError(f"{client.title} has no per-project configuration; use --user")
        return project / client.project
    relative = client.user.get(sys.platform if sys.platform in ("darwin", "win32") else "linux") or client.user["*"]
    return home / relative


def install(client: Client, scope: str, project: Path, command: list[str], dry_run: bool = False,
            home: Path | None = None) -> Change:
    path = config_path(client, scope, project, home)
    entry = {**client.entry, "command": command[0], "args": command[1:]}
    return _edit_servers(client, path, lambda servers: servers.__setitem__(SERVER_NAME, entry), dry_run, True)


def uninstall(client: Client, scope: str, project: Path, dry_run: bool = False, home: Path | None = None) -> Change:
    path = config_path(client, scope, project, home)
    if not path.exists():
        return Change(client, path, "absent")
    return _edit_servers(client, path, lambda servers: servers.pop(SERVER_NAME, None), dry_run, False)


def found_clients(project: Path, home: Path | None = None) -> list[tuple[Client, list[Path]]]:
    """Clients that look installed (their program on PATH or their user file there), with the
    configuration files of theirs that exist, user and project."""
    found = []
    for client in CLIENTS.values():
        files = [p for scope in ("user", "project") if scope == "user" or client.project
                 for p in [config_path(client, scope, project, home)] if p.exists()]
        if files or any(shutil.which(x) for x in client.executables):
            found.append((client, files))
    return found


def has_server(client: Client, file: Path) -> bool:
    """Whether `file`, one of the client's configuration files, has our server."""
    try:
        return _has_ours(client, _load(client.format, file, file.read_text("utf-8"), ""))
    except (OSError, UsageError):
        return False


def _has_ours(client: Client, data: dict[str, Any]) -> bool:
    servers = data.get(client.key)
    return isinstance(servers, dict) and SERVER_NAME in servers


def _edit_servers(
    client: Client, path: Path, change: Callable[[dict[str, Any]], object], dry_run: bool, adding: bool
) -> Change:
    """`change` applied to the client's servers in its file: the table is made when `adding`, and a
    file without our server is left alone when not."""
    def edit(data: dict[str, Any]) -> None:
        if adding or _has_ours(client, data):
            servers = data.setdefault(client.key, {})
            if not isinstance(servers, dict):
                raise UsageError(f"{path}: `{client.key}` is not an object; fix it or add the server by hand")
            change(servers)

    def dump(before: str, data: dict[str, Any]) -> str:
        return _dump(client, path, before, data)

    return _edit_document(client, path, edit, lambda data: _has_ours(client, data), dump,
                          f"add the `{SERVER_NAME}` server to `{client.key}` by hand", dry_run)


def _edit_document(
    client: Client, path: Path, change: Callable[[dict[str, Any]], None], ours: Callable[[dict[str, Any]], bool],
    dump: Callable[[str, dict[str, Any]], str], by_hand: str, dry_run: bool,
) -> Change:
    """Read the JSON or TOML file, apply `change` to its document and write it back, keeping a
    backup, when that changed it; `ours` says whether codefathom's entry is in a document."""
    before = path.read_text("utf-8") if path.exists() else ""
    data = _load(client.format, path, before, by_hand)
    old = copy.deepcopy(data)
    change(data)
    if data == old:
        return Change(client, path, _action(ours(old), ours(data), changed=False))
    after = dump(before, data)
    result = Change(client, path, _action(ours(old), ours(data), changed=True), _diff(path, before, after))
    if not dry_run:
        result.backup = _replace(path, after)
    return result


def _action(had: bool, has: bool, changed: bool) -> str:
    if not changed:
        return "unchanged" if has else "absent"
    return "removed" if had and not has else "updated" if had else "added"


def _diff(path: Path, before: str, after: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), str(path), str(path)))


def _replace(path: Path, text: str) -> Path | None:
    """Write `text` to `path` in one step (a reader never sees half a file); the file before is kept
    beside it, and its name returned."""
    backup = None
    if path.exists():
        backup = path.with_name(path.name + ".codefathom-backup")
        shutil.copy2(path, backup)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".codefathom-tmp")
    temporary.write_text(text, "utf-8")
    os.replace(temporary, path)
    return backup


def _load(fmt: str, path: Path, text: str, by_hand: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        data = tomllib.loads(text) if fmt == "toml" else json.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        # Comments (JSONC) or a typo: rewriting the file would lose what its owner wrote.
        raise UsageError(f"{path} is not plain {fmt.upper()} ({exc}); left as it is: {by_hand}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} does not hold a {fmt.upper()} object; left as it is")
    return data


def _dump_json(before: str, data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _dump(client: Client, path: Path, before: str, data: dict[str, Any]) -> str:
    if client.format == "json":
        return _dump_json(before, data)
    after = _toml_with_server(before, client.key, data.get(client.key, {}).get(SERVER_NAME))
    try:
        same = _without_empty(tomllib.loads(after), client.key) == _without_empty(data, client.key)
    except tomllib.TOMLDecodeError:
        same = False
    if not same:  # the server is written some other way (an inline table): not ours to rewrite
        raise UsageError(f"{path}: `{client.key}.{SERVER_NAME}` is not a table of its own there;"
                         " edit it by hand")
    return after


def _without_empty(data: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if not (k == key and v == {})}


def _toml_with_server(text: str, key: str, entry: dict[str, Any] | None) -> str:
    """The TOML text with our server's table replaced, added or taken out; every other line as it was."""
    header = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    ours = f"{key}.{SERVER_NAME}"
    lines, kept, inside = text.splitlines(True), [], False
    for line in lines:
        match = header.match(line)
        if match:
            name = match.group(1).replace('"', "")
            inside = name == ours or name.startswith(ours + ".")
        if not inside:
            kept.append(line)
    out = "".join(kept)
    out = out.rstrip() + "\n" if out.strip() else ""  # no blank lines left where our table was
    if entry is not None:
        if out and not out.endswith("\n"):
            out += "\n"
        if out.strip():
            out += "\n"
        out += f"[{ours}]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in entry.items())
    return out


# When to use which tool, for the project's agent instructions file: written on request only.
GUIDE_BEGIN, GUIDE_END = "<!-- codefathom: begin -->", "<!-- codefathom: end -->"
GUIDE = f"""{GUIDE_BEGIN}
## Code search: codefathom

This repository is indexed by codefathom (MCP server `codefathom`); its answers are current (changed
files are re-indexed before each answer). Prefer it to grep and to reading whole files:
- A question in words ("where do we retry failed uploads?") or a name (`Session.request`): `search_code`.
- Where a name is defined: `find_symbol`; who uses it: `find_references`; callers and callees: `call_hierarchy`.
- Before changing a file: `file_dependencies` (direction `dependents`) and `find_tests`; before a
  commit: `change_impact` on the diff.
- A map of an unfamiliar area within a token budget: `outline`; one file at a glance: `file_brief`.
- Before writing new code: `code_health` (report `conventions`: how this code names, raises, logs, tests);
  unused code and copies: `code_health` (`dead`, `duplicates`); files that change together: `co_change`.
{GUIDE_END}
"""


def write_guide(client: Client, project: Path, dry_run: bool = False) -> Change:
    """The guide block in the project's instructions file for this client, added or brought up to date."""
    return _edit_guide(client, project, GUIDE, dry_run)


def remove_guide(client: Client, project: Path, dry_run: bool = False) -> Change:
    return _edit_guide(client, project, "", dry_run)


def _edit_guide(client: Client, project: Path, block: str, dry_run: bool) -> Change:
    if not client.guide:
        raise UsageError(f"{client.title} reads no instructions file from the project")
    path = project / client.guide
    before = path.read_text("utf-8") if path.exists() else ""
    start, end = before.find(GUIDE_BEGIN), before.find(GUIDE_END)
    if start >= 0 and end > start:
        had = True
        head, rest = before[:start], before[end + len(GUIDE_END):].lstrip("\n")
        if block:
            after = head + block + rest
        else:  # taken out with the blank line that set it apart
            head = head.rstrip("\n")
            after = head + ("\n\n" + rest if head and rest else "\n" if head else rest)
    else:
        had = False
        after = before + ("\n" if before and not before.endswith("\n") else "") + (
            "\n" if before.strip() and block else "") + block
    if not after.strip():
        after = ""
    change = Change(client, path, _action(had, bool(block), after != before), _diff(path, before, after))
    if not dry_run and after != before:
        path.write_text(after, "utf-8")
    return change


# Claude Code's slash commands for the common moves (Markdown prompts in .claude/commands/) and a
# session-start hook that puts a small map of the repository in front of the agent.
SLASH_COMMANDS = {
    "codefathom-map.md": (
        "Map this repository (or the area named) before working in it",
        "Call codefathom's `outline` tool (focus: $ARGUMENTS, if given; a budget of 1,500 tokens) and"
        " summarise the map: the main directories, the most depended-on files and definitions, and where"
        " to start reading for the task at hand.",
    ),
    "codefathom-callers.md": (
        "Who calls a function or method, and from where",
        "Use codefathom: `find_symbol` for $ARGUMENTS, then `call_hierarchy` (direction callers, depth 2)"
        " and `find_references`. List the callers by file with one line each on what they use it for.",
    ),
    "codefathom-impact.md": (
        "What breaks if a file or symbol changes",
        "Use codefathom on $ARGUMENTS: `file_dependencies` (direction dependents) for a file, or"
        " `find_references` for a symbol, then `find_tests` for the tests that exercise it; with no"
        " argument, `change_impact` on the working tree's diff. Say what depends on it, which tests to"
        " run, and what to check by hand.",
    ),
}
HOOK_MARK = "codefathom outline"


def write_commands(client: Client, scope: str, project: Path, remove: bool = False, dry_run: bool = False,
                   home: Path | None = None) -> list[Change]:
    folder = _claude_dir(client, scope, project, home) / "commands"
    changes = []
    for name, (description, prompt) in SLASH_COMMANDS.items():
        path = folder / name
        header = f"---\ndescription: {description}\nargument-hint: [name, path or words]\n---\n\n"
        text = "" if remove else header + prompt + "\n"
        before = path.read_text("utf-8") if path.exists() else ""
        if not dry_run and before != text:
            if remove:
                path.unlink()
                if not any(folder.iterdir()):
                    folder.rmdir()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, "utf-8")
        changes.append(Change(client, path, _action(bool(before), not remove, before != text),
                              _diff(path, before, text)))
    return changes


def write_hook(client: Client, scope: str, project: Path, command: list[str], remove: bool = False,
               dry_run: bool = False, home: Path | None = None) -> Change:
    """A SessionStart hook in Claude Code's settings.json that prints an outline of 600 tokens."""
    path = _claude_dir(client, scope, project, home) / "settings.json"
    outline = " ".join(_quoted(part) for part in command[:-1]) + " outline --tokens 600 --no-sync"
    hook = {"matcher": "startup", "hooks": [{"type": "command", "command": f"{outline} 2>/dev/null || true",
                                             "timeout": 30}]}

    def edit(settings: dict[str, Any]) -> None:
        hooks = settings.setdefault("hooks", {})
        starts = [h for h in hooks.get("SessionStart", []) if HOOK_MARK not in json.dumps(h)]
        hooks["SessionStart"] = starts if remove else [*starts, hook]
        if not hooks["SessionStart"]:
            del hooks["SessionStart"]
        if not hooks:
            del settings["hooks"]

    def ours(settings: dict[str, Any]) -> bool:
        return HOOK_MARK in json.dumps(settings.get("hooks", {}))

    settings = Client(client.name, client.title, ".claude/settings.json", {"*": ".claude/settings.json"}, "hooks")
    return _edit_document(settings, path, edit, ours, _dump_json, "add the hook by hand", dry_run)


def _claude_dir(client: Client, scope: str, project: Path, home: Path | None) -> Path:
    if client.name != "claude-code":
        raise UsageError("slash commands and hooks are written for Claude Code only (claude-code)")
    return project / ".claude" if scope == "project" else (home or Path.home()) / ".claude"


def _quoted(part: str) -> str:
    return part if re.fullmatch(r"[\w@%+=:,./-]+", part) else "'" + part.replace("'", "'\"'\"'") + "'"

