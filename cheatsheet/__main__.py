"""One command for every docs chore: `python -m cheatsheet COMMAND`.

    new PAGE ID [--after OTHER]   an entry's stub in both languages
    new-recipe NAME               a recipe's stub (docs/<lang>/recipes/NAME.py) in both languages
    fill PAGE [ID ...]            run the examples and write their output lines (both languages)
    check                         the entry checker over the whole site
    status                        entries whose languages were last changed in different commits
    lint-zh [--fix]               Chinese copywriting (spacing, punctuation)
    record [--prune] [--merge DIR ...]
                                  the verification record: what ran where, and whether it is current
    api-docs [--check]            each entry's main API and its documentation page (verification/api-docs.csv)
    pdf [SITE_DIR]                the printable cheat sheet of a built site (A4 landscape, per language)
    bench [--suite [--against REV] [--scale F]] [--search] [--search-scale N]
                                  build time, index sizes, suite time and phases
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from cheatsheet import display
from cheatsheet.project import repo

PROJECT = repo()


def cmd_new(args) -> int:
    from cheatsheet.tools.scaffold import ScaffoldError, new_entry

    try:
        print("\n".join(new_entry(PROJECT.docs, args.page, args.entry_id, args.after)))
    except ScaffoldError as e:
        print(e, file=sys.stderr)
        return 2
    return 0


def cmd_new_recipe(args) -> int:
    from cheatsheet.tools.scaffold import ScaffoldError, new_recipe

    try:
        print("\n".join(new_recipe(PROJECT.docs, args.name)))
    except ScaffoldError as e:
        print(e, file=sys.stderr)
        return 2
    return 0


def cmd_fill(args) -> int:
    """The tests' own runner, in `--update-output` mode: one code path checks and fills."""
    page = Path(args.page).resolve()
    cmd = [sys.executable, "-m", "pytest", str(page), "--update-output", "-q", "-m", "not checks"]
    for entry_id in args.entry_id:
        cmd += ["--entry", entry_id]
    return subprocess.run(cmd, cwd=PROJECT.root).returncode


def cmd_check(args) -> int:
    from cheatsheet.check.site import check_site
    from cheatsheet.check.torch_api import inspect_names
    from cheatsheet.model.pages import site_pages

    problems = [p for _, p in check_site(PROJECT.docs, PROJECT.snippets, inspect_names)]
    for problem in problems:
        print(problem)
    counts = {lang: sum(len(p.entries) for p in site_pages(PROJECT.docs, lang)) for lang in ("zh", "en")}
    print(f"{counts['zh']} entries in docs/zh, {counts['en']} in docs/en, {len(problems)} problem(s)")
    return 1 if problems else 0


def cmd_status(args) -> int:
    from cheatsheet.tools.status import stale_entries

    report = stale_entries()
    print("\n".join(report))
    print(f"{len(report)} entr{'y' if len(report) == 1 else 'ies'} whose languages were last changed in different commits (advisory)")
    return 0


def cmd_lint_zh(args) -> int:
    from cheatsheet.tools.lint_zh import fix, problems

    if args.fix:
        print("\n".join(fix()) or "nothing to fix")
    found = problems()
    print("\n".join(found) or "no problems")
    return 1 if found else 0


def cmd_record(args) -> int:
    from cheatsheet.model.record import DEVICES, Recorder, check, merge, summary

    record_dir = Path(args.dir)
    if args.merge:
        counts = merge([Path(p) for p in args.merge], record_dir, PROJECT.docs)
        print(f"merged {len(args.merge)} part(s) into {display(record_dir)}: " + ", ".join(f"{n} {d} rows" for d, n in counts.items()))
    if args.prune:
        dropped = Recorder(record_dir, PROJECT.docs, PROJECT.snippets).drop_stale()
        print("\n".join(f"dropped {d}" for d in dropped) or "no stale rows")
    for device, figures in summary(PROJECT.docs, PROJECT.snippets, record_dir).items():
        states = ", ".join(f"{n} {state}" for state, n in sorted(figures["states"].items()))
        sources = f"; torch {', '.join(figures['torch'])}; {'; '.join(figures['devices'])}; {', '.join(figures['dates'])}" if figures["torch"] else ""
        print(f"{device}: {figures['entries']} entries: {states}{sources}")
    problems = check(PROJECT.docs, PROJECT.snippets, record_dir)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s) in the record" + ("" if problems else f" (every row current; devices: {', '.join(DEVICES)})"))
    return 1 if problems else 0


def cmd_bench(args) -> int:
    from benchmarks.bench import main

    main(sys.argv[2:])
    return 0


def cmd_api_docs(args) -> int:
    from cheatsheet.tools.api_docs import dump, table

    path = PROJECT.api_docs
    fresh = dump(table(PROJECT.docs))
    if args.check:
        if not path.is_file() or path.read_text("utf-8") != fresh:
            print(f"{display(path)} is not what the installed torch resolves. Run: python -m cheatsheet api-docs", file=sys.stderr)
            return 1
        return 0
    path.write_text(fresh, "utf-8")
    print(f"{display(path)}: {fresh.count(chr(10)) - 1} entries linked to their documentation")
    return 0


def cmd_pdf(args) -> int:
    from cheatsheet.site.pdf import build_pdfs

    for path in build_pdfs(Path(args.site_dir)):
        print(display(path))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cheatsheet", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("new", help="an entry's stub in both languages")
    p.add_argument("page", help="page name without .md, e.g. gpu-memory")
    p.add_argument("entry_id", help="lowercase-kebab-case English id, e.g. cuda-empty-cache")
    p.add_argument("--after", help="id of the entry the new one follows (default: end of page)")
    p.set_defaults(run=cmd_new)
    p = sub.add_parser("new-recipe", help="a recipe's stub in both languages")
    p.add_argument("name", help="lowercase-kebab-case file name without .py, e.g. training-run")
    p.set_defaults(run=cmd_new_recipe)
    p = sub.add_parser("fill", help="write what the examples print into their output lines")
    p.add_argument("page", help="a page under docs/zh, e.g. docs/zh/gpu-memory.md")
    p.add_argument("entry_id", nargs="*", help="only these entries (default: every entry on the page)")
    p.set_defaults(run=cmd_fill)
    sub.add_parser("check", help="the entry checker over the whole site").set_defaults(run=cmd_check)
    sub.add_parser("status", help="entries whose languages changed in different commits").set_defaults(run=cmd_status)
    p = sub.add_parser("lint-zh", help="Chinese copywriting lint")
    p.add_argument("--fix", action="store_true", help="rewrite the pages in place")
    p.set_defaults(run=cmd_lint_zh)
    p = sub.add_parser("record", help="the verification record: summary and check")
    p.add_argument("--dir", default=str(PROJECT.record), help="the record's folder (default: verification/)")
    p.add_argument("--prune", action="store_true", help="drop rows whose entry changed since they were written")
    p.add_argument("--merge", nargs="+", metavar="DIR", help="fold record parts (folders with cpu.csv / cuda.csv) into --dir")
    p.set_defaults(run=cmd_record)
    p = sub.add_parser("api-docs", help="each entry's main API and its documentation page")
    p.add_argument("--check", action="store_true", help="fail if the committed file is out of date")
    p.set_defaults(run=cmd_api_docs)
    p = sub.add_parser("pdf", help="the printable cheat sheet of a built site, one PDF per language")
    p.add_argument("site_dir", nargs="?", default=str(PROJECT.root / "site"))
    p.set_defaults(run=cmd_pdf)
    p = sub.add_parser("bench", help="build time, index sizes; --suite: the test suite; --search: search ranks")
    p.add_argument("--suite", action="store_true", help="time one run of the test suite, with its phases")
    p.add_argument("--against", metavar="REV", help="with --suite: time the test suite of an earlier commit too")
    p.add_argument("--scale", type=float, metavar="F", help="with --suite: also over a copy of the site grown to F times its entries")
    p.add_argument("--search", action="store_true", help="type the search queries into Chromium")
    p.add_argument("--search-scale", type=int, metavar="N", help="build a site grown to N entries per language and time its first search result")
    p.set_defaults(run=cmd_bench)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
