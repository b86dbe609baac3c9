"""The guard's log keeps where each injection came from: the waiting file the store took it in from.

A column and a unique index, not a unique constraint: on SQLite a constraint means copying the table, and dropping
the old `guard_injection` under its items' foreign keys fails on every store that has any.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Injections recorded before this revision were written by the guard itself: they came from no file.
    op.add_column("guard_injection", sa.Column("origin", sa.String(80), nullable=True))
    op.create_index("uq_guard_injection_origin", "guard_injection", ["origin"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_guard_injection_origin", table_name="guard_injection")
    with op.batch_alter_table("guard_injection") as table:
        table.drop_column("origin")
