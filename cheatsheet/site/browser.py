"""A built site served on localhost and a Chromium driven by Playwright, for the browser tests,
the PDF and the search benchmark. The browser is found, not assumed (`find_chromium`)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

# Where to look, in order: this variable; Playwright's own Chromium (`playwright install
# chromium`); the system's (Debian's `chromium`, or Chrome).
CHROMIUM_VARIABLE = "CHEATSHEET_CHROMIUM"
SYSTEM_CHROMIUM = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
HOW_TO_INSTALL = (f"set {CHROMIUM_VARIABLE} to a Chromium or Chrome executable, or install one: "
                  "`playwright install chromium` (Linux, macOS), or `apt-get install -y chromium` (Debian)")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


@functools.cache
def find_chromium() -> Path | None:
    """The Chromium to drive, or None when there is none (HOW_TO_INSTALL says how to get one)."""
    named = os.environ.get(CHROMIUM_VARIABLE)
    if named:
        return Path(named) if Path(named).is_file() else None
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            own = Path(p.chromium.executable_path)
        if own.is_file():
            return own
    except Exception:  # Playwright absent, or its driver cannot start: look on the system
        pass
    found = next((shutil.which(name) for name in SYSTEM_CHROMIUM if shutil.which(name)), None)
    return Path(found) if found else None


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Answers a missing path as GitHub Pages does: status 404 with the site's root 404.html."""

    def log_message(self, *args):
        pass

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@contextlib.contextmanager
def serve(site: Path, port: int = 0):
    """Serve `site` on 127.0.0.1; yields the base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(QuietHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def chromium():
    from playwright.sync_api import sync_playwright

    executable = find_chromium()  # before Playwright starts here: finding it may start Playwright too
    if executable is None:
        raise RuntimeError(f"no Chromium found: {HOW_TO_INSTALL}")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(executable), args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()
