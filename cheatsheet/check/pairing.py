"""A page against its other language: the same recipe cells, the same ## sections, the same
entries in the same order, each with the same aliases and the same code (only comments differ)."""

from __future__ import annotations

from cheatsheet import display
from cheatsheet.check.findings import problem
from cheatsheet.model.pages import Page, cells, comparable_code
from cheatsheet.model.rules import Problem


def pair_problems(zh: Page, en: Page) -> list[Problem]:
    found = []
    if zh.kind == "recipe" and cells(zh.text) != cells(en.text):
        found.append(problem(en.path, 1, en.entries[0], "PAIR003",
                             f"cells ({len(cells(en.text))}) differ from those of {display(zh.path)} ({len(cells(zh.text))}). "
                             "Both languages have the same `# %%` cells in the same order; translate only the Markdown "
                             "cells and comments."))
    zh_sections, en_sections = [x.id for x in zh.sections], [x.id for x in en.sections]
    if zh_sections != en_sections:
        first = next((i for i, (a, b) in enumerate(zip(zh_sections, en_sections)) if a != b),
                     min(len(zh_sections), len(en_sections)))
        line = en.sections[first].line if first < len(en.sections) else 1
        found.append(problem(en.path, line, None, "PAIR004",
                             f"section ids {en_sections} here, {zh_sections} in {display(zh.path)}. "
                             "Both languages have the same ## sections, in the same order, with the same `{ #id }`."))
    found += entry_ids(zh, en)
    en_by_id = {e.label: e for e in en.entries}
    for z in zh.entries:
        e = en_by_id.get(z.label)
        if e is None:
            continue
        if z.aliases != e.aliases:
            found.append(problem(e.path, e.line, e, "PAIR006", f"aliases {list(e.aliases)} here, {list(z.aliases)} in "
                                                               f"{display(z.path)}. Both languages keep the same merged ids."))
        if len(z.fences) != len(e.fences):
            found.append(problem(e.path, e.line, e, "PAIR007", f"{len(e.fences)} fences here, {len(z.fences)} in "
                                                               f"{display(z.path)}. Both languages show the same code."))
            continue
        for zf, ef in zip(z.fences, e.fences):
            if (comparable_code(zf), zf.options, zf.lang, zf.attrs) != (comparable_code(ef), ef.options, ef.lang, ef.attrs):
                found.append(problem(ef.path, ef.line, e, "PAIR003",
                                     f"code differs from {display(zf.path)}:{zf.line}. Only comments may differ between "
                                     "languages; copy the code and `#>` lines across."))
    return found


def entry_ids(zh: Page, en: Page) -> list[Problem]:
    """Entries missing from one language, then entries in a different order than the Chinese page."""
    found = []
    zh_ids, en_ids = [e.label for e in zh.entries], [e.label for e in en.entries]
    for entry in zh.entries:
        if entry.label not in en_ids:
            found.append(problem(zh.path, entry.line, entry, "PAIR002",
                                 f"entry is missing from {display(en.path)}. Add it there with the same id and code."))
    for entry in en.entries:
        if entry.label not in zh_ids:
            found.append(problem(en.path, entry.line, entry, "PAIR002",
                                 f"entry is missing from {display(zh.path)}. Add it there with the same id and code."))
    common_zh = [i for i in zh_ids if i in en_ids]
    common_en = [i for i in en_ids if i in zh_ids]
    if common_zh != common_en:
        first = next(a for a, b in zip(common_zh, common_en) if a != b)
        entry = next(e for e in en.entries if e.label == first)
        found.append(problem(en.path, entry.line, entry, "PAIR005",
                             f"entries are in a different order than in {display(zh.path)}. "
                             "Order them as the Chinese page does."))
    return found
