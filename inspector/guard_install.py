"""Install the guard: a SessionStart hook (source `compact`) in Claude Code's or Codex's settings file.

The settings file is the user's. Install adds one matcher group and changes nothing else; it backs the
file up first, shows the diff and asks before writing. Uninstall puts the file back byte for byte while
it still holds exactly what install wrote (recomputed from the backup); once the user has edited it,
only our handler (and the containers it leaves empty) comes out. A file we cannot parse is never
written.

Both agents read the same structure: `{"hooks": {"SessionStart": [{"matcher", "hooks": [handler]}]}}`,
and run a handler's `command` through a shell with the hook JSON on stdin (Claude Code: code.claude.com
hooks reference; Codex: developers.openai.com/codex/hooks and SchemaStore's codex-hooks.json).
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shlex
import stat
import sys
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from inspector.inert import terminal_text

AGENTS = ("claude-code", "codex")
EVENT = "SessionStart"
MATCHER = "compact"
"""The SessionStart source of a session that starts again from a compaction summary."""
TIMEOUT = 10
"""Seconds: the guard reads one transcript; a hung guard must not hold the session back for long."""
SCRIPT = "compaction-inspector"
BACKUP_SUFFIX = ".compaction-inspector.bak"
EXIT_DONE, EXIT_DECLINED, EXIT_REFUSED = 0, 1, 2

CODEX_NOTES = (
    "Codex runs hooks only while its hooks feature is on: on by default in current Codex, older versions need "
    "[features] hooks = true in ~/.codex/config.toml (codex_hooks = true before the rename), and Codex asks you to "
    "review and trust a new hook (/hooks) before it runs it.",
    'Codex fires SessionStart with source "compact" only since openai/codex#21272 (May 2026): an older Codex '
    "never runs this hook after a compaction.",
)


class SettingsError(Exception):
    """A settings file we will not write: its reason fits on one line."""


def hook_command() -> str:
    """The command line the settings file runs: absolute path of the installed `compaction-inspector` console
    script beside sys.executable (e.g. .venv/bin/compaction-inspector) followed by ` guard`, quoted for a POSIX
    shell (shlex.quote); if that script does not exist, `<sys.executable> -m inspector guard`."""
    # Not resolved: .venv/bin/python is a link to the system Python, and the script lives beside the link.
    python = Path(os.path.abspath(sys.executable))
    script = python.with_name(SCRIPT)
    if script.is_file():
        return f"{shlex.quote(str(script))} guard"
    return f"{shlex.quote(str(python))} -m inspector guard"


def settings_file(agent: str, project: Path | None) -> Path:
    """claude-code: <project>/.claude/settings.json, or the user's settings.json when project is None;
    codex: <project>/.codex/hooks.json, or the user's hooks.json.

    The user folders are ~/.claude and ~/.codex, or $CLAUDE_CONFIG_DIR and $CODEX_HOME when set: each agent
    reads its user settings from there, so a hook written under ~ would never run.
    """
    if agent == "claude-code":
        folder, variable, name = ".claude", "CLAUDE_CONFIG_DIR", "settings.json"
    elif agent == "codex":
        folder, variable, name = ".codex", "CODEX_HOME", "hooks.json"
    else:
        raise ValueError(f"unknown agent {agent!r}; expected one of {', '.join(AGENTS)}")
    if project is not None:
        return project.absolute() / folder / name
    override = os.environ.get(variable, "").strip()
    return (Path(override).expanduser().absolute() if override else Path.home() / folder) / name


def is_guard_command(command: object) -> bool:
    """Whether a handler's command is one install wrote: exactly `<absolute path>/compaction-inspector guard`
    or `<absolute python> -m inspector guard`, whichever interpreter. A user's own line (a bare name from
    PATH, extra flags, a wrapper) is theirs and is never touched."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if len(words) == 2:
        return words[1] == "guard" and os.path.isabs(words[0]) and Path(words[0]).name == SCRIPT
    return len(words) == 4 and os.path.isabs(words[0]) and words[1:] == ["-m", "inspector", "guard"]


def install(agent: str, project: Path | None, *, yes: bool, confirm: Callable[[str], bool], out: TextIO) -> int:
    """Merge the guard into the agent's settings file: 0 written or already there, 1 declined, 2 refused."""
    path = settings_file(agent, project)
    command = hook_command()
    try:
        if project is not None and not project.is_dir():
            raise SettingsError(f"no project folder {project}")
        old = _read(path)
        document = _parse(old) if old is not None else {}
        if command in _installed(document):
            _say(out, f"The guard is already installed in {path}: {EVENT} ({MATCHER}) runs {command}")
            return EXIT_DONE
        new = _render(_with_guard(document, command))
    except SettingsError as error:
        return _refuse(out, path, error)
    if not _approved(path, old, new, yes=yes, confirm=confirm, out=out):
        return EXIT_DECLINED
    backup = _backup_path(path)
    if old is not None:
        _write(backup, old)
    _write(path, new)
    _say(out, f"Installed the guard in {path}: {EVENT} ({MATCHER}) runs {command}")
    if old is not None:
        _say(out, f"The file as it was is kept in {backup}")
    if agent == "codex":
        for note in (*CODEX_NOTES, *_codex_switched_off(project)):
            _say(out, note)
    return EXIT_DONE


def uninstall(agent: str, project: Path | None, *, yes: bool, confirm: Callable[[str], bool], out: TextIO) -> int:
    """Take the guard out of the agent's settings file: 0 removed or not there, 1 declined, 2 refused."""
    path = settings_file(agent, project)
    backup = _backup_path(path)
    try:
        old = _read(path)
        document = _parse(old) if old is not None else {}
        installed = _installed(document)
        if not installed:
            _say(out, f"The guard is not installed in {path}; nothing to do.")
            return EXIT_DONE
        original = _read(backup)
        restored = old == _what_install_wrote(original, installed[0])
        if restored:
            new = original  # None: install created the file
        else:  # edited since: keep the user's edits, take out only ours
            remaining = _without_guard(document, prune=True)
            new = _render(remaining) if remaining else None
    except SettingsError as error:
        return _refuse(out, path, error)
    if not _approved(path, old, new, yes=yes, confirm=confirm, out=out):
        return EXIT_DECLINED
    if restored:
        _write(path, new)
        if original is not None:
            backup.unlink()
        _say(out, f"Removed the guard from {path}: the file is back as it was before install.")
    else:
        _write(backup, old)
        _write(path, new)
        _say(out, f"Removed the guard from {path}; the file had been edited since install, so only the guard "
                  f"was taken out. The file as it was is kept in {backup}")  # fmt: skip
    return EXIT_DONE


def status(out: TextIO, project: Path | None = None) -> int:
    """For each agent and scope (user, and `project` or the current folder), where the guard is installed and
    what it runs. Always 0: this only reports."""
    scopes = (("user", None), ("project", project if project is not None else Path.cwd()))
    _say(out, f"Guard hook ({EVENT}, source {MATCHER}):")
    for agent in AGENTS:
        for scope, folder in scopes:
            path = settings_file(agent, folder)
            try:
                old = _read(path)
                commands = _installed(_parse(old)) if old is not None else []
            except SettingsError as error:
                state = f"cannot tell: {error}"
            else:
                state = "; ".join(_describe(c) for c in commands) if commands else "not installed"
            _say(out, f"  {agent:<12} {scope:<8} {path}: {state}")
    return EXIT_DONE


def _describe(command: str) -> str:
    program = shlex.split(command)[0]
    missing = "" if os.path.exists(program) else f" ({program} no longer exists: install again)"
    return f"installed, runs {command}{missing}"


# The settings document


def _handler(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": TIMEOUT}


def _session_start(document: dict[str, Any]) -> list[Any] | None:
    """The SessionStart matcher groups, or None when there are none; a shape we cannot merge into is refused."""
    hooks = document.get("hooks")
    if hooks is None:
        return None
    if not isinstance(hooks, dict):
        raise SettingsError('"hooks" is not a JSON object')
    groups = hooks.get(EVENT)
    if groups is None:
        return None
    if not isinstance(groups, list):
        raise SettingsError(f'"hooks.{EVENT}" is not a JSON list')
    return groups


def _is_ours(group: object, handler: object) -> bool:
    return (
        isinstance(group, dict)
        and group.get("matcher") == MATCHER
        and isinstance(handler, dict)
        and handler.get("type") == "command"
        and is_guard_command(handler.get("command"))
    )


def _handlers(group: object) -> list[Any]:
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return handlers if isinstance(handlers, list) else []


def _installed(document: dict[str, Any]) -> list[str]:
    """The command of every guard handler install wrote, in file order."""
    return [h["command"] for g in _session_start(document) or [] for h in _handlers(g) if _is_ours(g, h)]


def _without_guard(document: dict[str, Any], *, prune: bool) -> dict[str, Any]:
    """A copy without our handlers. A group left empty goes; with `prune`, so do the SessionStart list and the
    hooks object when our removal left them empty (install keeps them, so the new group lands in place)."""
    result = copy.deepcopy(document)
    groups = _session_start(result)
    if not groups:
        return result
    kept = []
    for group in groups:
        handlers = _handlers(group)
        if any(_is_ours(group, h) for h in handlers):
            group["hooks"] = [h for h in handlers if not _is_ours(group, h)]
            if not group["hooks"]:
                continue
        kept.append(group)
    emptied = len(kept) < len(groups) and not kept
    groups[:] = kept
    if prune and emptied:
        del result["hooks"][EVENT]
        if not result["hooks"]:
            del result["hooks"]
    return result


def _with_guard(document: dict[str, Any], command: str) -> dict[str, Any]:
    """The document with one guard group appended to SessionStart, replacing a guard that runs another
    command (an older install from another environment)."""
    result = _without_guard(document, prune=False)
    hooks = result.setdefault("hooks", {})
    hooks.setdefault(EVENT, []).append({"matcher": MATCHER, "hooks": [_handler(command)]})
    return result


def _what_install_wrote(original: bytes | None, command: str) -> bytes:
    """What install made of `original` (None: no file) with `command`; a backup we cannot parse matches nothing."""
    try:
        return _render(_with_guard(_parse(original) if original is not None else {}, command))
    except SettingsError:
        return b""


def _parse(data: bytes) -> dict[str, Any]:
    try:
        document = json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys)
    except UnicodeDecodeError:
        raise SettingsError("not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise SettingsError(f"not valid JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    if not isinstance(document, dict):
        raise SettingsError("not a JSON object")
    return document


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A repeated key would lose one of its values on rewrite: refuse the file instead."""
    document: dict[str, Any] = {}
    for key, value in pairs:
        if key in document:
            raise SettingsError(f"the key {key!r} appears twice in one object")
        document[key] = value
    return document


def _render(document: dict[str, Any]) -> bytes:
    """Indent 2, keys in their order, non-ASCII as written, a trailing newline: how the agents write it."""
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# Files and the terminal


def _backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise SettingsError(f"cannot read it ({error.strerror or error})") from None


def _write(path: Path, data: bytes | None) -> None:
    """Replace the file whole (a temporary file renamed over it), or remove it for None. A link is written
    through, not replaced: dotfile managers link settings files."""
    if data is None:
        path.unlink()
        return
    target = path.resolve() if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        with open(target, "xb") as handle:
            handle.write(data)
        return
    mode = stat.S_IMODE(target.stat().st_mode)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _approved(
    path: Path, old: bytes | None, new: bytes | None, *, yes: bool, confirm: Callable[[str], bool], out: TextIO
) -> bool:
    """Print the diff, then ask (unless `yes`); a refusal says nothing was written."""
    before = old.decode("utf-8").splitlines(keepends=True) if old is not None else []
    after = new.decode("utf-8").splitlines(keepends=True) if new is not None else []
    diff = difflib.unified_diff(
        before, after, str(path) if old is not None else "/dev/null", str(path) if new is not None else "/dev/null"
    )
    out.write(terminal_text("".join(line if line.endswith("\n") else line + "\n" for line in diff), keep_newlines=True))
    if yes or confirm(f"{'Write' if new is not None else 'Remove'} {path}?"):
        return True
    _say(out, f"Nothing written: {path} is unchanged.")
    return False


def _refuse(out: TextIO, path: Path, error: SettingsError) -> int:
    _say(out, f"{path}: {error}; left unchanged.")
    return EXIT_REFUSED


def _say(out: TextIO, line: str) -> None:
    out.write(terminal_text(line) + "\n")


def _codex_switched_off(project: Path | None) -> list[str]:
    """A line for each Codex config.toml that turns hooks off: read only, never written (no TOML writer
    keeps a user's comments and layout as this module keeps JSON)."""
    configs = [settings_file("codex", None).with_name("config.toml")]
    if project is not None:
        configs.append(settings_file("codex", project).with_name("config.toml"))
    lines = []
    for config in configs:
        try:
            features = tomllib.loads(config.read_text(encoding="utf-8")).get("features", {})
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        if not isinstance(features, dict):
            continue
        for key in ("hooks", "codex_hooks"):
            if features.get(key) is False:
                lines.append(f"{config} sets [features] {key} = false: Codex will not run the guard until it is on.")
                break
    return lines


__all__ = ["AGENTS", "MATCHER", "hook_command", "install", "is_guard_command", "settings_file", "status", "uninstall"]
