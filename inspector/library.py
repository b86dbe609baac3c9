"""Where traces come from in the app: bundled samples, a configured folder, uploads.

A trace is named by a short reference that fits in a URL (`sample:anchor_decay.json`,
`path:team/session.jsonl`, `upload:<sha256>/<name>`), so a pasted link reopens the same trace. Paths
are confined to their folder: a reference that escapes it is refused, never followed.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

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

    @classmethod
    def parse(cls, text: str) -> TraceRef:
        kind, sep, name = text.partition(":")
        if not sep or kind not in KINDS or not name:
            raise TraceRefError(f"not a trace reference: {text!r} (expected sample:, path: or upload:)")
        return cls(kind, name)


def data_dir() -> Path:
    """The user's data folder for uploads and the review store (`INSPECTOR_DATA_DIR` overrides)."""
    configured = os.environ.get("INSPECTOR_DATA_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "compaction-inspector"


def traces_dir() -> Path | None:
    configured = os.environ.get("INSPECTOR_TRACES_DIR")
    return Path(configured) if configured else None


def confined(base: Path, relative: str) -> Path:
    """`base / relative`, refusing absolute paths, `..` escapes and symlinks that leave `base`."""
    root = base.resolve()
    if Path(relative).is_absolute():
        raise TraceRefError(f"{relative}: absolute paths are refused; give a path inside {base}")
    target = (root / relative).resolve()
    if not target.is_relative_to(root):
        raise TraceRefError(f"{relative}: refused, it leads outside {base}")
    return target


def resolve(ref: TraceRef, samples: Path) -> Path:
    """The file a reference names; raises `TraceRefError` for anything outside its folder."""
    if ref.kind == "sample":
        return confined(samples, ref.name)
    if ref.kind == "upload":
        return confined(data_dir() / "uploads", ref.name)
    folder = traces_dir()
    if folder is None:
        raise TraceRefError("no traces folder configured: set INSPECTOR_TRACES_DIR")
    return confined(folder, ref.name)


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


def content_hash(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
