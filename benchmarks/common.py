"""What the benchmark scripts share: the one-line figure format."""

from __future__ import annotations

import statistics


def fmt(label: str, runs: list[float], unit: str) -> str:
    """``label: median unit (min, max, n runs)``: one figure per line."""
    return f"{label}: {statistics.median(runs):,.0f} {unit} (min {min(runs):,.0f}, max {max(runs):,.0f}, {len(runs)} runs)"
