"""The command line's edges: the files it writes, the traces it names and the store it opens.

Each is checked before any work is done and fails as `BadInput`: one line naming what is wrong, exit 2
(`inspector.cli`), never a traceback. Nothing here creates a folder: a typo in a folder name should fail
where the user can see it, not scatter files into a new tree.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from inspector.errors import TraceReadError
from inspector.library import content_hash

if TYPE_CHECKING:
    from inspector.store import Store

DB_SETTING = "INSPECTOR_DB_URL"
_HASH = re.compile(r"[0-9a-f]{32}")
"""A trace's content hash as `content_hash` spells it (BLAKE2b, 16 bytes, hex)."""


class BadInput(Exception):
    """Something the user gave cannot be used; the message is the whole line they will read."""


def output_file(value: str) -> Path:
    """`-o`/`--out` as argparse reads it: the folder it goes in must exist, and it must not be a folder."""
    path = Path(value)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{value}: is a folder; give a file name inside it")
    folder = path.parent
    if not folder.exists():
        raise argparse.ArgumentTypeError(f"{value}: the folder {folder} does not exist")
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{value}: {folder} is not a folder")
    return path


def existing_folder(value: str) -> Path:
    """A folder the command reads or writes inside (`guard --project`): it must already be there."""
    path = Path(value)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{value}: no such folder")
    return path


def trace_ref(value: str) -> str:
    """`--trace` wherever it filters a store: a trace file or folder, or the content hash the store keys it by."""
    path = Path(value)
    if path.is_file() or (path.is_dir() and _trace_folder(path)):
        try:
            return content_hash(path)
        except TraceReadError as error:
            raise argparse.ArgumentTypeError(_one_line(error)) from None
    if _HASH.fullmatch(value):
        return value
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{value}: a folder that is no trace, and not a trace's content hash")
    raise argparse.ArgumentTypeError(f"{value}: no such file, and not a trace's content hash")


def _trace_folder(path: Path) -> bool:
    """A folder a reader takes as one session (an OpenHands conversation): any other folder is not hashed, which
    would read every file under it."""
    from inspector.readers import readers

    return any(reader.claims is not None and reader.claims(path) for reader in readers())


def trace_hash(trace: str) -> str:
    """`content_hash` of a trace a command has read, or `BadInput`: one line if the hash cannot read it (a file
    past the bound, a folder's file that cannot be read)."""
    try:
        return content_hash(Path(trace))
    except TraceReadError as error:
        raise BadInput(_one_line(error)) from None


def _one_line(error: TraceReadError) -> str:
    """The message may quote a file's name: spelled, on one line."""
    from inspector.inert import terminal_text

    return terminal_text(str(error).replace("\n", " "))


def write_output(path: Path | None, data: bytes | Iterable[bytes | memoryview]) -> None:
    """To the file (checked by `output_file`) or, without one, to standard output: bytes, or pieces of them written
    one by one as they come (a long report is never joined: `share.html_report_pieces`)."""
    pieces = (data,) if isinstance(data, bytes) else data
    if path is None:
        sys.stdout.flush()  # what was printed before goes first
        under = getattr(sys.stdout, "buffer", None)
        for piece in pieces:
            if under is None:  # a text stream with no bytes under it (`io.StringIO`, as a caller may redirect to)
                sys.stdout.write(bytes(piece).decode())
            else:
                under.write(piece)
        sys.stdout.flush()
        return
    try:
        with path.open("wb") as out:
            for piece in pieces:
                out.write(piece)
    except OSError as error:  # permissions, a full disk: checked paths can still refuse a write
        raise BadInput(f"{path}: cannot write: {error.strerror or error}") from None


def open_store(url: str | None) -> Store:
    """The review store, or `BadInput` naming where its URL came from (never its password)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    from inspector.store import open_store as open_migrated

    given = url or os.environ.get(DB_SETTING, "")
    source = "--db" if url else DB_SETTING
    try:
        kind = make_url(given).drivername if given else "sqlite"
    except ArgumentError:  # unparsable, so its password cannot be hidden: the value is not repeated
        raise BadInput(f"{source}: not a database URL (e.g. postgresql://user@host/db, {_SQLITE_EXAMPLE})") from None
    where = f"{source} {shown_url(given)}" if given else "the default review store"
    try:
        return open_migrated(url)
    except NoSuchModuleError:
        raise BadInput(f"{where}: unknown database kind {kind!r} (e.g. postgresql, sqlite)") from None
    except (SQLAlchemyError, ImportError, OSError) as error:
        raise BadInput(f"{where}: cannot open the review store: {_first_line(error)}") from None


_SQLITE_EXAMPLE = "sqlite:///path/inspector.db"


def shown_url(url: str) -> str:
    """The store's URL with its password hidden, for messages."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _first_line(error: BaseException) -> str:
    """The driver's own words (`orig`) when there are some; SQLAlchemy's wrapper adds a link and the SQL."""
    cause = getattr(error, "orig", None) or error
    text = str(cause).strip() or type(cause).__name__
    return text.splitlines()[0]


__all__ = ["BadInput", "existing_folder", "open_store", "output_file", "shown_url", "trace_hash", "trace_ref",
           "write_output"]
