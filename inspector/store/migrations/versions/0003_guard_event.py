"""The guard's log also keeps the list it gave the compactor before a compaction: each run's hook event.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Every run recorded before this revision was one after a compaction: the guard recorded no other.
    with op.batch_alter_table("guard_injection") as table:
        table.add_column(sa.Column("event", sa.String(16), nullable=False, server_default="SessionStart"))


def downgrade() -> None:
    with op.batch_alter_table("guard_injection") as table:
        table.drop_column("event")
