"""Playing agents against each other, on the one play loop over the batched engine (:mod:`agents.loop`, which
training uses too): duplicate matches and round-robins (:mod:`agents.arena.match`), the tournament command
(:mod:`agents.arena.tournament`, ``belote-tournament``), the ladder of shipped agents (:mod:`agents.arena.ladder`,
``belote-ladder``), Bradley-Terry ratings (:mod:`agents.arena.ratings`), reports
(:mod:`agents.arena.reports`), terminal play (:mod:`agents.arena.play`, ``belote-play``) and Ray tasks
(:mod:`agents.arena.ray_tasks`)."""
