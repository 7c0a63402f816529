"""The entry checker: what can be known from reading the pages, without running the examples.

`check_site` returns every problem of a docs tree (docs/zh against docs/en), each with the page it
belongs to. The checks live by concern: one page's format (format.py), a page against its other
language (pairing.py), static code (code.py). The one step that needs PyTorch, asking the installed
torch about the names the code uses, is passed in as `inspect` (the pytest plugin asks a worker
process; the CLI imports torch itself) and asked once, for the whole site, at the end.
"""

from __future__ import annotations

from pathlib import Path

from cheatsheet import display
from cheatsheet.check import code
from cheatsheet.check.findings import Inspect, NameUse, problem
from cheatsheet.check.format import page_findings
from cheatsheet.check.pairing import pair_problems
from cheatsheet.model.langs import OTHERS, SOURCE
from cheatsheet.model.pages import LANGS, Entry, Page, parse_page, site_files
from cheatsheet.model.rules import Problem


def duplicate_ids(page: Page, seen: dict[str, Entry]) -> list[Problem]:
    """Ids (and aliases: links use them too) of `page` already used by an entry in `seen`, which
    holds every id met so far in this language and learns this page's."""
    found = []
    for entry in page.entries:
        for entry_id in filter(None, [entry.id, *entry.alias_ids]):
            first = seen.setdefault(entry_id, entry)
            if first is not entry:
                found.append(problem(entry.path, entry.line, entry, "ENTRY003",
                                     f"id `{entry_id}` already used at {display(first.path)}:{first.line}. "
                                     "Ids (and aliases) are unique across the site; pick another."))
    return found


def check_site(docs: Path, snippets: Path, inspect: Inspect, only: set[Path] | None = None) -> list[tuple[str, Problem]]:
    """Every problem of docs/zh and docs/en, each with the page it belongs to (relative to
    docs/<lang>). `only` limits the page checks to some zh pages (and their English
    counterparts); ids are still compared across the whole site."""
    docs, snippets = Path(docs).resolve(), Path(snippets)
    located: list[tuple[str, Problem]] = []
    uses: list[tuple[str, NameUse]] = []
    seen: dict[str, dict[str, Entry]] = {lang: {} for lang in LANGS}
    for rel in sorted({p.relative_to(docs / lang) for lang in LANGS for p in site_files(docs / lang)}):
        page_rel = rel.as_posix()
        pages = {lang: parse_page(docs / lang / rel, lang) if (docs / lang / rel).exists() else None for lang in LANGS}
        for lang, page in pages.items():
            located += [(page_rel, p) for p in duplicate_ids(page, seen[lang])] if page else []
        if only is not None and (docs / SOURCE / rel).resolve() not in only:
            continue
        for page in filter(None, pages.values()):
            found = page_findings(page, snippets)
            located += [(page_rel, p) for p in found.problems]
            uses += [(page_rel, use) for use in found.names]
        if None in pages.values():
            missing = next(docs / lang / rel for lang, page in pages.items() if page is None)
            present = next(page for page in pages.values() if page is not None)
            located.append((page_rel, problem(present.path, 1, None, "PAIR001",
                                              f"{display(missing)} does not exist. Every page needs both languages at the "
                                              "same relative path; translate this page there.")))
        else:
            located += [(page_rel, p) for other in OTHERS for p in pair_problems(pages[SOURCE], pages[other])]
    if uses:
        info = inspect(sorted({use.name for _, use in uses}))
        located += [(page_rel, p) for page_rel, use in uses for p in code.name_problems(use, info[use.name])]
    return located
