"""One command for every docs chore: `python -m cheatsheet COMMAND`; `COMMAND --help` tells more.

Each command below is a `cmd_*` function registered with `@command`: the first line of its
docstring is its one-line help, the docstring its description, and its arguments are declared next
to it. The parser is built from them once (`parser()`), so the list of commands cannot drift.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from cheatsheet import display
from cheatsheet.model.devices import DEVICES
from cheatsheet.model.langs import LANGS
from cheatsheet.model.record import SOURCES, STATES
from cheatsheet.project import repo

PROJECT = repo()

# name -> (function, its arguments, a function returning parsers whose options it takes too)
COMMANDS: dict[str, tuple[Callable, tuple, Callable[[], list] | None]] = {}


def arg(*flags: str, **options) -> tuple[tuple[str, ...], dict]:
    """One argument of a command, as `ArgumentParser.add_argument` takes it."""
    return flags, options


def command(*arguments: tuple[tuple[str, ...], dict], parents: Callable[[], list] | None = None):
    """Register `cmd_NAME` as the command NAME (underscores become hyphens)."""
    def register(func: Callable) -> Callable:
        COMMANDS[func.__name__.removeprefix("cmd_").replace("_", "-")] = (func, arguments, parents)
        return func
    return register


def refresh_api_docs() -> None:
    """Keep the committed api-docs table what the installed torch resolves, after a step that may
    have changed an entry's code line (it needs torch; without it, say so and go on)."""
    if importlib.util.find_spec("torch") is None:
        print(f"note: torch is not installed here, so {display(PROJECT.api_docs)} was not refreshed; "
              "`python -m cheatsheet fill` (or `api-docs`) refreshes it where torch is installed")
        return
    import torch

    from cheatsheet.tools.api_docs import pin_owns, refresh

    if not pin_owns(PROJECT, torch.__version__):
        print(f"note: torch {torch.__version__} is not the pin ({PROJECT.pin}): {display(PROJECT.api_docs)} is written "
              "from the pin's torch only, and was left as it is")
        return
    if refresh(PROJECT):
        print(f"{display(PROJECT.api_docs)}: refreshed (commit it with the page)")


@command(arg("page", help="page name without .md, e.g. gpu-memory"),
         arg("entry_id", help="lowercase-kebab-case English id, e.g. cuda-empty-cache"),
         arg("--after", metavar="OTHER", help="id of the entry the new one follows (default: end of page)"))
def cmd_new(args) -> int:
    """Write an entry's stub into docs/zh/PAGE.md and docs/en/PAGE.md.

    The stub is full of TODO markers, which the checker reports until each is replaced. A new
    page is created in every language; add it to the nav of mkdocs.yml (the other languages' navs
    follow it, titled by their pages' headings)."""
    from cheatsheet.tools.scaffold import ScaffoldError, new_entry

    try:
        print("\n".join(new_entry(PROJECT.docs, args.page, args.entry_id, args.after)))
    except ScaffoldError as e:
        print(e, file=sys.stderr)
        return 2
    refresh_api_docs()
    return 0


@command(arg("name", help="lowercase-kebab-case file name without .py, e.g. training-run"))
def cmd_new_recipe(args) -> int:
    """Write a recipe's stub into docs/zh/recipes/NAME.py and docs/en/recipes/NAME.py."""
    from cheatsheet.tools.scaffold import ScaffoldError, new_recipe

    try:
        print("\n".join(new_recipe(PROJECT.docs, args.name)))
    except ScaffoldError as e:
        print(e, file=sys.stderr)
        return 2
    return 0


@command(arg("page", help="a page under docs/zh, e.g. docs/zh/gpu-memory.md"),
         arg("entry_id", nargs="*", help="only these entries (default: every entry on the page)"))
def cmd_fill(args) -> int:
    """Run a page's examples and write what they print into their output lines, in both languages.

    This is the tests' own runner in `--update-output` mode: one code path checks and fills. Then
    the api-docs table is refreshed, since the entry's code line may have changed."""
    page = Path(args.page).resolve()
    cmd = [sys.executable, "-m", "pytest", str(page), "--update-output", "-q", "-m", "not checks"]
    for entry_id in args.entry_id:
        cmd += ["--entry", entry_id]
    returncode = subprocess.run(cmd, cwd=PROJECT.root).returncode
    refresh_api_docs()
    return returncode


@command()
def cmd_check(args) -> int:
    """Run the entry checker over the whole site: one line per problem, then the counts."""
    from cheatsheet.check.site import check_site
    from cheatsheet.check.torch_api import inspect_names
    from cheatsheet.model.langs import LANGS
    from cheatsheet.model.pages import site_pages

    problems = [p for _, p in check_site(PROJECT.docs, PROJECT.snippets, inspect_names)]
    for problem in problems:
        print(problem)
    counts = [f"{sum(len(p.entries) for p in site_pages(PROJECT.docs, lang))} entries in docs/{lang}" for lang in LANGS]
    print(f"{', '.join(counts)}, {len(problems)} problem(s)")
    return 1 if problems else 0


@command()
def cmd_status(args) -> int:
    """List entries whose two languages were last changed in different commits (advisory)."""
    from cheatsheet.tools.status import stale_entries

    report = stale_entries()
    print("\n".join(report))
    print(f"{len(report)} entr{'y' if len(report) == 1 else 'ies'} whose languages were last changed in different commits "
          "(advisory)")
    return 0


@command(arg("--fix", action="store_true", help="rewrite the pages in place"))
def cmd_lint_zh(args) -> int:
    """Lint the Chinese copywriting: spacing, punctuation, preferred terms."""
    from cheatsheet.tools.lint_zh import fix, problems

    if args.fix:
        print("\n".join(fix()) or "nothing to fix")
    found = problems()
    print("\n".join(found) or "no problems")
    return 1 if found else 0


def _project(args):
    """The project a command works on: this repository, or the one `--project ROOT` names (a test's
    own small site, say)."""
    from cheatsheet.project import Project

    return Project.load(Path(args.project)) if getattr(args, "project", None) else PROJECT


PROJECT_ARG = arg("--project", metavar="ROOT", help="the project whose pages and settings to use (default: this repository)")


@command(arg("--dir", help="the record's folder (default: verification/)"),
         arg("--prune", action="store_true", help="drop rows whose entry changed since they were written"),
         arg("--merge", nargs="+", metavar="PART", help="fold record parts (folders laid out RELEASE/DEVICE.csv) into --dir"),
         arg("--source", choices=SOURCES, help="with --merge: who ran the parts' rows (ci, gpu, submitted)"),
         arg("--diff", nargs=2, metavar=("OLD", "NEW"),
             help="only print, as Markdown, what changed from OLD to NEW (a record, a part, or one release's folder "
                  "such as verification/2.13.0): the watch issue's body"),
         PROJECT_ARG)
def cmd_record(args) -> int:
    """Summarize and check the verification record: per release and device, what ran and whether it is current.

    Every release the project claims ([tool.cheatsheet] releases) needs a current, passing CPU row
    for every entry; every row of any release must still match the code it verified."""
    from cheatsheet.model.record import Recorder, check, merge, summary

    project = _project(args)
    if args.diff:
        from cheatsheet.tools.watch import issue_body

        print(issue_body(Path(args.diff[0]), Path(args.diff[1]), project.docs), end="")
        return 0
    record_dir = Path(args.dir) if args.dir else project.record
    if args.merge:
        counts = merge([Path(p) for p in args.merge], record_dir, project.docs, args.source)
        rows = ", ".join(f"{n} {release}/{device} rows" for (release, device), n in counts.items())
        print(f"merged {len(args.merge)} part(s) into {display(record_dir)}: {rows}")
    if args.prune:
        dropped = Recorder(record_dir, project.docs, project.snippets).drop_stale()
        print("\n".join(f"dropped {d}" for d in dropped) or "no stale rows")
    for (release, device), figures in summary(project.docs, project.snippets, record_dir).items():
        states = ", ".join(f"{figures['states'].get(state, 0)} {state}" for state in STATES if figures["states"].get(state))
        ran = f"; torch {', '.join(figures['torch'])}; {'; '.join(figures['devices'])}; {', '.join(figures['dates'])}" \
            if figures["torch"] else ""
        print(f"torch {release} {device}: {figures['entries']} entries: {states}{ran}")
    problems = check(project.docs, project.snippets, record_dir, project.releases, project.lacking(), project.pin)
    for problem in problems:
        print(problem)
    unrun = {release: n for (release, device), figures in summary(project.docs, project.snippets, record_dir).items()
             if device == "cpu" and (n := figures["states"].get("needs-package"))}
    unrun_text = "".join(f", except on {release}, where {n} that need {', '.join(project.lacking().get(release, ()))} did "
                         "not run (that release is installed without it)" for release, n in unrun.items())
    claimed = (f" (claimed releases {', '.join(project.releases) or 'none'}: every entry passed on CPU{unrun_text}; "
               "every row current)")
    print(f"{len(problems)} problem(s) in the record" + ("" if problems else claimed))
    return 1 if problems else 0


@command(arg("pages", nargs="*", metavar="PAGE|ID",
             help="pages (docs/zh/shapes.md, or a page name: shapes) and entry ids (default: every page)"),
         arg("--device", choices=DEVICES, help="only this device (default: CPU, and CUDA when torch sees a GPU)"),
         arg("--out", default="verification-part",
             help="the record part to write, laid out RELEASE/DEVICE.csv (default: verification-part/)"),
         arg("--source", choices=SOURCES, default="submitted", help="who the rows say ran them (default: submitted)"),
         arg("--workers", type=int, help="CPU example workers (default: one per two cores)"),
         arg("--resume", action="store_true", help="skip entries whose row in --out is current and passed"),
         arg("--check-against", metavar="RECORD",
             help="then compare each row with RECORD's (e.g. verification): fail on a different result or hash"),
         PROJECT_ARG)
def cmd_verify(args) -> int:
    """Run the examples against the installed torch, without pytest, and write the rows as a record part.

    The same runner and the same judging as the test suite: on CPU always, and on CUDA when torch
    sees a GPU (CUDA and ROCm builds alike). A progress bar goes to stderr; then each page's
    passed / failed / skipped, every failure as `file:line: [id] CODE message`, and the rows,
    written to --out as each entry finishes (laid out RELEASE/DEVICE.csv, like verification/).
    Send the part in with the "Submit verification results" issue form; a maintainer folds it in
    with `record --merge PART --source submitted`. Exit status 1 if anything failed."""
    from cheatsheet.tools.verify import VerifyError, verify

    try:
        return verify(_project(args), args.pages, args.device, Path(args.out), args.source, args.workers, args.resume,
                      Path(args.check_against) if args.check_against else None)
    except VerifyError as e:
        print(f"verify: {e}", file=sys.stderr)
        return 2


@command(arg("--check", action="store_true", help="only fail if the committed file is out of date"))
def cmd_api_docs(args) -> int:
    """Write each entry's main API and its documentation page (generated/api-docs.csv).

    The site, built without torch, links every entry to its documentation from this file. `new`
    and `fill` refresh it too; the tests fail while it differs from what the installed torch
    resolves."""
    from cheatsheet.tools.api_docs import dump, refresh, table

    path = PROJECT.api_docs
    if args.check:
        if not path.is_file() or path.read_text("utf-8") != dump(table(PROJECT.docs)):
            print(f"{display(path)} is not what the installed torch resolves. Run: python -m cheatsheet api-docs",
                  file=sys.stderr)
            return 1
        return 0
    changed = refresh(PROJECT)
    rows = path.read_text("utf-8").count("\n") - 1
    print(f"{display(path)}: {rows} entries linked to their documentation" + ("" if changed else " (unchanged)"))
    return 0


@command(arg("site_dir", nargs="?", default=str(PROJECT.root / "site"), help="a built site (default: site/)"))
def cmd_pdf(args) -> int:
    """Print the cheat sheet of a built site to PDF, one per language (A4 landscape)."""
    from cheatsheet.site.pdf import build_pdfs

    for path in build_pdfs(Path(args.site_dir)):
        print(display(path))
    return 0


@command(arg("site_dir", nargs="?", default=str(PROJECT.root / "site"),
             help="the built site whose PDFs go into the copy, and where the zip goes (default: site/)"),
         arg("--out", metavar="ZIP", help="write the zip here instead (default: SITE_DIR/pytorch-cheatsheet-offline.zip)"))
def cmd_offline(args) -> int:
    """Zip both languages as a copy that works from disk (file://): pages, switch, filters, search.

    A build of its own with Material's offline plugin on (OFFLINE=true): links name the files
    (.../index.html), and the site's search index is also written as scripts, which a page opened
    from disk can load. The PDFs of SITE_DIR (`pdf`), if there, go in too. Unzip it and open
    pytorch-cheatsheet/index.html (English: pytorch-cheatsheet/en/index.html)."""
    import time

    from cheatsheet.tools.offline import offline_zip

    start = time.monotonic()
    path = offline_zip(PROJECT.root, Path(args.site_dir), Path(args.out) if args.out else None)
    print(f"{display(path)}: {path.stat().st_size / 2**20:.1f} MiB in {time.monotonic() - start:.0f} s")
    return 0


@command(arg("query", nargs="+", help="words, an API name or a pasted error message"),
         arg("--lang", choices=LANGS, help="the sheet's language (default: the query's)"),
         arg("-n", "--limit", type=int, default=3, help="how many entries (default 3)"),
         arg("--torch", metavar="RELEASE", help="the release to report on (default: the torch installed here, "
                                                "read without importing it; without one, the newest on record)"),
         arg("--json", action="store_true", help="print the entries as JSON, for scripts"))
def cmd_find(args) -> int:
    """Find the entries that answer a question, ranked as the site's search ranks them.

    Offline, from the sheet's data in the package. Each entry comes with its code line, what it
    does, its example and what ran where: the record's state for the torch installed here (or
    --torch) on CPU and CUDA, and the release it works since. Exit status 1 when nothing matches."""
    import json

    from cheatsheet.model.langs import query_language
    from cheatsheet.tools.find import Sheet, SheetError, installed_torch, render

    query = " ".join(args.query)
    lang = args.lang or query_language(query)
    release = args.torch or installed_torch()
    try:
        sheet = Sheet()
        sheet.prepare(lang)
        if not args.json:
            import rich.console  # noqa: F401 (imported while the index loads)
        answers = sheet.search(query, lang, args.limit)
    except SheetError as e:
        print(f"find: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([a.as_json(release) for a in answers], ensure_ascii=False, indent=1))
    else:
        render(answers, release, lang)
    sheet.close()
    return 0 if answers else 1


def find_script() -> int:
    """The `pytorch-cheatsheet` console script: `pytorch-cheatsheet QUERY` is `python -m cheatsheet
    find QUERY`, and `pytorch-cheatsheet mcp` is `python -m cheatsheet mcp`."""
    arguments = sys.argv[1:]
    return main(arguments if arguments[:1] == ["mcp"] else ["find", *arguments])


@command()
def cmd_mcp(args) -> int:
    """Serve the sheet to AI assistants: a Model Context Protocol server on standard input/output.

    Two tools: search(query, lang?, torch_version?) ranks entries as the site does and says what
    ran on that release; get_entry(id, lang?, torch_version?) returns one entry as Markdown with its
    record. Add it to a client as the command `python -m cheatsheet mcp` (README)."""
    from cheatsheet.tools.mcp_server import server

    server().run("stdio")
    return 0


@command(arg("options", nargs="*", metavar="OPTION", help="bench's own options: `bench --help` lists them"))
def cmd_bench(args) -> int:
    """Measure the project: entries per page, build time, index sizes; its options add more.

    The options add the test suite and its phases, the search benchmark and a grown site's first
    search result (`bench --help` lists them). It is benchmarks/bench.py, beside the package in the
    repository, run as its own process. Timings are wall-clock: run on an idle machine, compare like with like."""
    return bench(args.options)


def bench(arguments: list[str]) -> int:
    """benchmarks/bench.py with `arguments`, as its own process in the repository (it is not part of the package)."""
    if not (PROJECT.root / "benchmarks" / "bench.py").is_file():
        print("bench: run it in a checkout of the repository (it measures the repository's site and tests)",
              file=sys.stderr)
        return 2
    return subprocess.call([sys.executable, "-m", "benchmarks.bench", *arguments], cwd=PROJECT.root)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m cheatsheet", description=__doc__.split("\n\n")[0])
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for name, (func, arguments, parents) in COMMANDS.items():
        doc = inspect.getdoc(func) or name
        p = sub.add_parser(name, help=doc.split("\n")[0], description=doc, parents=parents() if parents else [],
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        for flags, options in arguments:
            p.add_argument(*flags, **options)
        p.set_defaults(run=func)
    return top


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:  # every option, --help too, is bench's own
        return bench(argv[1:])
    args = parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
