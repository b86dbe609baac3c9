"""Where traces come from in the app: bundled samples, a configured folder, uploads.

A trace is named by a short reference that fits in a URL (`sample:anchor_decay.json`,
`path:team/session.jsonl`, `upload:<sha256>/<name>`), so a pasted link reopens the same trace. Paths
are confined to their folder: a reference that escapes it is refused, never followed. An upload comes from
anyone who reaches the app, so what is read from it has bounds of its own (`upload_limits`).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, fields, replace
from pathlib import Path

from inspector.bounded_io import (
    MAX_FOLDER_FILES,
    MB,
    ReadLimits,
    is_sqlite,
    megabytes_setting,
    raw_chunks,
    read_limits,
    settings_limits,
)
from inspector.data_folder import data_dir
from inspector.errors import TraceReadError
from inspector.inert import markdown_text, terminal_text
from inspector.model import Trace
from inspector.text import clip

KINDS = ("sample", "path", "upload")
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class TraceRefError(ValueError):
    """A reference that is malformed, refers outside its folder, or names nothing."""


@dataclass(frozen=True, slots=True)
class TraceRef:
    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"

    @property
    def shown(self) -> str:
        """How errors name the file: its name in its folder, never where the server keeps it."""
        return self.name.split("/", 1)[1] if self.kind == "upload" and "/" in self.name else self.name

    @classmethod
    def parse(cls, text: str) -> TraceRef:
        kind, sep, name = text.partition(":")
        if not sep or kind not in KINDS or not name:
            raise TraceRefError(f"not a trace reference: {_shown(text)!r} (expected sample:, path: or upload:)")
        return cls(kind, name)


def traces_dir() -> Path | None:
    configured = os.environ.get("INSPECTOR_TRACES_DIR")
    return Path(configured) if configured else None


REAL_SESSIONS = Path(__file__).resolve().parents[2] / "shared" / "real_traces" / "labelled"
"""Real sessions beside a clone (`../shared/real_traces/labelled/`), whose findings a reader checked against the
log: the guided story quotes one when it is there. A fresh clone or an installed package has none."""


def real_sessions() -> list[Path]:
    """The labelled real sessions at hand, by name; none when `../shared` is absent."""
    return sorted(REAL_SESSIONS.glob("*.jsonl")) if REAL_SESSIONS.is_dir() else []


def confined(base: Path, relative: str, folder: str = "its folder") -> Path:
    """`base / relative`, refusing absolute paths, `..` escapes and symlinks that leave `base`.

    A refusal names the path as it was given and `base` as `folder`, in words: whoever typed the path or sent the
    link may be anyone who reaches the app, and where the server keeps its files is none of their business."""
    if Path(relative).is_absolute():
        raise TraceRefError(f"{_shown(relative)}: absolute paths are refused; give a path inside {folder}")
    try:
        root = base.resolve()
        target = (root / relative).resolve()
    except (OSError, ValueError, RuntimeError) as error:  # a NUL, a name too long, a symlink loop (which names it)
        reason = inside_folder(_reason(error), base, folder)
        raise TraceRefError(f"{_shown(relative)}: not a usable path ({reason})") from None
    if not target.is_relative_to(root):
        raise TraceRefError(f"{_shown(relative)}: refused, it leads outside {folder}")
    return target


def _folder(ref: TraceRef, samples: Path) -> tuple[Path, str]:
    """The folder a reference's name is inside, and how messages name that folder."""
    if ref.kind == "sample":
        return samples, "the samples folder"
    if ref.kind == "upload":
        return data_dir() / "uploads", "the uploads folder"
    folder = traces_dir()
    if folder is None:
        raise TraceRefError("no traces folder configured: set INSPECTOR_TRACES_DIR")
    return folder, "the traces folder"


def resolve(ref: TraceRef, samples: Path) -> Path:
    """The file a reference names; raises `TraceRefError` for anything outside its folder."""
    folder, words = _folder(ref, samples)
    return confined(folder, ref.name, words)


def as_given(text: str, ref: TraceRef, path: Path, samples: Path) -> str:
    """`text`, a message about reading `path` for `ref`, naming files as the user gave them: `path` by the name they
    gave (the upload's, or as typed inside the traces folder), any other file of that folder by its path inside it,
    never by where the server keeps it. The reader was handed `path` and writes it as it was handed."""
    folder, words = _folder(ref, samples)
    if ref.kind == "upload":
        folder = path.parent  # an upload's own folder, named by its content hash
    return inside_folder(text.replace(str(path), ref.shown), folder, words)


def trace_as_given(trace: Trace, ref: TraceRef, path: Path, samples: Path) -> Trace:
    """The trace with its path and the reader's notices (a skipped line, a torn last line) naming files as the user
    gave them (`as_given`): what the app shows of it, the shared report included, carries no server folder."""
    notices = tuple(replace(n, message=as_given(n.message, ref, path, samples)) for n in trace.notices)
    return replace(trace, path=ref.shown, notices=notices)


def inside_folder(text: str, base: Path, words: str) -> str:
    """`text` with `base`'s absolute path taken out: what is inside it named by its path there, itself by `words`.
    For a message shown to whoever reaches the app, about a file in one of the server's folders."""
    for spelled in dict.fromkeys((str(base.resolve()), str(base.absolute()))):
        text = text.replace(spelled + os.sep, "").replace(spelled, words)
    return text


def trace_file(ref: TraceRef, samples: Path) -> tuple[Path, os.stat_result]:
    """The regular file a reference names, with its status; `TraceRefError` (one line) for anything else.

    A folder, a FIFO (which would block whoever opens it) or a path the system refuses is named as
    such here, so a page shows one line instead of the exception.
    """
    path = resolve(ref, samples)
    try:
        status = path.stat()
    except FileNotFoundError:
        raise TraceRefError(f"{_shown(str(ref))}: no such trace") from None
    except (OSError, ValueError) as error:
        raise TraceRefError(f"{_shown(str(ref))}: cannot open ({_reason(error)})") from None
    if stat.S_ISDIR(status.st_mode):
        raise TraceRefError(f"{_shown(str(ref))}: is a folder, not a trace file")
    if not stat.S_ISREG(status.st_mode):
        raise TraceRefError(f"{_shown(str(ref))}: not a regular file (a FIFO, device or socket)")
    return path, status


def _shown(name: str) -> str:
    """A user-typed or linked name inside a one-line error: clipped, controls (a NUL, a newline) spelled."""
    return terminal_text(clip(name, 160))


def _reason(error: BaseException) -> str:
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


def ref_for(path: Path, samples: Path) -> TraceRef | None:
    """The reference that opens a file in the app: a sample, or a path under the traces folder.

    None for a file elsewhere: the app opens only what these folders hold, so a scan row outside
    them can be listed but not opened.
    """
    target = path.resolve()
    for kind, base in (("sample", samples), ("path", traces_dir())):
        if base is not None and target.is_relative_to(base.resolve()):
            return TraceRef(kind, target.relative_to(base.resolve()).as_posix())
    return None


def list_samples(samples: Path) -> list[str]:
    return sorted(p.name for p in samples.iterdir() if p.suffix in (".json", ".jsonl") and p.is_file())


def sample_index(ref_text: str | None, samples: list[str]) -> int:
    """Where the sample picker starts: on the open trace when it is one of `samples` (a pasted
    `?trace=sample:NAME` link), else on the first."""
    kind, _, name = (ref_text or "").partition(":")
    return samples.index(name) if kind == "sample" and name in samples else 0


UPLOAD_LINE_SETTING, UPLOAD_FILE_SETTING = "INSPECTOR_UPLOAD_MAX_LINE_MB", "INSPECTOR_UPLOAD_MAX_FILE_MB"
UPLOAD_LINE_MB = 16
"""One record of an upload. A line is held whole while it is parsed, so this is what one line may cost the server
(a few times it); 16 MB is 80 times the longest line in the real sessions we hold (200 KB) and room for an
inlined screenshot, where the trusted 64 MB would let one upload's line take a fifth of a small server."""
UPLOAD_FILE_MB = 1024
"""Decompressed bytes of an upload or of any one file in it (a zip member, a database): what the server accepts as
sent (`server.maxUploadSize`), so compressing a file is no way past the upload limit; the trusted 4 GB is four."""


def upload_limits() -> ReadLimits:
    """The bounds on everything read from an upload: the trusted bounds, lowered by the upload settings and by the
    app's memory budget, so one upload can neither take the server nor, analysed, need more than the budget.

    An upload's analysis holds about `TRACE_OVERHEAD` bytes per byte read, so a file is refused past the budget's
    share of that. Every other bound of `ReadLimits` (a database's per-value or per-row bound) keeps its trusted
    value but is never larger than what the whole upload may hold."""
    from inspector.sized_cache import BUDGET_SETTING, TRACE_OVERHEAD, default_budget  # the app's; not the CLI's

    trusted = settings_limits()
    line = min((trusted.max_line_bytes, trusted.line_bound),
               (megabytes_setting(UPLOAD_LINE_SETTING, UPLOAD_LINE_MB * MB),
                f"the per-line limit for uploads ({UPLOAD_LINE_SETTING})"))  # fmt: skip
    whole = min((trusted.max_file_bytes, trusted.file_bound),
                (megabytes_setting(UPLOAD_FILE_SETTING, UPLOAD_FILE_MB * MB),
                 f"the per-file limit for uploads ({UPLOAD_FILE_SETTING})"),
                (default_budget() // TRACE_OVERHEAD,
                 f"the largest upload the app's memory budget can analyse ({BUDGET_SETTING})"))  # fmt: skip
    bounds = replace(trusted, max_line_bytes=line[0], line_bound=line[1], max_file_bytes=whole[0], file_bound=whole[1])
    others = {f.name: min(getattr(bounds, f.name), whole[0]) for f in fields(ReadLimits) if f.name.startswith("max_")}
    return replace(bounds, **others)


def limits_for(ref: TraceRef) -> ReadLimits:
    """The bounds of what is read for `ref`: an upload's own, else those the settings give the server's folders."""
    return upload_limits() if ref.kind == "upload" else read_limits()


def upload_label() -> str:
    """The upload box's label, naming every registered format: built from the registry, so a reader added
    later is named the day it is registered (a hand-written label named three of eleven)."""
    from inspector.readers import readers  # here: the CLI imports this module, and `rules` must not load the readers

    names = [reader.name for reader in readers()]
    return f"Trace file: {', '.join(names[:-1])} or {names[-1]} (.zst compressed too)"


def upload_help() -> str:
    """The label's tooltip: what each format is, in the registry's words (Markdown-escaped)."""
    from inspector.readers import readers

    return "\n".join(f"- {markdown_text(reader.name)}: {markdown_text(reader.description)}" for reader in readers())


def store_upload(data: bytes, filename: str) -> TraceRef:
    """Keep an uploaded trace under its content hash, so its link works after a restart."""
    digest = hashlib.sha256(data).hexdigest()
    name = _SAFE_NAME.sub("_", Path(filename).name).strip("._") or "trace"
    folder = data_dir() / "uploads" / digest
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    if not target.exists():
        target.write_bytes(data)
    return TraceRef("upload", f"{digest}/{name}")


_FOLDER_HASH = b"compaction-inspector folder trace\0"
"""Starts a folder's hash input, so no file's bytes can hash to the same key as a folder."""


def content_hash(path: Path) -> str:
    """The key the review store files a trace under: BLAKE2b (16 bytes, hex) of its bytes, so the same session under
    any name finds its annotations and corrections again. A folder trace (an OpenHands conversation) is hashed over
    its regular files. Read within the per-file bound; `TraceReadError` past it."""
    try:
        folder = stat.S_ISDIR(path.stat().st_mode)
    except (OSError, ValueError):
        folder = False  # the read below names what is wrong
    if folder:
        return _folder_hash(path)
    digest = hashlib.blake2b(digest_size=16)
    for chunk in raw_chunks(path):
        digest.update(chunk)
    if not is_sqlite(path):
        return digest.hexdigest()
    from inspector.bounded_sqlite import write_ahead_log  # SQLite's module (14 ms to import): a database's hash only

    log = write_ahead_log(path)
    if log.is_file():  # its committed rows are the database's too: another log, another trace
        digest.update(_WITH_LOG)
        for chunk in raw_chunks(log):
            digest.update(chunk)
    return digest.hexdigest()


_WITH_LOG = b"\0compaction-inspector: the write-ahead log follows\0"
"""Between a database's bytes and its log's in its hash, so no file's bytes alone hash as a database with a log."""


def _folder_hash(folder: Path) -> str:
    """Each regular file's name inside the folder and the BLAKE2b of its bytes, in the order of the names: a copy of
    the folder anywhere has the same key, a changed, added or renamed file another. Links are not followed and FIFOs
    never opened (the readers read neither, so neither is part of the trace); each file is read within the per-file
    bound, as a reader reads it."""
    digest = hashlib.blake2b(_FOLDER_HASH, digest_size=16)
    for name, file in _regular_files(folder):
        inner = hashlib.blake2b(digest_size=16)
        for chunk in raw_chunks(file, follow_links=False):
            inner.update(chunk)
        digest.update(len(name).to_bytes(8, "big") + name + inner.digest())
    return digest.hexdigest()


def _regular_files(folder: Path) -> list[tuple[bytes, Path]]:
    """(name relative to the folder, as bytes with `/` between parts; path) of every regular file under it, sorted by
    name. Walked with a stack, not recursion (a hostile folder may nest deeper than Python's stack), and refused
    past `MAX_FOLDER_FILES` entries."""
    found: list[tuple[bytes, Path]] = []
    pending: list[tuple[bytes, Path]] = [(b"", folder)]
    seen = 0
    while pending:
        prefix, current = pending.pop()
        try:
            with os.scandir(current) as entries:
                for entry in entries:
                    seen += 1
                    if seen > MAX_FOLDER_FILES:
                        raise TraceReadError(str(folder), f"holds more than {MAX_FOLDER_FILES:,} files and folders")
                    name = prefix + os.fsencode(entry.name)
                    if entry.is_symlink():
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        pending.append((name + b"/", Path(entry.path)))
                    elif entry.is_file(follow_symlinks=False):
                        found.append((name, Path(entry.path)))
        except OSError as exc:
            raise TraceReadError(str(current), f"cannot list: {exc.strerror or exc}") from None
    return sorted(found)


__all__ = ["REAL_SESSIONS", "UPLOAD_FILE_SETTING", "UPLOAD_LINE_SETTING", "TraceRef", "TraceRefError", "as_given",
           "confined", "real_sessions",
           "content_hash", "data_dir", "inside_folder", "limits_for", "list_samples", "ref_for", "resolve",
           "sample_index", "store_upload", "trace_as_given", "trace_file", "traces_dir", "upload_help",
           "upload_label", "upload_limits"]  # fmt: skip
