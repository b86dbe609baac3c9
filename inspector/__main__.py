"""`python -m inspector` is the `compaction-inspector` command."""

import sys

from inspector.cli import main

sys.exit(main())
