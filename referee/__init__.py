"""The Vastuz arena's referee: rules, games, tournaments, ratings, tools.

The packages are layers, and imports point one way only (down this list's arrows)::

    engine      the rules, pure: positions, turns, notation, score      (no trio, no yaml)
      ^
    protocol    (top-level) framing and messages (no referee import); commands and the
      ^          bot SDK use the engine
    play        one game: the Player interface, BotProcess, the in-memory player,
      ^          faults, clocks, the game loop, GameRecord                      (no yaml)
    ratings     Elo, pentanomial, the SPRT, the standings: reads records only, computes,
      ^          renders nothing                                                (no trio)
    render      presentation: a position as SVG, games as a self-contained HTML replay,
      ^          the standings as a page, text, markdown, CSV (the only tabulate user)
                 and JSON (pure: records and standings in, text out)
    tournament  config (values; the YAML loader and validation beside them), openings,
      ^          plans (what to play next: fixed schedules, the SPRT), results file,
                 output folder and manifest, standings pages, bot pool, executors
                 (where games run: here, or a Dask cluster, imported only then), runner, match
      ^
    ladder      ``vastuz ladder``: a persistent ladder over a SQLite store (its config over
      ^          the tournament's keys, bot identity, pairing by rating plus noise, the
                 rating list), its games played by the tournament's executors
    tools       check (the protocol linter), show
      ^
    serve       ``vastuz serve``: the web server (starlette on hypercorn's trio worker), its
      ^          live feed, people's games against bots, its pages (imported only by the
                 commands that serve)
    cli         the ``vastuz`` command: argparse, exit codes, one ``trio.run``; a module
                 per subcommand

``errors.py`` (the :class:`~referee.errors.VastuzError` tree: everything a user can get
wrong) and ``text.py`` (bot-supplied text made safe to print) sit beside them and import
nothing of ours. ``tests/test_layers.py`` imports
each layer in a fresh interpreter and fails if it loads what it must not.
"""
