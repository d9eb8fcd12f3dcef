"""A persistent ladder (CGOS-style): the registered bots play round after round, forever,
over one SQLite store, and a rating list is kept from every game (issue 28).

The pieces, lowest first: :mod:`.config` (the YAML, validated whole, reusing the
tournament's keys for the game settings and the bots), :mod:`.identity` (a bot entry is a
name, its protocol ``name``/``version`` and a fingerprint of its program), :mod:`.store`
(SQLite with WAL, a schema version and migrations; the only writer of a ladder's games),
:mod:`.pairing` (rating plus noise, pure), :mod:`.ratings` (the rating list with the anchor
fixed and provisional marks), and :mod:`.loop` (the trio loop: rounds on a tournament
executor, a stop file and signals). Games are played by the tournament's executors and
recorded as the same JSON records, so ``vastuz report`` and ``vastuz export`` read a
ladder's export.
"""
