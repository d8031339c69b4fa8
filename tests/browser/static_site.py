"""A static folder served on 127.0.0.1 (a free port) for the browser tests of the course's web pages.

ES modules and WebAssembly do not load from file:// URLs, so the pages are served as a static host would serve
them. ``with serve(folder) as url:`` gives ``http://127.0.0.1:PORT``; the server stops when the block ends.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript"}

    def log_message(self, *args):  # keep the test output clean
        pass


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve ``folder`` over HTTP on a free local port; yields the base URL (no trailing slash)."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def watch(page, base_url: str) -> dict[str, list[str]]:
    """Block every request that does not go to ``base_url`` and collect what went wrong: ``blocked`` (non-local
    requests), ``failed`` (requests that failed) and ``errors`` (console errors and uncaught exceptions)."""
    found: dict[str, list[str]] = {"blocked": [], "failed": [], "errors": []}

    def route(r):
        if r.request.url.startswith(base_url):
            r.continue_()
        else:
            found["blocked"].append(r.request.url)
            r.abort()

    def failed(r):
        # A local request the browser cancelled because the page moved on (a font still loading when the test opens
        # the next page) is not a fault of the site; anything else is (a refused connection, a file cut short).
        if r.failure == "net::ERR_ABORTED" and r.url.startswith(base_url):
            return
        found["failed"].append(f"{r.url} ({r.failure})")

    page.route("**/*", route)
    page.on("requestfailed", failed)
    page.on("console", lambda m: found["errors"].append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: found["errors"].append(str(e)))
    return found
