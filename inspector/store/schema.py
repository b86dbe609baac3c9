"""Tables of the review store: annotations with their revisions, the corrections ledger, and the guard's log.

Every table is append-only by design: an annotation's identity and target never change, an edit is a
new revision, a correction is a new row, and so is each injection the guard made. The current state of
an annotation is its last revision.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class AnnotationRow(Base):
    """What is annotated: a finding, a text span, an invariant or a whole generation of one trace."""

    __tablename__ = "annotation"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    trace_hash: Mapped[str] = mapped_column(String(64), index=True)
    trace_label: Mapped[str] = mapped_column(Text, default="")
    target: Mapped[str] = mapped_column(String(16))
    """finding, span, invariant or generation."""
    finding_id: Mapped[str | None] = mapped_column(String(32), index=True)
    rule: Mapped[str | None] = mapped_column(String(64))
    generation: Mapped[int | None] = mapped_column(Integer)
    start: Mapped[int | None] = mapped_column(Integer)
    end: Mapped[int | None] = mapped_column(Integer)
    quoted_text: Mapped[str | None] = mapped_column(Text)
    """The span's text when annotated, so it can be found again if offsets move."""
    invariant_id: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[str] = mapped_column(String(40))
    created_by: Mapped[str] = mapped_column(Text)


class RevisionRow(Base):
    """One state of an annotation; edits add a row with the next number."""

    __tablename__ = "annotation_revision"
    __table_args__ = (UniqueConstraint("annotation_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    annotation_id: Mapped[str] = mapped_column(ForeignKey("annotation.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    label: Mapped[str] = mapped_column(String(64))
    comment: Mapped[str] = mapped_column(Text, default="")
    reviewer: Mapped[str] = mapped_column(Text)
    created_at: Mapped[str] = mapped_column(String(40))


class CorrectionRow(Base):
    """One correction a source refresh recorded (the corrections ledger)."""

    __tablename__ = "correction"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    recorded_at: Mapped[str] = mapped_column(String(40))
    trace_hash: Mapped[str] = mapped_column(String(64), index=True)
    trace_label: Mapped[str] = mapped_column(Text, default="")
    generation: Mapped[int] = mapped_column(Integer)
    trigger: Mapped[str] = mapped_column(Text)
    requested_by: Mapped[str] = mapped_column(Text)
    type: Mapped[str] = mapped_column(String(16))
    invariant_id: Mapped[str | None] = mapped_column(Text)
    kind: Mapped[str | None] = mapped_column(String(32))
    inherited: Mapped[str | None] = mapped_column(Text)
    source: Mapped[str | None] = mapped_column(Text)
    source_key: Mapped[str | None] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(Text, default="")


class GuardInjectionRow(Base):
    """What the guard printed for one session and summary: to the agent right after its compaction, or to the
    compactor just before it."""

    __tablename__ = "guard_injection"
    __table_args__ = (Index("uq_guard_injection_origin", "origin", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    """Also the order of recording: two injections in the same second keep theirs."""
    session_id: Mapped[str] = mapped_column(Text, index=True)
    """The trace id, not its content hash: the transcript keeps growing after the guard ran."""
    generation: Mapped[int] = mapped_column(Integer)
    content_hash: Mapped[str] = mapped_column(String(64))
    """The transcript as the guard read it, kept for the record."""
    created_at: Mapped[str] = mapped_column(String(40))
    text: Mapped[str] = mapped_column(Text)
    event: Mapped[str] = mapped_column(String(16), server_default="SessionStart")
    """The hook it answered: `SessionStart` (what it gave back after the compaction `generation` wrote) or
    `PreCompact` (the list it gave the compactor before writing it)."""
    origin: Mapped[str | None] = mapped_column(String(80))
    """The waiting file the store took it in from (`inspector.guard_pending`): seen again, it is not recorded twice."""


class GuardItemRow(Base):
    """One thing an injection gave back, in its place in the injection."""

    __tablename__ = "guard_item"
    __table_args__ = (UniqueConstraint("injection_id", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    injection_id: Mapped[int] = mapped_column(ForeignKey("guard_injection.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    rule: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    source_key: Mapped[str | None] = mapped_column(Text)
    said_at: Mapped[str | None] = mapped_column(Text)


__all__ = ["AnnotationRow", "Base", "CorrectionRow", "GuardInjectionRow", "GuardItemRow", "RevisionRow"]
