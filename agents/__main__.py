"""``python -m agents``: the tournament command (same as ``python -m agents.arena.tournament``)."""

import sys

from agents.arena.tournament import main

sys.exit(main())
