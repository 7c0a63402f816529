"""Measure the figures the project reports: entries per page, build time, index sizes, suite time.

    python tests/benchmark.py            # build timings, index sizes, entry counts
    python tests/benchmark.py --suite    # also time one full `pytest` run
    python tests/benchmark.py --search   # also run tests/search_queries.py in Chromium

Timings are wall-clock on this machine; run it on an idle machine and compare like with like.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from entry_format import ROOT, parse_page  # noqa: E402

BIN = Path(sys.executable).parent


def timed(cmd: list[str], **kwargs) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, **kwargs)
    return time.perf_counter() - start


def search_hit_rate(site: Path) -> None:
    """Type each query into the built site's search box; where does the answering entry rank?"""
    import functools
    import http.server
    import threading

    from playwright.sync_api import sync_playwright
    from search_queries import QUERIES
    from test_site import CHROMIUM, CHROMIUM_FLAGS, QuietHandler

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    ranks: dict[str, list[int | None]] = {"zh": [], "en": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        for lang in ranks:
            page = browser.new_page()  # one page per language: its worker builds the index once
            page.goto(base + ("en/" if lang == "en" else ""))
            page.click("input.md-search__input")
            for query_lang, query, answers in QUERIES:
                if query_lang != lang:
                    continue
                page.fill("input.md-search__input", "")
                page.keyboard.type(query)
                page.keyboard.press("End")  # CJK text typed by Playwright sends no key event; Material waits for one
                time.sleep(1.5)  # let the result list settle after the last keystroke
                links = page.eval_on_selector_all(".md-search-result__item a", "links => links.map(a => a.hash)")
                # Entry links only (page links have no #anchor), in the order shown.
                entries = [link[1:] for link in links if link]
                rank = next((i for i, entry in enumerate(entries, start=1) if entry in answers), None)
                ranks[lang].append(rank)
                if rank != 1:
                    print(f"  {lang} {query!r}: answer at rank {rank}; first results {entries[:3]}")
            page.close()
        browser.close()
    server.shutdown()
    server.server_close()
    for lang, found in ranks.items():
        top1 = sum(r == 1 for r in found)
        top5 = sum(r is not None and r <= 5 for r in found)
        print(f"search {lang}: answer first for {top1}/{len(found)} queries, in the first five for {top5}/{len(found)}")


def main() -> None:
    print("entries per page (zh / en):")
    total = {"zh": 0, "en": 0}
    for zh in sorted((ROOT / "docs" / "zh").glob("*.md")):
        counts = {lang: len(parse_page(ROOT / "docs" / lang / zh.name, lang).entries) for lang in total}
        if counts["zh"] or counts["en"]:
            print(f"  {zh.stem:<16} {counts['zh']:>3} / {counts['en']:>3}")
        for lang in total:
            total[lang] += counts[lang]
    print(f"  {'total':<16} {total['zh']:>3} / {total['en']:>3}")

    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        runs = [timed([str(BIN / "mkdocs"), "build", "--strict", "-q", "-d", str(site)], env=env) for _ in range(3)]
        print(f"mkdocs build --strict, both languages: median {statistics.median(runs):.1f} s over {len(runs)} runs")
        for lang, prefix in (("zh", ""), ("en", "en/")):
            index = site / prefix / "search" / "search_index.json"
            docs = len(json.loads(index.read_text("utf-8"))["docs"])
            print(f"search index {lang}: {index.stat().st_size / 1024:.0f} KiB, {docs} documents")
        if "--search" in sys.argv[1:]:
            search_hit_rate(site)

    if "--suite" in sys.argv[1:]:
        seconds = timed([str(BIN / "pytest"), "-q", "-p", "no:cacheprovider"], env=env)
        print(f"pytest, whole suite: {seconds:.0f} s")


if __name__ == "__main__":
    main()
