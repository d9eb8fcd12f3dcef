"""The served standings page of a run that is going on: it updates itself in place.

The renderer's page (the one ``standings.html`` holds) reloads itself with a
``<meta http-equiv="refresh">`` while the run goes on. The server's copy leaves that out
and loads instead ``/static/standings.js`` (:data:`referee.serve.assets.STANDINGS_JS`),
which long-polls ``GET /api/runs/{run}/stamp?after=STAMP`` and, when the run's results
have changed, fetches the page again and puts its standings section and its games into
the page shown, without a reload (the scroll position, the filters and the replay opened
stay). The page's own Content Security Policy (a ``<meta>`` allowing the renderer's one
script by its hash) is widened by exactly what that needs: the server's own script
(``'self'``) and requests to the server (``connect-src 'self'``).

Done on the renderer's text, by its markers: a page without them (a renderer that
changed) is served as it is, reloading itself as before.
"""

from __future__ import annotations

import re
from html import escape, unescape

SCRIPT = "/static/standings.js"
_REFRESH = re.compile(r'<meta http-equiv="refresh" content="[0-9]+">\n?')
_CSP = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


def _widened(policy: str) -> str:
    """``policy`` allowing also the server's own scripts and requests to the server."""
    directives: dict[str, list[str]] = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            directives[words[0].lower()] = words[1:]
    for name in ("script-src", "connect-src"):
        sources = directives.setdefault(name, [])
        if "'none'" in sources:
            sources.remove("'none'")
        if "'self'" not in sources:
            sources.append("'self'")
    return "; ".join(" ".join([name, *sources]) for name, sources in directives.items())


def following(page: str, run: str, stamp: str) -> str:
    """The renderer's ``page`` of a run going on, updating itself in place instead of
    reloading (see the module); ``stamp`` is the run's stamp when the page was made.
    A page that does not reload itself (the run has ended), or whose head is not as
    expected, is returned as it is."""
    head_end = page.find("</head>")
    if head_end < 0:
        return page
    head, rest = page[:head_end], page[head_end:]
    refresh = _REFRESH.search(head)
    csp = _CSP.search(head)
    if refresh is None or csp is None or 'id="vastuz-data"' not in rest:
        return page
    policy = _widened(unescape(csp.group(1)))
    script = f'<script src="{SCRIPT}" data-run="{escape(run)}" data-stamp="{escape(stamp)}"></script>\n'
    head = (
        head[: csp.start()]
        + f'<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">'
        + head[csp.end() :]
    )
    head = _REFRESH.sub("", head, count=1)
    return head + script + rest
