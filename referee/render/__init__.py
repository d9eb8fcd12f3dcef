"""Pictures of games: SVG boards and a self-contained HTML replay page.

:mod:`referee.render.svg` draws one position (pure: a position in, SVG text out);
:mod:`referee.render.html` writes one page that replays one game or every game of a
results file in the browser, offline. This layer reads positions and game records only:
it imports :mod:`referee.engine`, :mod:`referee.play.records` and the standard library,
and opens no file (its callers write what it returns).
"""
