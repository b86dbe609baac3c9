"""Install the guard: a SessionStart hook (source `compact`) in Claude Code's or Codex's settings file, and for
Claude Code a PreCompact hook beside it (the list of what stands, before the summary is written).

The settings file is the user's. Install adds one matcher group and changes nothing else; it backs the
file up first, shows the diff and asks before writing. Uninstall puts the file back byte for byte while
it still holds exactly what install wrote (recomputed from the backup); once the user has edited it,
only our handler (and the containers it leaves empty) comes out. A file we cannot parse is never
written.

A project's `.claude/` may be someone else's repository, so every access is one a planted file cannot
turn: only a regular file in a real folder is read or written (a link, in `.claude/` or as it, could lead
to the user's own settings; a FIFO would block), never through a link; a write goes to a temporary file
in the same folder, synced and renamed over, so it lands whole or not at all; a file that changed while
the question waited is not written; and backups live in the data folder, never beside the file.

opencode takes no hook in a settings file: it runs code, so its install writes a small plugin into opencode's plugin
folder (the package's `guard_opencode.js`, `OPENCODE_HOOK`): a file wholly the guard's, replaced whole on install and
removed on uninstall; a file of its name the guard did not write is left alone.

Claude Code and Codex read the same structure: `{"hooks": {"SessionStart": [{"matcher", "hooks": [handler]}]}}` (and
`"PreCompact"` beside it),
and run a handler's `command` through a shell with the hook JSON on stdin (Claude Code: code.claude.com
hooks reference; Codex: developers.openai.com/codex/hooks and SchemaStore's codex-hooks.json).
"""

from __future__ import annotations

import copy
import difflib
import errno
import hashlib
import json
import os
import re
import secrets
import shlex
import shutil
import stat
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from inspector.guard import AFTER, BEFORE
from inspector.guard_options import AGENTS
from inspector.inert import terminal_text
from inspector.library import data_dir
from inspector.settings_text import appended, removed

EVENT = AFTER
MATCHER = "compact"
"""The SessionStart source of a session that starts again from a compaction summary."""
BEFORE_MATCHER = ""
"""Every PreCompact trigger, `auto` (the context is full) and `manual` (/compact): an empty matcher matches all."""
HOOKS: dict[str, tuple[tuple[str, str], ...]] = {"claude-code": ((EVENT, MATCHER), (BEFORE, BEFORE_MATCHER)),
                                                 "codex": ((EVENT, MATCHER),)}  # fmt: skip
"""The (event, matcher) groups install writes for each agent. Codex's PreCompact takes no context
(Yeachan-Heo/oh-my-codex#2217), so Codex gets the SessionStart hook alone."""
MATCHERS = dict(HOOKS["claude-code"])
"""Every event a guard of ours may sit in, with its matcher: uninstall and status look in all of them."""
BEFORE_HOOKS = ((EVENT, MATCHER),)
"""What installs before the PreCompact hook wrote (and Codex's install writes): their files are undone byte for
byte all the same."""
TIMEOUT = 10
"""Seconds: the guard reads one transcript; a hung guard must not hold the session back for long."""
SCRIPT = "compaction-inspector"
LOCAL_SETTINGS = "settings.local.json"
LOCAL_NOTE = (f"{LOCAL_SETTINGS} is your own settings for this project (Claude Code's local scope, read beside the "
              "team's settings.json, which install leaves alone): its command names this machine's "
              "compaction-inspector, so keep the file out of git; each teammate installs the guard for themselves.")
CODEX_PROJECT_NOTE = ("The command names this machine's compaction-inspector, and Codex reads no per-user file in a "
                      "project: keep .codex/hooks.json out of git, or install with --user instead.")  # fmt: skip
BACKUPS = "settings-backups"
"""The data folder's subfolder for the settings files as they were before install (one per file)."""
MAX_SETTINGS = 4 << 20
"""Bytes read of a settings file: the agents' own are a few KB; a bigger one is refused, not read whole."""
MAX_DEPTH = 64
"""Levels of nesting a settings file may have (the agents' own have six): a deeper one is no settings file, and
past a few hundred levels Python's JSON parser or copy would end in a RecursionError."""
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
    shell (shlex.quote); if that script does not exist, `<sys.executable> -P -m inspector guard`.

    `-P`: the harness runs the hook in the project's folder, and `-m` would otherwise put that folder first on
    sys.path, so a folder named `inspector` in someone else's repository would run in place of the guard."""
    # Not resolved: .venv/bin/python is a link to the system Python, and the script lives beside the link.
    python = Path(os.path.abspath(sys.executable))
    script = python.with_name(SCRIPT)
    if script.is_file():
        return f"{shlex.quote(str(script))} guard"
    return f"{shlex.quote(str(python))} -P -m inspector guard"


def settings_file(agent: str, project: Path | None) -> Path:
    """claude-code: <project>/.claude/settings.local.json, or the user's settings.json when project is None;
    codex: <project>/.codex/hooks.json, or the user's hooks.json; opencode: the guard's plugin file
    (`plugin_file`).

    A project's Claude Code hook goes in settings.local.json, Claude Code's local scope ("you, in this repository",
    not committed; code.claude.com/docs/en/settings, "Settings files and who they affect"), not in settings.json,
    the project scope a team commits: the command names this machine's compaction-inspector, which a teammate's
    machine does not have at that path. The user folders are ~/.claude and ~/.codex, or $CLAUDE_CONFIG_DIR and
    $CODEX_HOME when set: each agent reads its user settings from there, so a hook written under ~ would never run.
    """
    if agent == "opencode":
        return plugin_file(project)
    if agent == "claude-code":
        folder, variable, name = ".claude", "CLAUDE_CONFIG_DIR", "settings.json"
    elif agent == "codex":
        folder, variable, name = ".codex", "CODEX_HOME", "hooks.json"
    else:
        raise ValueError(f"unknown agent {agent!r}; expected one of {', '.join(AGENTS)}")
    if project is not None:
        return project.absolute() / folder / (LOCAL_SETTINGS if agent == "claude-code" else name)
    override = os.environ.get(variable, "").strip()
    return (Path(override).expanduser().absolute() if override else Path.home() / folder) / name


def shared_settings_file(agent: str, project: Path | None) -> Path | None:
    """The project's settings file a team commits, where installs before settings.local.json put the guard:
    install and uninstall take an older install out of it, status reports one. None where there is no such file
    apart from the one install writes (a user's settings, Codex)."""
    return project.absolute() / ".claude" / "settings.json" if agent == "claude-code" and project is not None else None


def is_guard_command(command: object) -> bool:
    """Whether a handler's command is one install wrote: exactly `<absolute path>/compaction-inspector guard`
    or `<absolute python> -P -m inspector guard` (or without `-P`, as installs before it wrote), whichever
    interpreter. A user's own line (a bare name from PATH, extra flags, a wrapper) is theirs and is never
    touched."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if len(words) == 2:
        return words[1] == "guard" and os.path.isabs(words[0]) and Path(words[0]).name == SCRIPT
    module = (["-P", "-m", "inspector", "guard"], ["-m", "inspector", "guard"])
    return len(words) in (4, 5) and os.path.isabs(words[0]) and words[1:] in module


def install(agent: str, project: Path | None, *, yes: bool, confirm: Callable[[str], bool], out: TextIO) -> int:
    """Merge the guard into the agent's settings file (opencode: write its plugin): 0 written or already there,
    1 declined, 2 refused."""
    if agent == "opencode":
        return _install_plugin(project, yes=yes, confirm=confirm, out=out)
    path = settings_file(agent, project)
    command = hook_command()
    try:
        if project is not None and not project.is_dir():
            raise SettingsError(f"no project folder {project}")
        seen = _read(path)
        old = seen.data
        document = _parse(old) if old is not None else {}
        if all((event, command) in _installed(document) for event, _ in HOOKS[agent]):
            _say(out, f"The guard is already installed in {path}: {_hooks_named(agent)} {_run(agent)} {command}")
            return _moved_out_of_shared(agent, project, yes=yes, confirm=confirm, out=out)
        new = _with_guard_text(old, document, command, HOOKS[agent])
        backup = backup_file(path)
        # Over an earlier install (one without the PreCompact hook, or from another environment) the backup already
        # holds the file as it was before any guard: uninstall must give that back, not the earlier install's file.
        earlier = bool(_installed(document)) and _read(backup).data is not None
    except SettingsError as error:
        return _refuse(out, path, error)
    if not _approved(path, old, new, yes=yes, confirm=confirm, out=out):
        return EXIT_DECLINED
    try:
        _commit(path, seen, new, backup=None if earlier else old)
    except SettingsError as error:
        return _refuse(out, path, error)
    _say(out, f"Installed the guard in {path}: {_hooks_named(agent)} {_run(agent)} {command}")
    if earlier:
        _say(out, f"The file as it was before the guard's first install is still kept in {backup}")
    elif old is not None:
        _say(out, f"The file as it was is kept in {backup}")
    if agent == "claude-code" and project is not None:
        _say(out, LOCAL_NOTE)
    if agent == "codex":
        project_notes = [CODEX_PROJECT_NOTE] if project is not None else []
        for note in (*CODEX_NOTES, *project_notes, *_codex_switched_off(project)):
            _say(out, note)
    return _moved_out_of_shared(agent, project, yes=yes, confirm=confirm, out=out)


def _hooks_named(agent: str) -> str:
    """The hooks install writes for `agent`, as a line names them: 'SessionStart (compact) and PreCompact (auto and
    manual)'."""
    return " and ".join(f"{event} ({matcher or 'auto and manual'})" for event, matcher in HOOKS[agent])


def _run(agent: str) -> str:
    return "runs" if len(HOOKS[agent]) == 1 else "run"


def _moved_out_of_shared(agent: str, project: Path | None, *, yes: bool, confirm: Callable[[str], bool],
                         out: TextIO) -> int:  # fmt: skip
    """After a project install, an older install in the file the team commits comes out of it (its own diff and
    question): left there, it would run the guard twice, the second time from a path only this machine has."""
    shared = shared_settings_file(agent, project)
    if shared is None or not _holds_guard(shared):
        return EXIT_DONE
    _say(out, f"An older install put the guard in {shared}, the file your team commits; taking it out of there:")
    code = _uninstall_file(shared, yes=yes, confirm=confirm, out=out)
    return EXIT_DONE if code is None else code


def _holds_guard(path: Path) -> bool:
    """Whether a settings file holds a guard install wrote; one that cannot be read holds none here (status and
    the file's own commands say why)."""
    try:
        data = _read(path).data
        return data is not None and bool(_installed(_parse(data)))
    except SettingsError:
        return False


def uninstall(agent: str, project: Path | None, *, yes: bool, confirm: Callable[[str], bool], out: TextIO) -> int:
    """Take the guard out of the agent's settings file, and out of the file a team commits where an older install
    put it (`shared_settings_file`); opencode: remove its plugin. 0 removed or not there, 1 declined, 2 refused."""
    if agent == "opencode":
        return _uninstall_plugin(project, yes=yes, confirm=confirm, out=out)
    path = settings_file(agent, project)
    shared = shared_settings_file(agent, project)
    targets = [path, *([shared] if shared is not None and _holds_guard(shared) else [])]
    codes = [code for target in targets if (code := _uninstall_file(target, yes=yes, confirm=confirm, out=out))
             is not None]  # fmt: skip
    if not codes:
        _say(out, f"The guard is not installed in {path}; nothing to do.")
    return max(codes, default=EXIT_DONE)


def _uninstall_file(path: Path, *, yes: bool, confirm: Callable[[str], bool], out: TextIO) -> int | None:
    """Take the guard out of one settings file: an exit code, or None when the file holds no guard."""
    backup = backup_file(path)
    try:
        seen = _read(path)
        old = seen.data
        document = _parse(old) if old is not None else {}
        installed = _installed(document)
        if not installed:
            return None
        original = _read(backup).data
        restored = old in _what_install_wrote(original, installed[0][1])
        if restored:
            new = original  # None: install created the file
        else:  # edited since: keep the user's edits, take out only ours
            new = _without_guard_text(old, document) if _without_guard(document, prune=True) else None
    except SettingsError as error:
        return _refuse(out, path, error)
    if not _approved(path, old, new, yes=yes, confirm=confirm, out=out):
        return EXIT_DECLINED
    try:
        _commit(path, seen, new, backup=None if restored else old)
    except SettingsError as error:
        return _refuse(out, path, error)
    if restored:
        if original is not None:
            backup.unlink(missing_ok=True)
        _say(out, f"Removed the guard from {path}: the file is back as it was before install.")
    else:
        why = "had been edited since install" if original is not None else \
            "is not as install left it and the data folder holds no backup (installed before backups were kept there)"
        _say(out, f"Removed the guard from {path}; the file {why}, so only the guard was taken out. The file as it "
                  f"was is kept in {backup}")  # fmt: skip
    return EXIT_DONE


def status(out: TextIO, project: Path | None = None) -> int:
    """For each agent and scope (user, and `project` or the current folder), where the guard is installed and
    what it runs. 0, or 2 when a settings file cannot be read (a FIFO, a link, not JSON): its line says why, as
    bad input does everywhere, and the other files are still reported."""
    scopes = (("user", None), ("project", project if project is not None else Path.cwd()))
    _say(out, f"Guard hooks ({EVENT}, source {MATCHER}; for Claude Code also {BEFORE}, before each compaction; for "
              f"opencode a plugin on {OPENCODE_HOOK}):")  # fmt: skip
    unreadable = False
    for agent in AGENTS:
        for scope, folder in scopes:
            path = settings_file(agent, folder)
            try:
                old = _read(path, _depth_of(agent, folder)).data
                if agent == "opencode":
                    state = _plugin_state(old)
                else:
                    state = _state(agent, _installed(_parse(old)) if old is not None else [])
            except SettingsError as error:
                state, unreadable = f"cannot tell: {error}", True
            _say(out, f"  {agent:<12} {scope:<8} {path}: {state}")
            shared = shared_settings_file(agent, folder)
            if shared is not None and _holds_guard(shared):
                _say(out, f"  {agent:<12} {scope:<8} {shared}: an older install, in the file your team commits "
                          f"(guard install or uninstall --project takes it out)")  # fmt: skip
    return EXIT_REFUSED if unreadable else EXIT_DONE


def _state(agent: str, hooks: list[tuple[str, str]]) -> str:
    """What a status line says of a file's guard hooks: each command with the events it runs for, and the hook an
    older install did not write (an install before the PreCompact hook)."""
    if not hooks:
        return "not installed"
    events: dict[str, list[str]] = {}
    for event, command in hooks:
        events.setdefault(command, []).append(event)
    missing = [event for event, _ in HOOKS.get(agent, ()) if not any(event == e for e, _ in hooks)]
    said = "; ".join(_describe(command, found) for command, found in events.items())
    return said + (f" (no {' or '.join(missing)} hook: install again to add it)" if missing else "")


def _describe(command: str, events: list[str]) -> str:
    program = shlex.split(command)[0]
    missing = "" if os.path.exists(program) else f" ({program} no longer exists: install again)"
    return f"installed for {' and '.join(events)}, runs {command}{missing}"


# opencode: a plugin file, wholly the guard's

OPENCODE_HOOK = "experimental.session.compacting"
"""The plugin hook opencode runs before it compacts a session: `(input: {sessionID}, output: {context: string[],
prompt?: string})`, strings pushed onto `output.context` joining the compaction prompt (opencode-ai 1.18.33,
`SessionCompaction.process`; the `Hooks` type of @opencode-ai/plugin)."""
OPENCODE_PLUGIN = "compaction-inspector-guard.js"
"""The plugin's file name. opencode 1.18.33 loads every `{plugin,plugins}/*.{ts,js}` of its config folders: a project's
`.opencode/` and the user's `~/.config/opencode/` (`$XDG_CONFIG_HOME/opencode`)."""
OPENCODE_TEMPLATE = "guard_opencode.js"
"""The plugin as the package ships it: the command it runs is the guard found on PATH."""
_COMMAND_LINE = re.compile(r"^const COMMAND = (\[.*\])$", re.MULTILINE)
OPENCODE_PROJECT_NOTE = ("The plugin runs the compaction-inspector found on PATH, not a path of this machine, so the "
                         "file can be committed: it works for each teammate who has compaction-inspector on PATH, and "
                         "adds nothing for one who has not.")  # fmt: skip


def plugin_file(project: Path | None) -> Path:
    """<project>/.opencode/plugins/compaction-inspector-guard.js, or the user's in $XDG_CONFIG_HOME/opencode/plugins/
    (~/.config/opencode/plugins/): where opencode looks for a project's plugins and the user's."""
    if project is not None:
        return project.absolute() / ".opencode" / "plugins" / OPENCODE_PLUGIN
    config = os.environ.get("XDG_CONFIG_HOME", "").strip()
    root = Path(config).expanduser().absolute() if config else Path.home() / ".config"
    return root / "opencode" / "plugins" / OPENCODE_PLUGIN


def plugin_command(project: Path | None) -> list[str]:
    """What the plugin runs: for a project, `compaction-inspector guard` from PATH, so the file a team commits works on
    every teammate's machine; for the user, this machine's guard (`hook_command`), as the other agents' hooks run it."""
    return [SCRIPT, "guard"] if project is not None else shlex.split(hook_command())


def _depth_of(agent: str, project: Path | None) -> int:
    """Folders of the settings path that are the agent's (`_folder`): a project's `.opencode/plugins` is two."""
    return 2 if agent == "opencode" and project is not None else 1


def plugin_text(command: list[str]) -> bytes:
    """The plugin as install writes it: the package's template running `command`."""
    template = resources.files("inspector").joinpath(OPENCODE_TEMPLATE).read_text(encoding="utf-8")
    return _COMMAND_LINE.sub(lambda _: f"const COMMAND = {json.dumps(command)}", template, count=1).encode("utf-8")


def _plugin_command(data: bytes) -> list[str] | None:
    """The command of a plugin the guard wrote (its first line is the template's, its COMMAND a list of strings);
    None for any other file."""
    head = plugin_text([]).split(b"\n", 1)[0]
    text = data.decode("utf-8", "replace")
    found = _COMMAND_LINE.search(text)
    try:
        command = json.loads(found.group(1)) if data.split(b"\n", 1)[0] == head and found else None
    except ValueError:
        return None
    ok = isinstance(command, list) and bool(command) and all(isinstance(word, str) for word in command)
    return command if ok else None


def _install_plugin(project: Path | None, *, yes: bool, confirm: Callable[[str], bool], out: TextIO) -> int:
    path, depth = plugin_file(project), _depth_of("opencode", project)
    command = plugin_command(project)
    new = plugin_text(command)
    try:
        if project is not None and not project.is_dir():
            raise SettingsError(f"no project folder {project}")
        seen = _read(path, depth)
        old = seen.data
        if old == new:
            _say(out, f"The guard is already installed in {path}: {OPENCODE_HOOK} runs {shlex.join(command)}")
            return EXIT_DONE
        earlier = _plugin_command(old) if old is not None else None
        if old is not None and earlier is None:
            raise SettingsError("a file of that name the guard did not write is there")
    except SettingsError as error:
        return _refuse(out, path, error)
    edited = earlier is not None and old != plugin_text(earlier)  # an earlier plugin the user changed: kept
    if not _approved(path, old, new, yes=yes, confirm=confirm, out=out):
        return EXIT_DECLINED
    try:
        _commit(path, seen, new, backup=old if edited else None, depth=depth)
    except SettingsError as error:
        return _refuse(out, path, error)
    _say(out, f"Installed the guard in {path}: opencode's {OPENCODE_HOOK} runs {shlex.join(command)} before each "
              "compaction and adds the user's standing words it prints to the compaction prompt.")  # fmt: skip
    if edited:
        _say(out, f"The file as it was is kept in {backup_file(path)}")
    if project is not None:
        found = shutil.which(SCRIPT)
        _say(out, OPENCODE_PROJECT_NOTE + (f" Here that is {found}." if found else
                                           f" {SCRIPT} is not on PATH here: install it there for the plugin to run."))
    return EXIT_DONE


def _uninstall_plugin(project: Path | None, *, yes: bool, confirm: Callable[[str], bool], out: TextIO) -> int:
    path, depth = plugin_file(project), _depth_of("opencode", project)
    try:
        seen = _read(path, depth)
        command = _plugin_command(seen.data) if seen.data is not None else None
    except SettingsError as error:
        return _refuse(out, path, error)
    if command is None:
        other = " (the file there is not one the guard wrote: left alone)" if seen.data is not None else ""
        _say(out, f"The guard is not installed in {path}{other}; nothing to do.")
        return EXIT_DONE
    edited = seen.data != plugin_text(command)
    if not _approved(path, seen.data, None, yes=yes, confirm=confirm, out=out):
        return EXIT_DECLINED
    try:
        _commit(path, seen, None, backup=seen.data if edited else None, depth=depth)
    except SettingsError as error:
        return _refuse(out, path, error)
    _remove_empty(path.parent)  # the plugin folder install made; `.opencode` holds opencode's own files
    _say(out, f"Removed the guard from {path}." + (f" The file had been edited since install; as it was, it is kept "
                                                   f"in {backup_file(path)}" if edited else ""))  # fmt: skip
    return EXIT_DONE


def _plugin_state(data: bytes | None) -> str:
    """What a status line says of the plugin file."""
    command = _plugin_command(data) if data is not None else None
    if command is None:
        return "not installed" + (" (a file of that name the guard did not write is there)" if data is not None else "")
    program = command[0]
    if os.path.isabs(program):
        missing = "" if os.path.exists(program) else f" ({program} no longer exists: install again)"
    else:
        missing = "" if shutil.which(program) else f" ({program} is not on PATH here: the plugin adds nothing)"
    older = "" if data == plugin_text(command) else " (not as this version writes it: install again to update it)"
    return f"installed for {OPENCODE_HOOK}, runs {shlex.join(command)}{missing}{older}"


# The settings document


def _handler(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": TIMEOUT}


def _groups(document: dict[str, Any], event: str) -> list[Any] | None:
    """The event's matcher groups, or None when there are none; a shape we cannot merge into is refused."""
    hooks = document.get("hooks")
    if hooks is None:
        return None
    if not isinstance(hooks, dict):
        raise SettingsError('"hooks" is not a JSON object')
    groups = hooks.get(event)
    if groups is None:
        return None
    if not isinstance(groups, list):
        raise SettingsError(f'"hooks.{event}" is not a JSON list')
    return groups


def _is_ours(group: object, handler: object, event: str) -> bool:
    return (
        isinstance(group, dict)
        and group.get("matcher") == MATCHERS[event]
        and isinstance(handler, dict)
        and handler.get("type") == "command"
        and is_guard_command(handler.get("command"))
    )


def _handlers(group: object) -> list[Any]:
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return handlers if isinstance(handlers, list) else []


def _installed(document: dict[str, Any]) -> list[tuple[str, str]]:
    """(event, command) of every guard handler install wrote, in file order within each event."""
    return [(event, h["command"]) for event in MATCHERS for g in _groups(document, event) or [] for h in _handlers(g)
            if _is_ours(g, h, event)]  # fmt: skip


def _without_guard(document: dict[str, Any], *, prune: bool) -> dict[str, Any]:
    """A copy without our handlers, in every event. A group left empty goes; with `prune`, so do an event's list
    and the hooks object when our removal left them empty (install keeps them, so the new group lands in place)."""
    result = copy.deepcopy(document)
    for event in MATCHERS:
        groups = _groups(result, event)
        if not groups:
            continue
        kept = []
        for group in groups:
            handlers = _handlers(group)
            if any(_is_ours(group, h, event) for h in handlers):
                group["hooks"] = [h for h in handlers if not _is_ours(group, h, event)]
                if not group["hooks"]:
                    continue
            kept.append(group)
        emptied = len(kept) < len(groups) and not kept
        groups[:] = kept
        if prune and emptied:
            del result["hooks"][event]
    if prune and "hooks" in result and not result["hooks"] and _installed(document):
        del result["hooks"]
    return result


def _with_guard(document: dict[str, Any], command: str,
                hooks: tuple[tuple[str, str], ...] = HOOKS["claude-code"]) -> dict[str, Any]:  # fmt: skip
    """The document with one guard group appended to each of `hooks`' events, replacing a guard that runs another
    command (an older install from another environment)."""
    result = _without_guard(document, prune=False)
    for event, matcher in hooks:
        result.setdefault("hooks", {}).setdefault(event, []).append({"matcher": matcher, "hooks": [_handler(command)]})
    return result


def _what_install_wrote(original: bytes | None, command: str) -> tuple[bytes, ...]:
    """What install makes of `original` (None: no file) with `command`, and what installs before it made: the
    SessionStart hook alone (as Codex's install still writes), and the whole file as `json.dumps(indent=2)` does;
    such a file, untouched since, is restored from its backup all the same. A backup we cannot parse matches
    nothing."""
    try:
        document = _parse(original) if original is not None else {}
        return tuple(written for hooks in (HOOKS["claude-code"], BEFORE_HOOKS)
                     for written in (_with_guard_text(original, document, command, hooks),
                                     _render(_with_guard(document, command, hooks))))  # fmt: skip
    except SettingsError:
        return ()


# The settings file's text: only the guard's entry changes, every other byte stays as the user wrote it


def _with_guard_text(old: bytes | None, document: dict[str, Any], command: str,
                     hooks: tuple[tuple[str, str], ...] = HOOKS["claude-code"]) -> bytes:  # fmt: skip
    """The file with the guard installed (`_with_guard`), written into its own text: an older guard's entries cut
    out and each new group added after the last of its event, in the indentation and line endings of the entries
    beside it. A new file, or text the splice cannot place (checked by parsing the result), is written whole as the
    agents do."""
    expected = _with_guard(document, command, hooks)
    if old is None:
        return _render(expected)
    try:
        text = _cut_guards(old.decode("utf-8"), prune=False)
        for event, matcher in hooks:
            group = {"matcher": matcher, "hooks": [_handler(command)]}
            current = json.loads(text)
            if "hooks" not in current:
                text = appended(text, [], {event: [group]}, key="hooks")
            elif event not in current["hooks"]:
                text = appended(text, ["hooks"], [group], key=event)
            else:
                text = appended(text, ["hooks", event], group)
        if json.loads(text) == expected:
            return text.encode("utf-8")
    except (ValueError, IndexError, KeyError, TypeError, RecursionError):
        pass
    return _render(expected)


def _without_guard_text(old: bytes, document: dict[str, Any]) -> bytes:
    """The file without the guard (`_without_guard`, pruned), cut out of its own text; rewritten whole only when
    the cut cannot be placed."""
    expected = _without_guard(document, prune=True)
    try:
        text = _cut_guards(old.decode("utf-8"), prune=True)
        if json.loads(text) == expected:
            return text.encode("utf-8")
    except (ValueError, IndexError, KeyError, TypeError, RecursionError):
        pass
    return _render(expected)


def _cut_guards(text: str, *, prune: bool) -> str:
    """`text` without each guard handler, last first (so the places of the others hold), and without a group it
    leaves empty; with `prune`, without an event's list and the hooks object too when they are left empty."""
    cut = False
    for event in MATCHERS:
        cut_here = False
        while ours := [(i, j) for i, g in enumerate(_groups(json.loads(text), event) or [])
                       for j, h in enumerate(_handlers(g)) if _is_ours(g, h, event)]:  # fmt: skip
            i, j = ours[-1]
            alone = len(_handlers(_groups(json.loads(text), event)[i])) == 1  # type: ignore[index]
            text = removed(text, ["hooks", event, i] if alone else ["hooks", event, i, "hooks", j])
            cut = cut_here = True
        if prune and cut_here and not json.loads(text)["hooks"][event]:
            text = removed(text, ["hooks", event])
    if prune and cut and not json.loads(text)["hooks"]:
        text = removed(text, ["hooks"])
    return text


def _parse(data: bytes) -> dict[str, Any]:
    try:
        document = json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys)
    except UnicodeDecodeError:
        raise SettingsError("not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise SettingsError(f"not valid JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except RecursionError:
        raise SettingsError(f"nested more than {MAX_DEPTH} levels deep: not a settings file") from None
    if not isinstance(document, dict):
        raise SettingsError("not a JSON object")
    if _depth(document) > MAX_DEPTH:
        raise SettingsError(f"nested more than {MAX_DEPTH} levels deep: not a settings file")
    return document


def _depth(document: object) -> int:
    """How deep the containers go, counted without recursion (a deep file must not exhaust the stack here)."""
    deepest, todo = 0, [(document, 1)]
    while todo:
        value, level = todo.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            break
        todo.extend((child, level + 1) for child in children)
    return deepest


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


def backup_file(settings: Path) -> Path:
    """Where install keeps `settings` as it was: in the data folder, named after the file's real location. Never
    beside it: a project's folder is not ours to add files to, and a link planted there under the backup's
    name would turn writing the backup into rewriting whatever it leads to."""
    where = settings.parent.parent.resolve() / settings.parent.name / settings.name
    key = hashlib.sha256(os.fsencode(where)).hexdigest()[:16]
    return data_dir() / BACKUPS / f"{settings.parent.name.lstrip('.')}-{settings.name}.{key}.bak"


@dataclass(frozen=True, slots=True)
class _Seen:
    """A file as it was read: its bytes (None: there is none) and its identity, to tell later whether it changed."""

    data: bytes | None
    identity: tuple[int, int, int, int, int] | None = None
    """(device, inode, size, mtime in ns, mode): a rewrite of the same bytes by another program is a change too."""


_NO_FILE = _Seen(None)
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
"""No link followed; a FIFO opens at once instead of waiting for a writer (then refused by its type)."""


def _read(path: Path, depth: int = 1) -> _Seen:
    """The settings file at `path`, read only if it and its folders (`depth` of them, `_folder`) are what they look
    like."""
    folder, _ = _folder(path.parent, create=False, depth=depth)
    if folder is None:
        return _NO_FILE
    try:
        return _read_in(folder, path)
    finally:
        os.close(folder)


def _folder(folder: Path, *, create: bool, depth: int = 1) -> tuple[int | None, int]:
    """A descriptor of the settings file's own folder (`.claude`, `.codex`, the user's), opened without following a
    link, and how many folders this call made (`create`); None when there is none. Everything after goes through
    the descriptor, so the folder cannot be swapped for a link between a check and a write. `depth`: how many of
    the last folders of the path are the agent's and opened so (opencode's `.opencode/plugins` in a project: a
    planted `.opencode` link would lead to the user's own plugins); above them is the user's own path."""
    made, root = 0, folder.parents[depth - 1]
    try:
        if create:
            os.makedirs(root, exist_ok=True)  # above the agent's folders: the user's own path
        current = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None, 0
    except OSError as error:
        raise SettingsError(f"cannot open {root} ({error.strerror or error})") from None
    here = root
    for name in folder.parts[len(folder.parts) - depth:]:
        here = here / name
        try:
            if create:
                try:
                    os.mkdir(name, dir_fd=current)
                    made += 1
                except FileExistsError:
                    pass
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=current)
        except FileNotFoundError:
            return None, 0
        except OSError as error:
            if _is_link(current, name):
                raise SettingsError(f"its folder {here} is {_link(here)}: {_NO_LINKS}") from None
            if error.errno == errno.ENOTDIR:
                raise SettingsError(f"{here} is not a folder") from None
            raise SettingsError(f"cannot open {here} ({error.strerror or error})") from None
        finally:
            os.close(current)
        current = inner
    return current, made


_NO_LINKS = "the guard uses only a regular file in a real folder, never a link (in a repository one can lead to your " \
            "own settings)"  # fmt: skip


def _read_in(folder: int, path: Path) -> _Seen:
    try:
        descriptor = os.open(path.name, _READ_FLAGS, dir_fd=folder)
    except FileNotFoundError:
        return _NO_FILE
    except OSError as error:
        if _is_link(folder, path.name):
            raise SettingsError(f"is {_link(path)}: {_NO_LINKS}") from None
        raise SettingsError(f"cannot read it ({error.strerror or error})") from None
    with os.fdopen(descriptor, "rb") as stream:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            kind = "a folder" if stat.S_ISDIR(status.st_mode) else "a FIFO" if stat.S_ISFIFO(status.st_mode) else \
                "a device or socket"  # fmt: skip
            raise SettingsError(f"is {kind}, not a regular file")
        os.set_blocking(descriptor, True)
        data = stream.read(MAX_SETTINGS + 1)
    if len(data) > MAX_SETTINGS:
        raise SettingsError(f"larger than {MAX_SETTINGS >> 20} MB: not a settings file")
    return _Seen(data, (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_mode))


def _is_link(folder: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _link(path: Path) -> str:
    try:
        return f"a symbolic link to {os.readlink(path)}"
    except OSError:
        return "a symbolic link"


def _commit(path: Path, seen: _Seen, new: bytes | None, *, backup: bytes | None, depth: int = 1) -> None:
    """Replace the settings file with `new` (None: remove it), keeping `backup` first, if the file is still as
    `seen` was: an edit made while the question waited (by the agent, an editor) is neither overwritten nor lost
    from the backup. `depth`: as `_folder`."""
    folder, created = _folder(path.parent, create=new is not None, depth=depth)
    if folder is None:  # no folder now and nothing to write: the file went while the question waited
        raise SettingsError(_CHANGED)
    try:
        if _read_in(folder, path) != seen:
            raise SettingsError(_CHANGED)
        if backup is not None:
            _keep(backup_file(path), backup)
        if new is None:
            os.unlink(path.name, dir_fd=folder)
        else:
            _replace(folder, path.name, new, stat.S_IMODE(seen.identity[4]) if seen.identity else None)
    except OSError as error:
        _remove_empty(path.parent, created)
        raise SettingsError(f"cannot write it ({error.strerror or error})") from None
    except SettingsError:
        _remove_empty(path.parent, created)
        raise
    finally:
        if folder is not None:
            os.close(folder)


_CHANGED = ("it changed while the question waited (another program wrote it): nothing written; run the command "
            "again to see the new diff")


def _remove_empty(folder: Path, made: int = 1) -> None:
    """The folders install made (`made` of them, the last of the path) for a file it then could not write go again
    (declining leaves none either); uninstall takes out the plugin folder it leaves empty."""
    for _ in range(made):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _keep(backup: Path, data: bytes) -> None:
    """The backup in the data folder, written as the settings file is (whole or not at all), readable by the user
    only: settings files carry tokens in `env`."""
    folder, _ = _folder(backup.parent, create=True)
    if folder is None:
        raise SettingsError(f"cannot make {backup.parent}")
    try:
        _replace(folder, backup.name, data, 0o600)
    finally:
        os.close(folder)


def _replace(folder: int, name: str, data: bytes, mode: int | None) -> None:
    """`data` under `name` in `folder`, whole or not at all: a new file in the same folder, synced, renamed over
    (a failed write, `ulimit -f 0` or a full disk, leaves the old file or none, never an empty one). `mode`:
    the old file's permissions (None: a new file's default)."""
    temporary = f".{name}.{secrets.token_hex(6)}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o666 if mode is None else 0o600, dir_fd=folder)  # fmt: skip
    try:
        with os.fdopen(descriptor, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=folder)
        except OSError:
            pass
        raise
    try:
        os.fsync(folder)  # the rename itself survives a crash
    except OSError:
        pass


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
            data = _read(config).data  # a FIFO or a link in a project's .codex/ is skipped, not waited on
            features = tomllib.loads(data.decode("utf-8")).get("features", {}) if data is not None else {}
        except (SettingsError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
            continue
        if not isinstance(features, dict):
            continue
        for key in ("hooks", "codex_hooks"):
            if features.get(key) is False:
                lines.append(f"{config} sets [features] {key} = false: Codex will not run the guard until it is on.")
                break
    return lines


__all__ = ["AGENTS", "HOOKS", "MATCHER", "OPENCODE_HOOK", "backup_file", "hook_command", "install", "is_guard_command",
           "plugin_command", "plugin_file", "plugin_text", "settings_file", "status", "uninstall"]
