"""The guard's log: what it gave back to an agent after each compaction, and the items.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "guard_injection",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("session_id", sa.Text(), nullable=False, index=True),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
    )
    op.create_table(
        "guard_item",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("injection_id", sa.Integer(), sa.ForeignKey("guard_injection.id"), nullable=False, index=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("rule", sa.String(64), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("source_key", sa.Text()),
        sa.Column("said_at", sa.Text()),
        sa.UniqueConstraint("injection_id", "position"),
    )


def downgrade() -> None:
    op.drop_table("guard_item")
    op.drop_table("guard_injection")
