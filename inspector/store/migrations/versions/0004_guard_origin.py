"""The guard's log keeps where each injection came from: the waiting file the store took it in from.

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
    with op.batch_alter_table("guard_injection") as table:
        table.add_column(sa.Column("origin", sa.String(80), nullable=True))
        table.create_unique_constraint("uq_guard_injection_origin", ["origin"])


def downgrade() -> None:
    with op.batch_alter_table("guard_injection") as table:
        table.drop_constraint("uq_guard_injection_origin", type_="unique")
        table.drop_column("origin")
