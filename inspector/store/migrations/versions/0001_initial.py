"""Annotations with revisions, and the corrections ledger.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "annotation",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("trace_hash", sa.String(64), nullable=False, index=True),
        sa.Column("trace_label", sa.Text(), nullable=False),
        sa.Column("target", sa.String(16), nullable=False),
        sa.Column("finding_id", sa.String(32), index=True),
        sa.Column("rule", sa.String(64)),
        sa.Column("generation", sa.Integer()),
        sa.Column("start", sa.Integer()),
        sa.Column("end", sa.Integer()),
        sa.Column("quoted_text", sa.Text()),
        sa.Column("invariant_id", sa.Text()),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
    )
    op.create_table(
        "annotation_revision",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("annotation_id", sa.String(32), sa.ForeignKey("annotation.id"), nullable=False, index=True),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(64), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("reviewer", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.UniqueConstraint("annotation_id", "number"),
    )
    op.create_table(
        "correction",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("recorded_at", sa.String(40), nullable=False),
        sa.Column("trace_hash", sa.String(64), nullable=False, index=True),
        sa.Column("trace_label", sa.Text(), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("trigger", sa.Text(), nullable=False),
        sa.Column("requested_by", sa.Text(), nullable=False),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("invariant_id", sa.Text()),
        sa.Column("kind", sa.String(32)),
        sa.Column("inherited", sa.Text()),
        sa.Column("source", sa.Text()),
        sa.Column("source_key", sa.Text()),
        sa.Column("reason", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("correction")
    op.drop_table("annotation_revision")
    op.drop_table("annotation")
