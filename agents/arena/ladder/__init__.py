"""The ladder: ``python -m agents.arena.ladder --docs`` or ``belote-ladder --docs`` writes ``docs/results.md``.

For every family (``belote_classique``, ``coinche``, ``contree``,
``cobrecaf_81``) a round-robin of duplicate matches (:mod:`agents.arena.match`)
between ``random``, ``heuristic``, ``pimc`` and every shipped trained agent
of that family (the variant its weights file records,
:func:`agents.pretrained.pretrained_variant`), 2,000 duplicate pairs per
match by default; then Bradley-Terry ratings with bootstrap intervals
(:mod:`agents.arena.ratings`), the per-family reports of the tournament command
(:func:`agents.arena.reports.write_reports`: Markdown, CSV, JSON, plot) and one
generated page, ``docs/results.md``, with every family's tables and plot and
a summary of each agent's rating per family.

Resumable: every chunk of 128 pairs (the unit of :func:`agents.arena.match.play_pairs`,
so any split of a match gives the same pairs) is saved, as soon as it is
played, in ``<cache>/<family>/<A>__<B>.json`` (default cache
``docs/results/ladder``) with the per-pair outcomes the bootstrap needs, the
seed, the range of pairs and the agent specs (and the SHA-256 of a trained
agent's weights: new weights replay the match). A rerun plays only what is
missing; ``--max-minutes M`` starts no new chunk after M minutes, so the
ladder can be played in pieces (exit status 3 while pairs are left);
``--dry-run`` lists what is played and what is left. The reports are written
once every match of the run is complete, and the page too when ``--docs`` asks
for it.

The package: :mod:`~agents.arena.ladder.lineup` (who plays), :mod:`~agents.arena.ladder.cache` (the match
cache), :mod:`~agents.arena.ladder.schedule` (playing the missing chunks), :mod:`~agents.arena.ladder.page`
(docs/results.md) and :mod:`~agents.arena.ladder.command` (the command line).
"""

from agents.arena.ladder.command import main

__all__ = ["main"]
