"""Built-in detectors; importing this package registers them."""

from inspector.detectors import anchors, chain, invariants, reader_notices

__all__ = ["anchors", "chain", "invariants", "reader_notices"]
