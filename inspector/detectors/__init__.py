"""Built-in detectors; importing this package registers them."""

from inspector.detectors import anchors, chain, invariants, items, reader_notices

__all__ = ["anchors", "chain", "invariants", "items", "reader_notices"]
