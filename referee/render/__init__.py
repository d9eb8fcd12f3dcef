"""Presentation: SVG boards, a self-contained HTML replay page, the standings in every form.

:mod:`referee.render.svg` draws one position (pure: a position in, SVG text out);
:mod:`referee.render.html` writes one page that replays one game or every game of a
results file in the browser, offline; :mod:`referee.render.standings_html`,
:mod:`referee.render.standings_text` (text, markdown, CSV) and
:mod:`referee.render.standings_json` show the standings :mod:`referee.ratings` computed.
This layer reads positions, game records and standings only: it imports
:mod:`referee.engine`, :mod:`referee.play.records`, :mod:`referee.ratings`, tabulate and the
standard library, and opens no file (its callers write what it returns).
"""
