"""Could pytest-markdown-docs collect the examples of docs/zh? Figures, matched fence by fence.

    python3 -m venv /tmp/pmd && /tmp/pmd/bin/pip install pytest==8.4.2 markdown-it-py==3.0.0 pytest-markdown-docs
    .venv/bin/python benchmarks/markdown_docs/measure.py /tmp/pmd [--repeat 3] [--no-own]

It copies docs/zh into a temporary folder (no conftest of the project there), counts the fences with the project's
model (cheatsheet.model.pages), collects the copy with the venv's pytest-markdown-docs in five ways (the conftest.py
beside this file, PMD_MODE), matches the items to the model's fences by file and line, counts MarkdownIt.parse calls
per page, and times each collection (best of --repeat) against one collection by the project's own plugin.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from cheatsheet.model.pages import _blank_front_matter, parse_page, site_files  # noqa: E402

ITEM = re.compile(r"^(.+?)::(?:.*?)\[CodeFence#\d+\]\[line:(\d+)\]$")
WAYS = [  # name, PMD_MODE, --markdown-docs-syntax
    ("as it comes", "default", "default"),
    ("superfences syntax", "default", "superfences"),
    ("parser hook", "parser", "superfences"),
    ("parser hook + model filter", "filter", "superfences"),
    ("model as parser + runners", "model", "superfences"),
]


def model(docs):
    """(rel, line) -> (role, info) of every fence; examples; pages."""
    fences, examples, pages = {}, set(), {}
    for path in site_files(docs):
        page = parse_page(path, "zh")
        rel = path.relative_to(docs).as_posix()
        pages[rel] = page
        for f in page.outside:
            fences[rel, f.line] = ("outside", f.lang)
        for e in page.entries:
            for f in e.fences:
                info = f.lang + "".join(f" {o}" for o in sorted(f.options)) + "".join(f" {k}=" for k in f.attrs)
                fences[rel, f.line] = (f.role, info + (" (recipe: the whole file)" if page.kind == "recipe" else ""))
                if f.role == "example":
                    examples.add((rel, f.line))
    return fences, examples, pages


def collect(venv, copy, mode, syntax, repeat, run=False):
    env = dict(os.environ, PMD_MODE=mode, CHEATSHEET_ROOT=str(ROOT), PMD_PARSES=str(copy / ".parses.json"),
               PMD_RUNS=str(copy / ".runs.jsonl"))
    cmd = [str(Path(venv) / "bin" / "python"), "-m", "pytest", "--markdown-docs", f"--markdown-docs-syntax={syntax}",
           "-q", "-p", "no:cacheprovider", str(copy)] + ([] if run else ["--collect-only"])
    best = None
    for _ in range(1 if run else repeat):
        start = time.perf_counter()
        out = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True).stdout
        wall = time.perf_counter() - start
        best = wall if best is None else min(best, wall)
    items = {(m.group(1).replace(f"{copy.name}/", "", 1), int(m.group(2))) for m in map(ITEM.match, out.splitlines()) if m}
    errors = [line.split()[1] for line in out.splitlines() if line.startswith("ERROR ")]
    inside = re.search(r"in ([\d.]+)s", out.splitlines()[-1] if out.strip() else "")
    return items, errors, best, inside.group(1) if inside else "?", json.loads((copy / ".parses.json").read_text())


def parses_per_page(parses, copy):
    per_page = Counter()
    for path in sorted(copy.rglob("*.md")):
        text = path.read_text("utf-8")
        keys = {hashlib.sha1(t.encode()).hexdigest() for t in (text, _blank_front_matter(text))}
        per_page[sum(parses.get(k, 0) for k in keys)] += 1
    return ", ".join(f"{n} page(s) parsed {k} time(s)" for k, n in sorted(per_page.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("venv", help="a virtual environment with pytest-markdown-docs")
    ap.add_argument("--docs", default=str(ROOT / "docs" / "zh"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-own", action="store_true", help="do not time the project's own plugin")
    args = ap.parse_args()
    version = subprocess.run([str(Path(args.venv) / "bin" / "python"), "-c",
                              "import importlib.metadata as m; print(m.version('pytest-markdown-docs'))"],
                             capture_output=True, text=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="pmd-"))
    copy = tmp / "docs"
    shutil.copytree(args.docs, copy)
    shutil.copy(Path(__file__).with_name("conftest.py"), copy / "conftest.py")
    fences, examples, pages = model(copy)
    entries = [e for p in pages.values() for e in p.entries]
    print(f"pytest-markdown-docs {version}; pages: {len(pages)} ({sum(p.kind == 'recipe' for p in pages.values())} recipes)")
    print(f"model: {len(entries)} entries, {len(examples)} example fences:",
          dict(Counter(fences[k][1] for k in examples)))
    print("  other fences:", dict(Counter(f"{role} {info}" for k, (role, info) in fences.items() if k not in examples)))
    for name, mode, syntax in WAYS:
        items, errors, wall, inside, parses = collect(args.venv, copy, mode, syntax, args.repeat)
        missed, extra = examples - items, items - examples
        print(f"\n{name} (PMD_MODE={mode}, --markdown-docs-syntax={syntax}): collected {len(items)},"
              f" {len(items & examples)} of {len(examples)} examples; {wall:.2f} s wall (best of {args.repeat}),"
              f" pytest says {inside} s")
        print("  missed:", len(missed), dict(Counter(fences[k][1] for k in missed)))
        print("  extra: ", len(extra), dict(Counter(" ".join(fences.get(k, ("?", "?"))) for k in extra)))
        if errors:
            print("  collection errors:", len(errors), errors)
        print("  parses:", parses_per_page(parses, copy))
        if mode == "model":
            (copy / ".runs.jsonl").unlink(missing_ok=True)
            collect(args.venv, copy, mode, syntax, 1, run=True)
            runs = [json.loads(line) for line in (copy / ".runs.jsonl").read_text().splitlines()]
            handed = {(Path(r["filename"]).relative_to(copy).as_posix(), r["first_line"]) for r in runs}
            print(f"  run (not collect-only): {len(runs)} fences handed to our runners", dict(Counter(r["kind"] for r in runs)),
                  f"= model's examples less recipes: {handed == {k for k in examples if k[1]}}")
    if not args.no_own:
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "docs/zh"],
                              cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - start
        print(f"\nown plugin (cheatsheet.pytest_plugin) over {ROOT / 'docs/zh'}, once: {wall:.2f} s wall,",
              (proc.stdout.strip().splitlines() or ["no output"])[-1], f"(rc {proc.returncode})")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
