"""`codefathom install` / `uninstall` for every MCP client, against a temporary home and project."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from codefathom.mcp.clients import CLIENTS, Client, config_path

CASES = [(name, scope) for name, client in CLIENTS.items() for scope in ("user", "project")
         if scope == "user" or client.project]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def _read(client: Client, path: Path) -> dict[str, Any]:
    text = path.read_text()
    data: dict[str, Any] = tomllib.loads(text) if client.format == "toml" else json.loads(text)
    return data


def _seed(client: Client, path: Path) -> str:
    """A file the user already has: another server and a setting of their own."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if client.format == "toml":
        text = f'model = "o3"\n\n[{client.key}.other]\ncommand = "other-server"\nargs = ["--stdio"]\n'
    else:
        text = json.dumps({"theme": "dark", client.key: {"other": {"command": "other-server"}}}, indent=4) + "\n"
    path.write_text(text)
    return text


@pytest.mark.parametrize(("name", "scope"), CASES)
def test_install_merges_keeps_the_rest_and_is_idempotent(
    name: str, scope: str, home: Path, tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    client, project = CLIENTS[name], tmp_path / "project"
    project.mkdir()
    path = config_path(client, scope, project, home)
    original = _seed(client, path)

    result = run_cli("install", name, f"--{scope}", "-p", str(project), "--json")
    assert result.exit_code == 0, result.output
    reply = json.loads(result.output)
    assert reply["action"] == "added" and Path(reply["file"]) == path
    data = _read(client, path)
    entry = data[client.key]["codefathom"]
    assert entry["args"][-1] == "serve" and Path(entry["command"]).name in ("codefathom", "python", "python3")
    assert {k: v for k, v in entry.items() if k not in ("command", "args")} == client.entry
    assert data[client.key]["other"]["command"] == "other-server"  # the user's own server kept
    assert data.get("theme", data.get("model")) in ("dark", "o3")  # and their settings
    assert Path(reply["backup"]).read_text() == original

    written = path.read_bytes()
    again = json.loads(run_cli("install", name, f"--{scope}", "-p", str(project), "--json").output)
    assert again["action"] == "unchanged" and path.read_bytes() == written

    gone = json.loads(run_cli("uninstall", name, f"--{scope}", "-p", str(project), "--json").output)
    assert gone["action"] == "removed"
    data = _read(client, path)
    assert "codefathom" not in data[client.key] and data[client.key]["other"]["command"] == "other-server"
    if client.format == "toml":
        assert path.read_text() == original  # every line of theirs as it was


def test_a_new_file_is_created_and_a_dry_run_writes_nothing(
    home: Path, tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    dry = run_cli("install", "cursor", "-p", str(project), "--dry-run")
    assert dry.exit_code == 0 and dry.output.startswith("Cursor: would add it to")
    assert '+    "codefathom": {' in dry.output
    assert not (project / ".cursor").exists()
    assert run_cli("install", "cursor", "-p", str(project)).exit_code == 0
    assert "codefathom" in json.loads((project / ".cursor" / "mcp.json").read_text())["mcpServers"]
    listed = run_cli("install", "-p", str(project))
    assert "cursor" in listed.output and "(codefathom in it)" in listed.output


def test_a_file_that_is_not_plain_json_is_left_as_it_is(
    home: Path, tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    settings = home / ".config" / "zed" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{\n  // my theme\n  "theme": "One Dark",\n}\n')
    before = settings.read_bytes()
    result = run_cli("install", "zed", "--user")
    assert result.exit_code == 2
    assert "not plain JSON" in result.output and "by hand" in result.output
    assert settings.read_bytes() == before and not list(settings.parent.glob("*.codefathom-*"))


def test_unknown_clients_and_scopes_are_refused_with_the_choices(
    home: Path, run_cli: Callable[..., Result]
) -> None:
    unknown = run_cli("install", "emacs")
    assert unknown.exit_code == 2 and "claude-code" in unknown.output
    no_project = run_cli("install", "windsurf", "--project")
    assert no_project.exit_code == 2 and "--user" in no_project.output


def test_doctor_checks_the_install_and_the_index_and_says_what_to_fix(
    home: Path, shop_repo: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = json.loads(run_cli("doctor", "-p", str(shop_repo), "--json").output)["checks"]
    states = {c["check"]: c for c in before}
    assert [c["check"] for c in before] == ["python", "grammars", "embedder", "index", "mcp", "clients"]
    assert states["grammars"]["state"] == "ok" and states["mcp"]["state"] == "ok", before
    assert states["index"]["state"] == "warn" and "codefathom index" in states["index"]["detail"]
    assert states["embedder"]["state"] == "warn"  # vectors are off in the tests
    assert states["clients"]["state"] == "warn" and "codefathom install" in states["clients"]["detail"]

    assert run_cli("index", str(shop_repo), "--quiet").exit_code == 0
    assert run_cli("install", "claude-code", "-p", str(shop_repo)).exit_code == 0
    after = {c["check"]: c for c in json.loads(run_cli("doctor", "-p", str(shop_repo), "--json").output)["checks"]}
    assert after["index"]["state"] == "ok" and "files" in after["index"]["detail"]
    assert after["clients"]["state"] == "ok" and "Claude Code" in after["clients"]["detail"]

    monkeypatch.setenv("CODEFATHOM_EMBEDDER", "no-such-backend")
    broken = run_cli("doctor", "-p", str(shop_repo))
    assert broken.exit_code == 3 and "FAIL  embedder" in broken.output


def test_init_writes_a_commented_config_that_codefathom_reads(
    shop_repo: Path, run_cli: Callable[..., Result]
) -> None:
    vendor = shop_repo / "vendor" / "widgets"
    vendor.mkdir(parents=True)
    for i in range(25):
        (vendor / f"w{i}.js").write_text(f"export function widget{i}() {{ return {i}; }}\n")
    assert run_cli("init", "-p", str(shop_repo)).exit_code == 0
    config = shop_repo / ".codefathom.toml"
    text = config.read_text()
    settings = tomllib.loads(text)
    assert settings["embedder"] == "e5onnx" and settings["exclude"] == []  # proposals stay commented out
    assert '# "vendor/**",  # 25 files of vendored code' in text
    assert "javascript" in text.splitlines()[1]
    assert run_cli("index", str(shop_repo), "--quiet").exit_code == 0  # the file is one codefathom reads

    again = run_cli("init", "-p", str(shop_repo))
    assert again.exit_code == 2 and "--force" in again.output and config.read_text() == text
    config.write_text(text + "\n# my own note\n")
    assert run_cli("init", "-p", str(shop_repo), "--force").exit_code == 0
    assert (shop_repo / ".codefathom.toml.codefathom-backup").read_text().endswith("# my own note\n")


def test_the_guide_is_written_on_request_only_once_and_taken_out_cleanly(
    home: Path, tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert run_cli("install", "claude-code", "-p", str(project)).exit_code == 0
    assert not (project / "CLAUDE.md").exists()  # never silently
    notes = project / "CLAUDE.md"
    notes.write_text("# Our rules\n\nRun `make test` before pushing.\n")
    original = notes.read_text()
    assert run_cli("install", "claude-code", "-p", str(project), "--guide").exit_code == 0
    text = notes.read_text()
    assert text.startswith(original) and "`search_code`" in text and "`find_references`" in text
    assert run_cli("install", "claude-code", "-p", str(project), "--guide").exit_code == 0
    assert notes.read_text() == text  # once
    assert run_cli("uninstall", "claude-code", "-p", str(project), "--guide").exit_code == 0
    assert notes.read_text() == original
    codex = run_cli("install", "codex", "-p", str(project), "--guide", "--json")
    assert [r["file"] for r in json.loads(codex.output)][1] == str(project / "AGENTS.md")


@pytest.mark.parametrize("name", sorted(CLIENTS))
def test_the_command_a_client_is_given_starts_a_server_that_answers(
    name: str, home: Path, tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    import os

    import anyio
    from mcp import Client as McpClient
    from mcp import StdioServerParameters

    client, project = CLIENTS[name], tmp_path / "project"
    project.mkdir()
    assert run_cli("install", name, "--user", "-p", str(project)).exit_code == 0
    entry = _read(client, config_path(client, "user", project, home))[client.key]["codefathom"]
    params = StdioServerParameters(command=entry["command"], args=entry["args"], cwd=project, env=dict(os.environ))
    answered: list[str] = []

    async def connect() -> None:
        async with McpClient(params, read_timeout_seconds=60, mode="legacy") as session:
            answered.append(session.server_info.name if session.server_info else "")
            assert len((await session.list_tools()).tools) >= 10

    anyio.run(connect)
    assert answered == ["codefathom"]


def test_claude_code_slash_commands_and_a_session_start_hook_that_prints_an_outline(
    home: Path, shop_repo: Path, run_cli: Callable[..., Result]
) -> None:
    import subprocess

    settings = shop_repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]}}))
    assert run_cli("install", "claude-code", "-p", str(shop_repo), "--commands", "--hooks").exit_code == 0
    commands = sorted(p.name for p in (shop_repo / ".claude" / "commands").iterdir())
    assert commands == ["codefathom-callers.md", "codefathom-impact.md", "codefathom-map.md"]
    assert "$ARGUMENTS" in (shop_repo / ".claude" / "commands" / "codefathom-callers.md").read_text()
    data = json.loads(settings.read_text())
    assert data["permissions"] == {"allow": ["Bash(ls)"]}
    [start] = data["hooks"]["SessionStart"]
    # What Claude Code runs at the start of a session prints a map of the repository.
    assert run_cli("index", str(shop_repo), "--quiet").exit_code == 0
    printed = subprocess.run(start["hooks"][0]["command"], shell=True, cwd=shop_repo, capture_output=True, text=True,
                             timeout=60)
    assert printed.returncode == 0 and printed.stdout.startswith("# outline of the project")
    assert len(printed.stdout) <= 600 * 3 + 200

    again = run_cli("install", "claude-code", "-p", str(shop_repo), "--commands", "--hooks", "--json")
    assert {r["action"] for r in json.loads(again.output)} == {"unchanged"}
    assert run_cli("uninstall", "claude-code", "-p", str(shop_repo), "--commands", "--hooks").exit_code == 0
    assert json.loads(settings.read_text()) == {"permissions": {"allow": ["Bash(ls)"]}}
    assert not (shop_repo / ".claude" / "commands").exists()
    refused = run_cli("install", "cursor", "-p", str(shop_repo), "--hooks")
    assert refused.exit_code == 2 and "Claude Code only" in refused.output
    assert not (shop_repo / ".cursor").exists()  # refused before anything was written


def test_the_command_line_starts_without_loading_the_mcp_sdk() -> None:
    # `codefathom search` and every verb but `serve` load no MCP server code: the SDK (with pydantic's
    # schemas) took 0.7 of the 1.3 s a command spent importing, reached through `install`'s client list.
    import subprocess
    import sys

    probe = "import sys, codefathom.cli; print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
