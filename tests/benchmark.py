"""Measure the figures the project reports: entries per page, build time, index sizes, suite time.

    python tests/benchmark.py            # build timings, index sizes, entry counts
    python tests/benchmark.py --suite    # also time one full `pytest` run

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

    if "--suite" in sys.argv[1:]:
        seconds = timed([str(BIN / "pytest"), "-q", "-p", "no:cacheprovider"], env=env)
        print(f"pytest, whole suite: {seconds:.0f} s")


if __name__ == "__main__":
    main()
