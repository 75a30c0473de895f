"""``python -m agents.arena.ladder``."""

import sys

from agents.arena.ladder.command import main

sys.exit(main())
