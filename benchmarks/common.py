"""What the benchmark scripts share: the one-line figure format."""

from __future__ import annotations

import statistics


def fmt(label: str, runs: list[float], unit: str) -> str:
    """``label: median unit (min, max, n runs)``: one figure per line."""
    return f"{label}: {statistics.median(runs):,.0f} {unit} (min {min(runs):,.0f}, max {max(runs):,.0f}, {len(runs)} runs)"


def dd_positions(strain: int, seed: int, tricks_left: int = 8):
    """The fixed positions of ``bench_dd.py`` and ``dd_nodes.py`` (coinche rules): ``(warm, positions)``, a
    3-trick position to compile the solver on, then an endless generator of positions with ``tricks_left``
    tricks left (8: full deals at the first lead), all drawn from ``random.Random(f"{seed}:{strain}")``."""
    import random

    from belote_env.search.reference import play_position
    from belote_env.variants import load_variant

    variant = load_variant("coinche")
    rng = random.Random(f"{seed}:{strain}")
    warm = play_position(variant, strain, rng, tricks_left=3)

    def positions():
        while True:
            yield play_position(variant, strain, rng, tricks_left=tricks_left)

    return warm, positions()
