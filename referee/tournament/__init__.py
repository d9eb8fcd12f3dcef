"""Many games: the config (:mod:`~referee.tournament.config.values` values, read by
:mod:`~referee.tournament.config.loading`), openings, the schedule, the durable results file,
the output folder and its manifest, the bot pool, the runner, and ``vastuz match``."""
