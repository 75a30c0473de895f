"""The web app: play against the agents, watch them, replay deal records, in a browser (docs/web.md).

``belote-web`` (:mod:`agents.arena.web.serve`) starts it; :mod:`~agents.arena.web.app` is the HTTP interface
(Starlette), :mod:`~agents.arena.web.tables` the live tables and :mod:`~agents.arena.web.records` the records it
may show; ``static/`` holds the page (plain HTML, CSS and JavaScript, no build step, nothing fetched from
elsewhere).
"""
