"""The Vastuz arena's referee: rules, games, tournaments, ratings, tools.

The packages are layers, and imports point one way only (down this list's arrows)::

    engine      the rules, pure: positions, turns, notation, score      (no trio, no yaml)
      ^
    protocol    (top-level) framing and messages (no referee import); commands and the
      ^          bot SDK use the engine
    play        one game: the Player interface, BotProcess, the in-memory player,
      ^          faults, clocks, the game loop, GameRecord                      (no yaml)
    ratings     Elo, pentanomial, the SPRT, standings and their rendering: reads
      ^          records only, the only tabulate user                           (no trio)
    render      pictures: a position as SVG, games as a self-contained HTML replay
      ^          (pure: records in, text out)
    tournament  config (values; the YAML loader beside them), openings, schedule,
      ^          results file, output folder and manifest, bot pool, runner, match
    tools       check (the protocol linter), show
      ^
    cli.py      the ``vastuz`` command: argparse, exit codes, one ``trio.run``

``errors.py`` (the :class:`~referee.errors.VastuzError` tree: everything a user can get
wrong) sits beside them and imports nothing of ours. ``tests/test_layers.py`` imports
each layer in a fresh interpreter and fails if it loads what it must not.
"""
