"""The site's ranking outside a browser: a V8 context (mini-racer) with MiniSearch and
search-rank.js loaded as the browser loads them. site/package_data.py builds and saves the index
with it; tools/find.py ranks with it. Nothing else of the package is imported here, so an
installed package's `find` needs only mini-racer."""

from __future__ import annotations

from pathlib import Path

SCRIPTS = ("minisearch.js", "search-rank.js")  # in this order: search-rank.js needs MiniSearch


def context(scripts: Path):
    """A new V8 context with the ranking scripts from the folder `scripts` loaded (CheatsheetRank
    is global in it). Close it when done."""
    from py_mini_racer import MiniRacer

    ctx = MiniRacer()
    ctx.eval("var window = this;")  # the scripts' UMD wrappers set their globals on it
    for name in SCRIPTS:
        ctx.eval((Path(scripts) / name).read_text("utf-8"))
    return ctx
