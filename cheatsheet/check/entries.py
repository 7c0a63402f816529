"""The entry checker: what can be known from reading the pages, without running the examples.

`check_site` returns every problem of a docs tree (docs/zh against docs/en) as `Problem`s. The one
step that needs PyTorch, asking the installed torch about the names the code uses, is passed in as
`inspect` (the pytest plugin asks a worker process; the CLI imports torch itself).
"""

from __future__ import annotations

import ast
import os
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from cheatsheet import display
from cheatsheet.check.torch_api import CODE_LINE_ALIASES, torch_names
from cheatsheet.model.pages import (
    FENCE_ATTRS,
    FENCE_OPTIONS,
    ID_FORMAT,
    LABELS,
    LANGS,
    REQUIRED_FIELDS,
    Entry,
    Fence,
    Page,
    cells,
    comparable_code,
    parse_page,
    site_files,
)
from cheatsheet.model.rules import Problem

PLACEHOLDER = "TODO"
Inspect = Callable[[list[str]], dict[str, dict]]
# Shell words that are not programs on PATH.
SHELL_BUILTINS = {"cd", "export", "echo", "set", "test", "[", "true", "false", "printf", "read", "source", ".", "unset", "exit"}
SHELL_OPERATORS = {"|", "||", "&&", ";", "&", "(", ")"}


def _fill_hint(page: Page, entry: Entry) -> str:
    return f"`python -m cheatsheet fill docs/zh/{page.path.name} {entry.label}`"


class _Checker:
    def __init__(self, snippets: Path):
        self.snippets = snippets
        self.rel = ""  # the page being checked, relative to docs/<lang>
        self.located: list[tuple[str, Problem]] = []
        # Torch names (or `python -m` modules) to ask torch about:
        # (name, fence, file, line, entry label, is a module run with python -m).
        self.names: list[tuple[str, Fence, Path, int, str, bool]] = []
        self.rel_of: dict[int, str] = {}  # fence -> its page

    def add(self, path: Path, line: int, entry: Entry | str | None, code: str, message: str) -> None:
        label = entry.label if isinstance(entry, Entry) else (entry or "-")
        self.located.append((self.rel, Problem(path, line, label, code, message)))

    # --- code -----------------------------------------------------------------

    def python_code(self, fence: Fence, label: str, aliases: dict | None = None, path: Path | None = None) -> None:
        """`path`: a snippets/ file that the fence includes, checked instead of the fence's code."""
        code, first_line = (path.read_text("utf-8"), 0) if path else (fence.code, fence.line)
        path = path or fence.path
        try:
            tree = ast.parse(code)
        except SyntaxError as e:
            self.add(path, first_line + (e.lineno or 1), label, "CODE001",
                     f"Python does not parse: {e.msg}. Fix the syntax; a code line must be valid Python on its own (indent a `with` body, close brackets).")
            return
        self.rel_of[id(fence)] = self.rel
        for name, lineno in torch_names(tree, aliases):
            self.names.append((name, fence, path, first_line + lineno, label, False))

    def shell_code(self, fence: Fence, label: str) -> None:
        for offset, line in enumerate(fence.code.splitlines(), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
                lexer.whitespace_split = True
                words = list(lexer)
            except ValueError as e:
                self.add(fence.path, fence.line + offset, label, "CODE001", f"shell line does not parse: {e}. Close the quotes.")
                continue
            command: list[str] = []
            for word in [*words, ";"]:
                if word not in SHELL_OPERATORS:
                    command.append(word)
                    continue
                self._shell_command(command, fence, fence.line + offset, label)
                command = []

    def _shell_command(self, argv: list[str], fence: Fence, line: int, label: str) -> None:
        argv = [w for w in argv if "=" not in w.split("/")[0] or w.startswith("-")]  # drop VAR=value prefixes
        if not argv or argv[0] in SHELL_BUILTINS:
            return
        if argv[0] in ("python", "python3") and len(argv) > 2 and argv[1] == "-m":
            self.rel_of[id(fence)] = self.rel
            self.names.append((argv[2], fence, fence.path, line, label, True))
            return
        path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        if shutil.which(argv[0], path=path) is None and not (self.snippets / argv[0]).exists():
            self.add(fence.path, line, label, "CODE002", f"command `{argv[0]}` is not installed here. Use a command that requirements.txt or the system provides.")

    def include(self, fence: Fence, label: str) -> None:
        path = self.snippets / fence.include
        if not path.is_file():
            self.add(fence.path, fence.line, label, "CODE004", f'snippets/{fence.include} does not exist. Add the file to snippets/ or fix the name in `--8<-- "{fence.include}"`.')
        elif path.suffix == ".py":
            self.python_code(fence, label, path=path)

    def resolve_names(self, inspect: Inspect) -> None:
        info = inspect(sorted({name for name, *_ in self.names}))
        for name, fence, path, line, label, is_module in self.names:
            self.rel = self.rel_of[id(fence)]
            found = info[name]
            if not found["exists"]:
                what = f"module `{name}` (python -m)" if is_module else f"`{name}`"
                self.add(path, line, label, "CODE002", f"{what} does not exist in the installed PyTorch. Check the spelling against the PyTorch docs, or use the current name.")
            elif found["deprecated"] and "uses-deprecated" not in fence.options:
                self.add(path, line, label, "CODE003",
                         f"`{name}` is deprecated; PyTorch says: “{found['deprecated']}” Use the replacement it names (an entry that shows a deprecated API on purpose marks its fences `uses-deprecated`).")

    # --- entries ----------------------------------------------------------------

    def page(self, page: Page) -> None:
        labels = LABELS[page.lang]
        self._placeholders(page)
        if page.kind == "recipe":  # no entry format to check: its code is all there is
            for entry in page.entries:
                self.python_code(entry.examples[0], entry.label)
            return
        for fence in page.outside:
            if fence.has_output and fence.lang not in ("markdown", "md"):  # a markdown fence shows page source
                self.add(page.path, fence.line, None, "ENTRY013",
                         "a fence with output lines outside any entry is never run, so its output is never checked. Move it into an entry's example, or drop the `#>` lines.")
        for section in page.sections:
            if section.id is None:
                self.add(page.path, section.line, None, "PAGE001",
                         f"the ## heading `{section.title}` has no explicit id. End it with `{{ #section-in-english }}`, "
                         "the same on the other language's page, so links and the language switch keep the reader's place.")
        for entry in page.entries:
            self.entry(page, entry, labels)

    def _placeholders(self, page: Page) -> None:
        reported = set()
        for number, line in enumerate(page.text.splitlines(), start=1):
            owner = next((e for e in page.entries if e.line <= number <= e.end_line), None)
            if PLACEHOLDER in line and id(owner) not in reported:
                reported.add(id(owner))  # the first placeholder per entry (or per page intro) is enough
                self.add(page.path, number, owner, "ENTRY010",
                         f"placeholder `{PLACEHOLDER}` left here. Replace it with the real text or code (`python -m cheatsheet new` writes these into new stubs).")

    def entry(self, page: Page, entry: Entry, labels: dict[str, str]) -> None:
        add = lambda line, code, message: self.add(page.path, line, entry, code, message)  # noqa: E731
        if entry.id is None:
            add(entry.line, "ENTRY001", "the ### heading has no explicit id. End it with `{ #task-in-english }`, and use the same id on the other language's page.")
        for alias in entry.aliases:
            old_page = alias.rpartition("#")[0]
            if old_page and not (page.path.parent / old_page).is_file():
                add(entry.line, "ENTRY002", f"alias `{alias}` names a page that does not exist. Write `page.md#old-id` for the page the merged entry was on.")
        for entry_id in filter(None, [entry.id, *entry.alias_ids]):
            if not ID_FORMAT.match(entry_id):
                add(entry.line, "ENTRY002", f"id `{entry_id}` must be lowercase words joined by hyphens, e.g. `cuda-empty-cache`.")
        if entry.code_line is None:
            add(entry.line, "ENTRY004", "no code line. Put the line a reader copies in a ```python fence right under the heading.")
        for key in REQUIRED_FIELDS:
            if key not in entry.fields:
                add(entry.line, "ENTRY005", f'missing field "{labels[key]}". Add a bullet `- {labels[key]}...` under the code line.')
        after_marker = entry.with_role("example", "include", "idle")
        if entry.example_marker_line is None or not after_marker:
            add(entry.line, "ENTRY006", f"no example. Add a paragraph `**{labels['example']}**` followed by a complete ```python example that prints its result.")
        for fence in entry.examples:
            if not fence.has_output:
                add(fence.line, "ENTRY007", f"the example shows no output. Print a result; {_fill_hint(page, entry)} writes what it prints as `#> ` lines.")
        for fence in entry.with_role("stray"):
            add(fence.line, "ENTRY009", f"a second fence before `**{labels['example']}**`. An entry has one code-line fence; move this one below the example marker.")
        for fence in entry.with_role("idle"):
            add(fence.line, "ENTRY011",
                f"a ```{fence.lang or '(no language)'} fence after the example marker would run nowhere. Examples are ```python or ```bash fences; printed output goes into `#>` lines inside them.")
        shell_text = "\n".join(f.code for f in entry.examples if f.lang == "bash")
        for fence in entry.with_role("include"):
            if fence.include not in shell_text.split() and not any(word.endswith("/" + fence.include) for word in shell_text.split()):
                add(fence.line, "ENTRY012", f"snippets/{fence.include} is shown but no ```bash example of this entry runs it, so it is never tested. Add a bash fence that runs it, with its output as `#>` lines.")
            self.include(fence, entry.label)
        for fence in entry.fences:
            unknown = (fence.options - FENCE_OPTIONS) | (set(fence.attrs) - FENCE_ATTRS)
            if unknown:
                hint = " Examples always run; a fence that shows a snippets/ file needs no option." if "notest" in unknown else ""
                add(fence.line, "ENTRY008", f"unknown fence option(s) {sorted(unknown)}. Known: {sorted(FENCE_OPTIONS | FENCE_ATTRS)}.{hint}")
        code_line = entry.code_line
        if code_line is not None and code_line.lang == "python":
            self.python_code(code_line, entry.label, CODE_LINE_ALIASES)
        elif code_line is not None and code_line.lang == "bash":
            self.shell_code(code_line, entry.label)
        for fence in entry.examples:
            if fence.lang == "python":
                self.python_code(fence, entry.label)
            else:
                self.shell_code(fence, entry.label)

    # --- both languages -----------------------------------------------------------

    def pair(self, zh: Page, en: Page) -> None:
        if zh.kind == "recipe" and cells(zh.text) != cells(en.text):
            self.add(en.path, 1, en.entries[0], "PAIR003",
                     f"cells ({len(cells(en.text))}) differ from those of {display(zh.path)} ({len(cells(zh.text))}). "
                     "Both languages have the same `# %%` cells in the same order; translate only the Markdown cells and comments.")
        zh_sections, en_sections = [x.id for x in zh.sections], [x.id for x in en.sections]
        if zh_sections != en_sections:
            first = next((i for i, (a, b) in enumerate(zip(zh_sections, en_sections)) if a != b), min(len(zh_sections), len(en_sections)))
            line = en.sections[first].line if first < len(en.sections) else 1
            self.add(en.path, line, None, "PAIR004",
                     f"section ids {en_sections} here, {zh_sections} in {display(zh.path)}. "
                     "Both languages have the same ## sections, in the same order, with the same `{ #id }`.")
        zh_ids, en_ids = [e.label for e in zh.entries], [e.label for e in en.entries]
        for entry in zh.entries:
            if entry.label not in en_ids:
                self.add(zh.path, entry.line, entry, "PAIR002", f"entry is missing from {display(en.path)}. Add it there with the same id and code.")
        for entry in en.entries:
            if entry.label not in zh_ids:
                self.add(en.path, entry.line, entry, "PAIR002", f"entry is missing from {display(zh.path)}. Add it there with the same id and code.")
        common_zh = [i for i in zh_ids if i in en_ids]
        common_en = [i for i in en_ids if i in zh_ids]
        if common_zh != common_en:
            first = next(a for a, b in zip(common_zh, common_en) if a != b)
            entry = next(e for e in en.entries if e.label == first)
            self.add(en.path, entry.line, entry, "PAIR002", f"entries are in a different order than in {display(zh.path)}. Order them as the Chinese page does.")
        en_by_id = {e.label: e for e in en.entries}
        for z in zh.entries:
            e = en_by_id.get(z.label)
            if e is None:
                continue
            if z.aliases != e.aliases:
                self.add(e.path, e.line, e, "PAIR002", f"aliases {list(e.aliases)} here, {list(z.aliases)} in {display(z.path)}. Both languages keep the same merged ids.")
            if len(z.fences) != len(e.fences):
                self.add(e.path, e.line, e, "PAIR003", f"{len(e.fences)} fences here, {len(z.fences)} in {display(z.path)}. Both languages show the same code.")
                continue
            for zf, ef in zip(z.fences, e.fences):
                if comparable_code(zf) != comparable_code(ef) or zf.options != ef.options or zf.lang != ef.lang or zf.attrs != ef.attrs:
                    self.add(ef.path, ef.line, e, "PAIR003", f"code differs from {display(zf.path)}:{zf.line}. Only comments may differ between languages; copy the code and `#>` lines across.")


def check_site(docs: Path, snippets: Path, inspect: Inspect, only: set[Path] | None = None) -> list[tuple[str, Problem]]:
    """Every problem of docs/zh and docs/en, each with the page it belongs to (relative to
    docs/<lang>). `only` limits the page checks to some zh pages (and their English
    counterparts); ids are still compared across the whole site."""
    docs = Path(docs).resolve()
    checker = _Checker(Path(snippets))
    rels = sorted({p.relative_to(docs / lang) for lang in LANGS for p in site_files(docs / lang)})
    seen: dict[str, dict[str, Entry]] = {lang: {} for lang in LANGS}
    for rel in rels:
        checker.rel = rel.as_posix()
        pages = {lang: parse_page(docs / lang / rel, lang) if (docs / lang / rel).exists() else None for lang in LANGS}
        for lang, page in pages.items():
            for entry in page.entries if page else []:
                for entry_id in filter(None, [entry.id, *entry.alias_ids]):  # an alias is an id too: links use it
                    first = seen[lang].setdefault(entry_id, entry)
                    if first is not entry:
                        checker.add(entry.path, entry.line, entry, "ENTRY003", f"id `{entry_id}` already used at {display(first.path)}:{first.line}. Ids (and aliases) are unique across the site; pick another.")
        if only is not None and (docs / "zh" / rel).resolve() not in only:
            continue
        for page in filter(None, pages.values()):
            checker.page(page)
        if None in pages.values():
            missing = next(docs / lang / rel for lang, page in pages.items() if page is None)
            present = next(page for page in pages.values() if page is not None)
            checker.add(present.path, 1, None, "PAIR001", f"{display(missing)} does not exist. Every page needs both languages at the same relative path; translate this page there.")
        else:
            checker.pair(pages["zh"], pages["en"])
    if checker.names:
        checker.resolve_names(inspect)
    return checker.located

