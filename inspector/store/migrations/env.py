"""Alembic environment: run by `inspector.store.open_store`, with the connection passed in."""

from alembic import context

from inspector.store.schema import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
