"""`python -m inspector` is the `compaction-inspector` command."""

import sys

from inspector.command import main

sys.exit(main())
