"""``vastuz serve``: results folders, live games and games against a bot, in the browser.

A trio-native ASGI app (starlette on hypercorn's trio worker, no threads of ours beyond
trio's own worker threads for blocking file reads): :mod:`~referee.serve.app` the routes and
the guards (sizes, clients, token, CSP), :mod:`~referee.serve.runs` the results folders
served, :mod:`~referee.serve.live` the feed of games in progress (an observer of the game
loop), :mod:`~referee.serve.human` a person's game against a configured bot,
:mod:`~referee.serve.pages` the pages of its own, :mod:`~referee.serve.server` the server.
The JSON API is documented in ``docs/api.md``. This layer sits above ``tools`` and below
``cli``: only ``vastuz serve`` and ``vastuz tournament --serve`` import it.
"""
