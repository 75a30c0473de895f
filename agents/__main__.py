"""``python -m agents``: the tournament command (same as ``python -m agents.tournament``)."""

import sys

from agents.tournament import main

sys.exit(main())
