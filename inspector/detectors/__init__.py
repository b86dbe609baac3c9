"""Built-in detectors; importing this package registers them."""

from inspector.detectors import anchors, chain, claims, hidden, invariants, items, pasted, reader_notices

__all__ = ["anchors", "chain", "claims", "hidden", "invariants", "items", "pasted", "reader_notices"]
