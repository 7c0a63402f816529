"""`python -m cheatsheet bench`: the figures the project reports, measured on this machine.

Always: entries per page, the strict build's time and the search index's sizes. The options add
the test suite (`--suite`, also of an earlier commit or over a grown site), the search benchmark
(`--search`) and a grown site's first search result (`--search-scale`); `options()` documents
them, once, for `python -m cheatsheet bench --help`.

Timings are wall-clock; run on an idle machine and compare like with like.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from cheatsheet.model.langs import LANGS, URL_PREFIX
from cheatsheet.model.pages import site_pages
from cheatsheet.project import repo
from cheatsheet.site.search_index import INDEX, TEXT

PROJECT = repo()

BIN = Path(sys.executable).parent


def timed(cmd: list[str], **kwargs) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=PROJECT.root, check=True, capture_output=True, **kwargs)
    return time.perf_counter() - start


def entry_counts() -> None:
    print(f"entries per page ({' / '.join(LANGS)}):")
    counts = {lang: {p.path.name: len(p.entries) for p in site_pages(PROJECT.docs, lang)} for lang in LANGS}
    first, *others = LANGS
    for name, n in counts[first].items():
        if n or any(counts[lang].get(name) for lang in others):
            print(f"  {name[:-3]:<16} {' / '.join(f'{counts[lang].get(name, 0):>3}' for lang in LANGS)}")
    print(f"  {'total':<16} {' / '.join(f'{sum(counts[lang].values()):>3}' for lang in LANGS)}")


def grown_site(target: Path, scale: float) -> int:
    """A copy of docs/ grown to `scale` times its entries: pages without shell examples copied
    as <page>-copyN with every id suffixed, so the new entries are well formed and unique.
    Returns the number of entries per language."""
    shutil.copytree(PROJECT.docs, target)
    pages = [p for p in site_pages(PROJECT.docs, "zh")
             if p.kind == "topic" and p.entries and not any(f.lang == "bash" for e in p.entries for f in e.examples)]
    total = sum(len(p.entries) for p in site_pages(PROJECT.docs, "zh"))
    goal, copy = total * scale, 0
    while total < goal:
        copy += 1
        for page in pages:
            if total >= goal:
                break
            for lang in LANGS:
                text = (PROJECT.docs / lang / page.path.name).read_text("utf-8")
                text = re.sub(r"\{ #([a-z0-9-]+)", rf"{{ #\1-copy{copy}", text)  # ids and aliases stay unique
                text = re.sub(r'data-aliases="([^"]+)"', lambda m, n=copy: 'data-aliases="{}"'.format(
                    " ".join(f"{a}-copy{n}" for a in m.group(1).split())), text)
                (target / lang / f"{page.path.stem}-copy{copy}.md").write_text(text, "utf-8")
            total += len(page.entries)
    return total


# Kinds of process the suite starts, by a word of their command line; the first match names it.
PROCESS_KINDS = [
    ("Chromium (browser checks)", ("chromium", "chrome")),
    ("Playwright's driver", ("playwright",)),
    ("site builds (mkdocs, cheatsheet offline)", ("mkdocs", "offline")),
    ("example workers and the fork server", ("cheatsheet.run",)),
    ("inner pytest runs", ("pytest",)),
]


def _descendants_cpu(root: int, seen: dict[int, tuple[str, float, str]]) -> None:
    """Add to `seen` (pid -> (kind, CPU seconds, command line)) every process below `root`, read from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    parent, info = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # it ended meanwhile
            continue
        pid = int(stat.parent.name)
        parent[pid] = int(fields[1])
        info[pid] = cmdline, (int(fields[11]) + int(fields[12])) / tick
    for pid, (cmdline, cpu) in info.items():
        up = parent.get(pid)
        while up and up != root:
            up = parent.get(up)
        if up == root:
            if not cmdline and pid in seen:  # exited, not yet reaped: it keeps the kind it had
                seen[pid] = seen[pid][0], cpu, seen[pid][2]
                continue
            kind = next((name for name, words in PROCESS_KINDS if any(w in cmdline for w in words)), "other")
            seen[pid] = kind, cpu, cmdline
        elif pid == root:
            seen[pid] = "the test process", cpu, cmdline


def run_sampled(cmd: list[str], **kwargs) -> tuple[subprocess.CompletedProcess, dict[str, float], list[tuple[float, str]]]:
    """Run `cmd`, reading its processes' CPU time from /proc four times a second; returns the
    finished process, CPU seconds per kind of process (Chromium's renderers too, which
    getrusage misses; a process's last quarter second is not seen) and the commands of the
    kind "other", by CPU seconds."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    seen: dict[int, tuple[str, float, str]] = {}
    done = threading.Event()

    def sample():
        while not done.wait(0.25):
            _descendants_cpu(proc.pid, seen)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    kinds: dict[str, float] = {}
    others: dict[str, float] = {}
    for kind, cpu, cmdline in seen.values():
        kinds[kind] = kinds.get(kind, 0.0) + cpu
        if kind == "other":
            others[cmdline[:100]] = others.get(cmdline[:100], 0.0) + cpu
    return (subprocess.CompletedProcess(cmd, proc.returncode, out, err), kinds,
            sorted(((cpu, cmdline) for cmdline, cpu in others.items()), reverse=True))


def suite(env: dict, scale: float = 1.0) -> float:
    """One run of the README's test command, with its phases; over a grown copy of the site
    when `scale` > 1. Returns its wall time."""
    with tempfile.TemporaryDirectory() as tmp:
        junit, stats = Path(tmp) / "junit.xml", Path(tmp) / "stats.json"
        args, what = [], "whole suite"
        if scale > 1:
            entries = grown_site(Path(tmp) / "docs", scale)
            args = ["tests", str(Path(tmp) / "docs" / "zh"), "--docs", str(Path(tmp) / "docs")]
            what = f"whole suite, site grown to {entries} entries per language"
        start = time.perf_counter()
        proc, cpu, others = run_sampled([str(BIN / "pytest"), "-q", f"--junitxml={junit}", f"--stats-json={stats}",
                                         *args], cwd=PROJECT.root, env=env)
        wall = time.perf_counter() - start
        summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "(no output)"
        total = sum(cpu.values())
        print(f"pytest, {what}: {wall:.1f} s wall, {total:.0f} s CPU, {total / wall:.2f} cores busy on average "
              f"of {os.cpu_count()} ({summary})")
        print("  CPU by kind of process:")
        for kind, seconds in sorted(cpu.items(), key=lambda kv: -kv[1]):
            print(f"    {kind:<40} {seconds:6.1f} s {100 * seconds / total:4.0f} %")
        for seconds, cmdline in others[:5]:
            print(f"      other: {seconds:5.1f} s  {cmdline}")
        phases: dict[str, float] = {}
        for case in ET.parse(junit).getroot().iter("testcase"):
            name = case.get("classname", "")
            group = name.split(".")[1] if name.startswith("tests.") else "pages: checks and waiting for examples"
            phases[group] = phases.get(group, 0.0) + float(case.get("time", 0))
        print("  time in the test process, by group, and its share of the wall time (examples and early")
        print("  fixtures run beside it, in workers and threads; a fixture's wait counts for its first test):")
        for group, seconds in sorted(phases.items(), key=lambda kv: -kv[1]):
            print(f"    {group:<40} {seconds:6.1f} s {100 * seconds / wall:4.0f} %")
        if stats.exists():
            data = json.loads(stats.read_text())
            for kind, figures in data["examples"].items():
                print(f"  examples, {kind}: {figures['count']} run, {figures['seconds']:.1f} s of run time")
            print(f"  examples: first submitted to last finished {data['span']:.1f} s; worker start-up {data['startup']}")
            print("  the slowest examples: " + ", ".join(f"{where} {seconds:.1f} s" for where, seconds in data["slowest"]))
        if proc.returncode != 0:
            print(proc.stdout[-3000:])
    return wall


def against(rev: str, env: dict) -> float:
    """The README's test command of commit `rev`, timed on this machine in this run; its wall time."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), rev], cwd=PROJECT.root, check=True)
        try:
            if (PROJECT.root / "node_modules").is_dir():
                (tree / "node_modules").symlink_to(PROJECT.root / "node_modules")
            subprocess.run([sys.executable, "-m", "venv", str(tree / ".venv")], check=True)
            subprocess.run([str(tree / ".venv/bin/pip"), "install", "-q", "-r", "requirements.txt"], cwd=tree, check=True,
                           capture_output=True)
            start = time.perf_counter()
            proc, cpu, _ = run_sampled([str(tree / ".venv/bin/pytest"), "-q", "-p", "no:cacheprovider"], cwd=tree, env=env)
            wall = time.perf_counter() - start
            summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "(no output)"
            print(f"pytest at {rev}: {wall:.1f} s wall, {sum(cpu.values()):.0f} s CPU ({summary})")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=PROJECT.root, check=False)
    return wall


# bench's options: flag -> add_argument's keywords (the one place they are written).
OPTIONS = {
    "--suite": {"action": "store_true",
                "help": "also time one full `pytest` run: wall time, time per test group, examples run"},
    "--against": {"metavar": "REV", "help": "with --suite: also time the test suite of commit REV, in a worktree "
                                            "with a virtual environment of its own requirements.txt"},
    "--scale": {"type": float, "metavar": "F", "help": "with --suite: also time the suite over a copy of the site "
                                                      "grown to F times its entries (Python-only pages copied under new "
                                                      "ids), e.g. 1.5"},
    "--search": {"action": "store_true", "help": "also type the search benchmark (200 queries), the held-out set (99), "
                                                 "pasted error messages (46), both halves of the blind corpus "
                                                 "(search_blind.tsv; the held-out half's figures only, never its "
                                                 "misses), the further Chinese queries (search_blind_zh_more.tsv) "
                                                 "and each entry's own task words into Chromium"},
    "--write-asked": {"action": "store_true", "help": "only rewrite cheatsheet/site/search_asked.tsv (the tuning queries "
                                                      "and the entries that answer them) from the search benchmark's labels"},
    "--search-scale": {"type": int, "metavar": "N", "help": "build a site grown to N entries per language (in a temporary "
                                                            "folder) and time its first search result in Chromium, e.g. 2000"},
}


def options() -> argparse.ArgumentParser:
    """bench's options (`python -m cheatsheet bench` runs `python -m benchmarks.bench` with them)."""
    parser = argparse.ArgumentParser(prog="python -m cheatsheet bench", description=__doc__.split("\n\n")[0])
    for flag, keywords in OPTIONS.items():
        parser.add_argument(flag, **keywords)
    return parser


def main(args: argparse.Namespace) -> None:
    """Measure what `args` (parsed by `options()`) asks for, and print it."""
    if (args.against or args.scale) and not args.suite:
        raise SystemExit("bench: --against and --scale time the test suite; add --suite")
    if args.write_asked:
        from benchmarks.search_eval import write_asked
        from cheatsheet.site.search_index import ASKED

        write_asked(ASKED)
        print(f"wrote {ASKED.relative_to(PROJECT.root)}")
        return
    entry_counts()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        runs = [timed([str(BIN / "mkdocs"), "build", "--strict", "-d", str(site)], env=env) for _ in range(3)]
        print(f"mkdocs build --strict, both languages: median {statistics.median(runs):.1f} s over {len(runs)} runs")
        for lang, prefix in URL_PREFIX.items():
            docs = len(json.loads((site / prefix / INDEX).read_text("utf-8"))["docs"])
            files = {name: site / prefix / name for name in (INDEX, TEXT)}
            sizes = ", ".join(f"{name} {f.stat().st_size / 1024:.0f} KiB "
                              f"({len(gzip.compress(f.read_bytes())) / 1024:.0f} KiB gzipped)" for name, f in files.items())
            print(f"search index {lang}: {docs} documents; {sizes}")
        if args.search:
            search_hit_rate(site)
    find_first_answer()
    if args.search_scale:
        search_at_scale(args.search_scale, env)
    if args.suite:
        before = against(args.against, env) if args.against else None
        now = suite(env)
        if before:
            print(f"this tree against {args.against}: {now:.1f} s / {before:.1f} s = {now / before:.2f} of its wall time")
        if args.scale:
            suite(env, args.scale)


def find_first_answer(runs: int = 5) -> None:
    """`python -m cheatsheet find` in a new process, from its start to its first answer printed
    (the whole run: it prints its answers at once), with the package's data already written."""
    from cheatsheet.tools.find import data_dir

    data_dir()  # written (or brought up to date) before the clock starts
    for query in ("释放显存", "CUDA out of memory"):
        times = [timed([sys.executable, "-m", "cheatsheet", "find", query, "-n", "3"]) for _ in range(runs)]
        print(f"find {query!r}: first answer in median {statistics.median(times):.2f} s "
              f"(min {min(times):.2f}) over {runs} new processes")


def search_hit_rate(site: Path) -> None:
    """The search benchmark (search_eval.py) on the built site, then self-retrieval: every entry's
    own task words in its language; the entries that do not come up in the first three are listed."""
    from cheatsheet.project import repo
    PROJECT = repo()
    from benchmarks.search_eval import (
        BLIND,
        BLIND_MORE,
        CLASSES,
        FIRST_LABELS,
        HELD_OUT,
        PASTED,
        evaluate,
        load,
        open_search,
        report,
        self_queries,
    )
    from cheatsheet.site.browser import chromium, serve

    with serve(site) as base, chromium() as browser:
        pages = open_search(browser, base)
        print(report(evaluate(pages, load(), typed_every=10)))
        print("held-out set (never tuned on):")
        print(report(evaluate(pages, load(HELD_OUT), typed_every=10)))
        print("pasted error messages:")
        print(report(evaluate(pages, load(PASTED), typed_every=10)))
        for half in ("tuning", "held-out"):
            queries = load(BLIND, half)
            answered = [q for q in queries if q.answered]
            print(f"blind corpus, {half} half ({len(queries)} queries, {len(queries) - len(answered)} with no entry), "
                  f"the queries an entry answers{' (never tuned on)' if half == 'held-out' else ' (in the index: in-sample)'}:")
            scores = evaluate(pages, answered, typed_every=25)
            for name, member in CLASSES.items():
                for lang, s in scores.items():
                    mine = [q for q in answered if q.lang == lang and member(q)]
                    if mine:
                        hits = sum(q not in {m[0] for m in s["misses"]} for q in mine)
                        print(f"  {lang} {name}: hit@3 {hits / len(mine):.2f} ({len(mine)})")
            print(report(scores) if half == "tuning" else "\n".join(line for line in report(scores).splitlines()
                                                                     if not line.startswith("  miss")))
            first = [q for q in load(BLIND, half, labels=FIRST_LABELS) if q.answered]
            print(f"  the same half under the first labelling alone ({len(first)} queries with an answer):")
            print("\n".join(line for line in report(evaluate(pages, first, typed_every=25)).splitlines()
                            if not line.startswith("  miss")))
        further = [q for q in load(BLIND_MORE) if q.answered]
        print(f"further Chinese queries, all for tuning ({len(load(BLIND_MORE))} queries, {len(further)} with an answer; "
              "in the index: in-sample):")
        scores = evaluate(pages, further, typed_every=25)
        for name, member in CLASSES.items():
            mine = [q for q in further if member(q)]
            if mine:
                hits = sum(q not in {m[0] for m in scores["zh"]["misses"]} for q in mine)
                print(f"  zh {name}: hit@3 {hits / len(mine):.2f} ({len(mine)})")
        print(report(scores))
        selfs = evaluate(pages, self_queries(PROJECT.docs), typed_every=10)
        for lang, s in selfs.items():
            found = s["n"] - len(s["misses"])
            print(f"self-retrieval {lang}: {found}/{s['n']} entries in the first three for their own task words")
            for q, results in s["misses"]:
                print(f"  not found {lang} {next(iter(q.answers))}: {q.text!r} -> {results}")


# Timestamps in the page's own clock: the search box gets focus (the index download starts), the
# query is typed, the first result is in the page and painted (two animation frames later).
PAINT_CLOCK = """
window.searchClock = {};
document.addEventListener("focusin", () => { searchClock.focus = searchClock.focus || performance.now(); }, true);
document.addEventListener("input", () => { searchClock.input = searchClock.input || performance.now(); }, true);
new MutationObserver(() => {
  if (!searchClock.shown && document.querySelector(".cheatsheet-search .md-search-result__item")) {
    searchClock.shown = performance.now();
    requestAnimationFrame(() => requestAnimationFrame(() => { searchClock.painted = performance.now(); }));
  }
}).observe(document, { childList: true, subtree: true });
"""


def search_at_scale(entries: int, env: dict) -> None:
    """Grow the site to `entries` per language, build it (not --strict: the copies are not in the
    nav), and time the first search result on a fresh page load, typing at once, per language."""
    from cheatsheet.site.browser import chromium, serve

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copy(PROJECT.root / "mkdocs.yml", root / "mkdocs.yml")
        for name in ("overrides", "snippets", "verification"):
            shutil.copytree(PROJECT.root / name, root / name)
        total = grown_site(root / "docs", entries / sum(len(p.entries) for p in site_pages(PROJECT.docs, "zh")))
        build = timed([str(BIN / "mkdocs"), "build", "-q", "-f", str(root / "mkdocs.yml"), "-d", str(root / "site")],
                      env=dict(env, PYTHONWARNINGS="ignore"))
        print(f"grown site: {total} entries per language, built in {build:.1f} s")
        queries = {"zh": "显存", "en": "memory"}
        with serve(root / "site") as base, chromium() as browser:
            for lang, prefix in URL_PREFIX.items():
                sizes = [(root / "site" / prefix / name).stat().st_size / 2**20 for name in (INDEX, TEXT)]
                page = browser.new_page()
                page.add_init_script(PAINT_CLOCK)
                page.goto(base + prefix)
                page.click("input.md-search__input")  # focusing the box starts the index download
                page.fill("input.md-search__input", queries[lang])
                page.keyboard.press("End")
                page.wait_for_function("window.searchClock.painted", timeout=120_000)
                clock = page.evaluate("window.searchClock")
                # the search files whose download ended before the first result was in the page
                before = page.evaluate("""shown => performance.getEntriesByType("resource")
                    .filter(r => r.name.includes("/search/") && r.responseEnd <= shown)
                    .map(r => new URL(r.name).pathname)""", clock["shown"])
                raw = [(root / "site" / path.lstrip("/")).read_bytes() for path in before]
                page.evaluate("cheatsheetSearch.complete()")
                complete = page.evaluate("performance.now()")
                print(f"  {lang}: index {sizes[0]:.2f} MiB + texts {sizes[1]:.2f} MiB; first result painted "
                      f"{(clock['painted'] - clock['focus']) / 1000:.2f} s after the box got focus "
                      f"({(clock['painted'] - clock['input']) / 1000:.2f} s after the query was typed); fetched for it: "
                      f"{', '.join(p.rsplit('/', 1)[1] for p in before)}, {sum(map(len, raw)) / 1024:.0f} KiB "
                      f"({sum(len(gzip.compress(b)) for b in raw) / 1024:.0f} KiB gzipped); texts indexed and results "
                      f"ranked again {(complete - clock['focus']) / 1000:.2f} s after the focus")
                page.close()


if __name__ == "__main__":
    main(options().parse_args())
