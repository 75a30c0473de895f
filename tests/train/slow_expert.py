"""An expert for the tests of train.py's interruptions: the first legal action, slow once the file named by
``BELOTE_TEST_SLOW`` exists (half a second a step: a recording then lasts long enough to be interrupted)."""

import os
import time
from pathlib import Path

import numpy as np

from agents.base import Agent


class SlowExpert(Agent):
    name = "slow_expert"
    needs_info = False

    def act(self, observation, action_mask, info=None) -> int:
        return int(np.flatnonzero(action_mask)[0])

    def act_batch(self, observations, action_masks, infos):
        slow = Path(os.environ.get("BELOTE_TEST_SLOW", "/nonexistent"))
        if slow.exists():
            (slow.parent / f"recording_{os.getpid()}").touch()
            time.sleep(0.5)
        return [int(np.flatnonzero(m)[0]) for m in action_masks]


def slow_expert():
    return SlowExpert()
