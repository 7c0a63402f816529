"""One page's format: its sections, its placeholders and each entry's id, fields, fences and
examples; each code fence goes to the static code checks (cheatsheet/check/code.py) in page order."""

from __future__ import annotations

import re
from pathlib import Path

from cheatsheet.check import code
from cheatsheet.check.findings import Findings, problem
from cheatsheet.check.torch_api import CODE_LINE_ALIASES
from cheatsheet.model.pages import FENCE_ATTRS, FENCE_OPTIONS, ID_FORMAT, LABELS, OUTPUT_LINE, REQUIRED_FIELDS, Entry, Page
from cheatsheet.model.rules import Problem

PLACEHOLDER = "TODO"


def _fill_hint(page: Page, entry: Entry) -> str:
    return f"`python -m cheatsheet fill docs/zh/{page.path.name} {entry.label}`"


def page_findings(page: Page, snippets: Path) -> Findings:
    found = Findings(placeholders(page))
    if page.kind == "recipe":  # no entry format to check: its code is all there is
        for entry in page.entries:
            found.extend(code.python_code(entry.examples[0], entry.label))
        return found
    for fence in page.outside:
        if fence.has_output and fence.lang not in ("markdown", "md"):  # a markdown fence shows page source
            found.problems.append(problem(page.path, fence.line, None, "ENTRY013",
                                          "a fence with output lines outside any entry is never run, so its output is never "
                                          "checked. Move it into an entry's example, or drop the `#>` lines."))
    for section in page.sections:
        if section.id is None:
            found.problems.append(problem(page.path, section.line, None, "PAGE001",
                                          f"the ## heading `{section.title}` has no explicit id. End it with "
                                          "`{ #section-in-english }`, the same on the other language's page, so links "
                                          "and the language switch keep the reader's place."))
    for entry in page.entries:
        found.extend(entry_findings(page, entry, snippets))
    return found


def placeholders(page: Page) -> list[Problem]:
    """The first placeholder of each entry (and of the page outside entries)."""
    found, reported = [], set()
    for number, owner in page.lines_holding(PLACEHOLDER):
        if id(owner) not in reported:
            reported.add(id(owner))
            found.append(problem(page.path, number, owner, "ENTRY010",
                                 f"placeholder `{PLACEHOLDER}` left here. Replace it with the real text or code "
                                 "(`python -m cheatsheet new` writes these into new stubs)."))
    return found


# A comment written as an output line's marker: `#` and a word, maybe a condition, then `>`.
OUTPUT_LIKE = re.compile(r"^\s*#[a-z]+[<>=!.\d]*>")

# What Python-Markdown reads inside a heading even within an attribute's quotes.
SEARCH_WORDS_MARKDOWN = re.compile(r"[<>*\[\]`]|__\w+__")


def entry_findings(page: Page, entry: Entry, snippets: Path) -> Findings:
    labels = LABELS[page.lang]
    found = Findings()

    def add(line: int, rule: str, message: str) -> None:
        found.problems.append(problem(page.path, line, entry, rule, message))

    if entry.id is None:
        add(entry.line, "ENTRY001", "the ### heading has no explicit id. End it with `{ #task-in-english }`, "
                                    "and use the same id on the other language's page.")
    for alias in entry.aliases:
        old_page = alias.rpartition("#")[0]
        if old_page and not (page.path.parent / old_page).is_file():
            add(entry.line, "ENTRY014", f"alias `{alias}` names a page that does not exist. "
                                        "Write `page.md#old-id` for the page the merged entry was on.")
    markdown = sorted(set(SEARCH_WORDS_MARKDOWN.findall(entry.search_words)))
    if markdown:
        add(entry.line, "ENTRY015", f"the search words hold {' '.join(markdown)}, which Markdown reads inside a heading, so the "
                                    "heading would not render. Leave them out: search ignores them, e.g. `Can't pickle "
                                    "function lambda`, `if name == main`.")
    for entry_id in filter(None, [entry.id, *entry.alias_ids]):
        if not ID_FORMAT.match(entry_id):
            add(entry.line, "ENTRY002", f"id `{entry_id}` must be lowercase words joined by hyphens, e.g. `cuda-empty-cache`.")
    if entry.code_line is None:
        add(entry.line, "ENTRY004", "no code line. Put the line a reader copies in a ```python fence right under the heading.")
    for key in REQUIRED_FIELDS:
        if key not in entry.fields:
            add(entry.line, "ENTRY005", f'missing field "{labels[key]}". Add a bullet `- {labels[key]}...` under the code line.')
    if entry.example_marker_line is None or not entry.with_role("example", "include", "idle"):
        add(entry.line, "ENTRY006", f"no example. Add a paragraph `**{labels['example']}**` followed by a complete ```python "
                                    "example that prints its result.")
    for fence in entry.examples:
        # A CUDA-only example prints on a GPU only: its `#cuda>` lines are written there (`fill`).
        if not fence.has_output and not ("requires-cuda" in fence.options and "print(" in fence.code):
            add(fence.line, "ENTRY007", f"the example shows no output. Print a result; {_fill_hint(page, entry)} writes "
                                        "what it prints as `#> ` lines.")
    for fence in entry.with_role("stray"):
        add(fence.line, "ENTRY009", f"a second fence before `**{labels['example']}**`. An entry has one code-line fence; "
                                    "move this one below the example marker.")
    for fence in entry.with_role("idle"):
        add(fence.line, "ENTRY011", f"a ```{fence.lang or '(no language)'} fence after the example marker would run nowhere. "
                                    "Examples are ```python or ```bash fences; printed output goes into `#>` lines inside them.")
    for fence in entry.examples:
        for number, line in enumerate(fence.code.splitlines(), start=fence.line + 1):
            if OUTPUT_LIKE.match(line) and not OUTPUT_LINE.match(line):
                add(number, "ENTRY016", f"`{line.strip().split('>')[0]}>` is not an output line, so nothing checks what "
                                        "follows it. Write `#>` (every device and release), `#cpu>` / `#cuda>` (one "
                                        "device) or `#torch<X.Y>` / `#torch>=X.Y>` (the releases before / from X.Y).")
    shell_words = "\n".join(f.code for f in entry.examples if f.lang == "bash").split()
    for fence in entry.with_role("include"):
        if fence.include not in shell_words and not any(word.endswith("/" + fence.include) for word in shell_words):
            add(fence.line, "ENTRY012", f"snippets/{fence.include} is shown but no ```bash example of this entry runs it, "
                                        "so it is never tested. Add a bash fence that runs it, with its output as `#>` lines.")
        found.extend(code.include(fence, entry.label, snippets))
    for fence in entry.fences:
        unknown = (fence.options - FENCE_OPTIONS) | (set(fence.attrs) - FENCE_ATTRS)
        if unknown:
            hint = " Examples always run; a fence that shows a snippets/ file needs no option." if "notest" in unknown else ""
            known = sorted(FENCE_OPTIONS | FENCE_ATTRS)
            add(fence.line, "ENTRY008", f"unknown fence option(s) {sorted(unknown)}. Known: {known}.{hint}")
    code_line = entry.code_line
    if code_line is not None and code_line.lang == "python":
        found.extend(code.python_code(code_line, entry.label, CODE_LINE_ALIASES))
    elif code_line is not None and code_line.lang == "bash":
        found.extend(code.shell_code(code_line, entry.label, snippets))
    for fence in entry.examples:
        if fence.lang == "python":
            found.extend(code.python_code(fence, entry.label))
        else:
            found.extend(code.shell_code(fence, entry.label, snippets))
    return found
