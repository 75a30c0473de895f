"""``python -m agents.arena.web``: the web app (same as ``belote-web``)."""

import sys

from agents.arena.web.serve import main

sys.exit(main())
