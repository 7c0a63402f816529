"""The page model: a Markdown topic page parsed once into entries and fences, each fence with one role.

Roles of the fences inside an entry (one `###` heading with an explicit id):

* code-line: the first fence under the heading, the line a reader copies;
* example:   a ```python or ```bash fence after the example marker; it runs on every device;
* include:   a fence holding only `--8<-- "NAME"`: shows snippets/NAME, which a bash example runs;
* idle:      any other fence after the marker (a `text` or `pycon` tag, ...): it would run nowhere,
             which the checker reports;
* stray:     a second fence before the example marker.

Fences outside entries (page introductions, the contributor guide) are prose and never run.

A recipe (docs/<lang>/recipes/NAME.py, a jupytext "percent" notebook that mkdocs-jupyter renders)
is a page with one entry, `recipe-NAME`, whose one example is the whole file: its markdown cells
are comments, its code cells run top to bottom in one namespace, and its `#>` lines are checked
and written like any example's.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt

from cheatsheet.model.devices import DEVICES
from cheatsheet.model.langs import LABELS, LANGS

REQUIRED_FIELDS = ("mnemonic", "prereq")
RUNNABLE_LANGS = ("python", "bash")
# Options a fence may carry ({.python requires-cuda}); anything else is a typo.
FENCE_OPTIONS = {"requires-cuda", "uses-deprecated"}
FENCE_ATTRS = {"title"}

# Output lines: `#>` on every device, `#cpu>` / `#cuda>` only on that one; `#torch<2.13>` and
# `#torch>=2.13>` only on the torch releases before / from that one, where the output really
# differs between releases (a message reworded). Groups: device, op, release, text.
OUTPUT_LINE = re.compile(r"^\s*#(?:(cpu|cuda)|torch(<|>=)(\d+(?:\.\d+){1,2}))?>(?: (.*)|$)")


def _release_key(release: str) -> tuple[int, ...]:
    """2.13 -> (2, 13, 0); 2.14.1+cu130 -> (2, 14, 1): releases compared as numbers."""
    numbers = [int(part) for part in re.findall(r"\d+", release.split("+")[0])[:3]]
    return tuple(numbers + [0] * (3 - len(numbers)))


def output_applies(m: re.Match, device: str | None, release: str | None) -> bool:
    """Whether an OUTPUT_LINE match is shown by a run on `device` with torch `release`; None
    stands for any (so every per-release line counts, e.g. for search)."""
    if m.group(1) and device is not None and m.group(1) != device:
        return False
    if m.group(2) and release is not None:
        since = _release_key(release) >= _release_key(m.group(3))
        return since if m.group(2) == ">=" else not since
    return True
INCLUDE = re.compile(r'^\s*-{1,2}8<-{1,2}\s+"([^"]+)"\s*$')
# `{ #id }`, or `{ #id data-aliases="old-id other-id" }` for an entry that took over others' ids
HEADING_ID = re.compile(r"\{\s*#([^\s}]+)((?:\s+[\w-]+=\"[^\"]*\")*)\s*\}\s*$")
ALIASES = re.compile(r'data-aliases="([^"]*)"')
# `data-search="显存爆了 OOM"`: words readers type for this entry that its title and fields do not
# use; the site's search ranks them like the title (cheatsheet/search_index.py).
SEARCH_WORDS = re.compile(r'data-search="([^"]*)"')
ID_FORMAT = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True, eq=False)
class Fence:
    path: Path
    line: int  # 1-based line of the opening ``` in the file
    lang: str  # as written
    options: frozenset[str]
    attrs: dict[str, str]
    code: str
    role: str = "prose"
    end: int = 0  # 1-based line of the closing ```

    @property
    def include(self) -> str | None:
        """The snippets/ file this fence shows, if it is an include."""
        m = INCLUDE.match(self.code.strip())
        return m.group(1) if m else None

    @property
    def requires_cuda(self) -> bool:
        return "requires-cuda" in self.options

    @property
    def has_output(self) -> bool:
        return any(OUTPUT_LINE.match(line) for line in self.code.splitlines())

    def has_lines_for(self, device: str) -> bool:
        """Whether it has output lines that only a run on `device` prints (`#cuda>`, `#cpu>`)."""
        return any((m := OUTPUT_LINE.match(line)) and m.group(1) == device for line in self.code.splitlines())

    def expected_output(self, device: str, release: str | None = None) -> list[str]:
        """The output lines that apply to a run on `device` with torch `release` (None: every
        release's lines)."""
        lines = []
        for line in self.code.splitlines():
            m = OUTPUT_LINE.match(line)
            if m and output_applies(m, device, release):
                lines.append(m.group(4) or "")
        return lines

    @property
    def source(self) -> str:
        """The code without its output lines, as it runs."""
        return "\n".join(line for line in self.code.splitlines() if not OUTPUT_LINE.match(line)) + "\n"

    def devices(self) -> tuple[str, ...]:
        return ("cuda",) if self.requires_cuda else DEVICES


@dataclass(eq=False)
class Entry:
    id: str | None
    title: str
    line: int
    path: Path
    lang: str
    # Ids of entries merged into this one, so links to them still work: `old-id` for one that was on
    # this page, `page.md#old-id` for one that was on another page (which then redirects here).
    aliases: tuple[str, ...] = ()
    end_line: int = 0  # last line of the entry in the file
    search_words: str = ""
    fields: dict[str, int] = field(default_factory=dict)  # field key -> line
    example_marker_line: int | None = None
    fences: list[Fence] = field(default_factory=list)
    lines: tuple[str, ...] = ()  # the page's lines (the entry is lines[line - 1:end_line])

    @property
    def label(self) -> str:
        return self.id or f"(no id: {self.title})"

    @property
    def alias_ids(self) -> list[str]:
        return [alias.rpartition("#")[2] for alias in self.aliases]

    def with_role(self, *roles: str) -> list[Fence]:
        return [f for f in self.fences if f.role in roles]

    @property
    def code_line(self) -> Fence | None:
        return next(iter(self.with_role("code-line")), None)

    @property
    def examples(self) -> list[Fence]:
        """The fences that run: python and bash examples, in page order."""
        return self.with_role("example")

    def example_name(self, fence: Fence) -> str:
        """`id` for the first example, `id#2` for the second, ..."""
        n = self.examples.index(fence)
        return self.label + (f"#{n + 1}" if n else "")

    @property
    def heading(self) -> str:
        """The `###` heading line as the page writes it (title, `{ #id ... }` and its attributes)."""
        return self.lines[self.line - 1] if self.lines else ""

    @property
    def head_markdown(self) -> str:
        """The entry up to its example marker, as Markdown: `### Title` (no attributes), the code
        line and the fields, as the page writes them."""
        head = list(self.lines[self.line - 1:(self.example_marker_line or self.end_line) - 1])
        return "\n".join([f"### {self.title}", *head[1:]]).strip()

    def field_markdown(self, key: str) -> str:
        """A field's Markdown (mnemonic, what, prereq) without its label, continuation lines joined."""
        line = self.fields.get(key)
        if line is None:
            return ""
        text = [self.lines[line - 1].strip().removeprefix("- ").strip().removeprefix(LABELS[self.lang][key]).strip()]
        for more in self.lines[line:]:  # up to the next item or a blank line
            if not more.strip() or more.lstrip().startswith("- "):
                break
            text.append(more.strip())
        return "\n".join(text)

    @property
    def fields_markdown(self) -> str:
        """Everything between the code line and the example marker, fences left out: the fields."""
        end = (self.example_marker_line or self.end_line) - 1
        start = self.code_line.end if self.code_line else self.line
        return "\n".join(line for line in self.lines[start:end] if not line.lstrip().startswith("```"))

    def included_files(self) -> list[str]:
        return [f.include for f in self.with_role("include")]

    def code_hash(self, snippets: Path) -> str:
        """What a verification row vouches for: the examples (comments aside) and the scripts they run."""
        h = hashlib.sha256()
        for fence in self.examples:
            h.update(comparable_code(fence).encode() + b"\0")
        for name in self.included_files():
            path = snippets / name
            h.update(path.read_bytes() if path.is_file() else b"(missing)")
        return h.hexdigest()[:16]


@dataclass(frozen=True)
class Section:
    line: int
    id: str | None  # the explicit `{ #id }`: the same in both languages, so links and the language switch keep it
    title: str


@dataclass(eq=False)
class Page:
    path: Path
    lang: str
    entries: list[Entry]
    outside: list[Fence]  # fences outside any entry
    text: str
    kind: str = "topic"  # or "recipe"
    sections: list[Section] = field(default_factory=list)  # the ## headings

    @property
    def front_matter(self) -> str:
        """The YAML between the opening `---` lines ("" without)."""
        found = re.match(r"---\n(.*?\n)---\n", self.text, re.S)
        return found.group(1) if found else ""

    @property
    def title(self) -> str:
        """The page's `# Title` (a recipe's `# # Title`), else its file name."""
        pattern = RECIPE_TITLE if self.kind == "recipe" else re.compile(r"^# (.+)$", re.M)
        m = pattern.search(self.text)
        return m.group(1).strip() if m else self.path.stem

    def entry(self, entry_id: str) -> Entry | None:
        return next((e for e in self.entries if e.id == entry_id), None)

    def lines_holding(self, text: str) -> list[tuple[int, Entry | None]]:
        """Each line (1-based) that holds `text`, with the entry it is in (None outside entries)."""
        return [(number, next((e for e in self.entries if e.line <= number <= e.end_line), None))
                for number, line in enumerate(self.text.splitlines(), start=1) if text in line]


def parse_fence_info(info: str) -> tuple[str, frozenset[str], dict[str, str]]:
    """`python` or pymdownx.superfences' `{.python requires-cuda title="x.py"}` -> lang, options, attrs."""
    info = info.strip()
    if not info.startswith("{"):
        words = info.split()
        return (words[0] if words else ""), frozenset(words[1:]), {}
    try:
        words = shlex.split(info.strip("{}"))
    except ValueError:
        words = info.strip("{}").split()
    lang = next((w[1:] for w in words if w.startswith(".")), "")
    rest = [w for w in words if not w.startswith(".")]
    return lang, frozenset(w for w in rest if "=" not in w), dict(w.split("=", 1) for w in rest if "=" in w)


_markdown = MarkdownIt("commonmark")


def markdown_tokens(text: str) -> list:
    """The project's one Markdown parser (CommonMark, as markdown-it-py reads it)."""
    return _markdown.parse(text)


def _blank_front_matter(text: str) -> str:
    """YAML front matter (`---` ... `---`) as blank lines: CommonMark would read it as a heading,
    and blank lines keep the line numbers."""
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return text
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return text
    return "\n" * (end + 1) + "\n".join(lines[end + 1:])


def parse_text(path: Path, text: str, lang: str) -> Page:
    labels = LABELS[lang]
    tokens = markdown_tokens(_blank_front_matter(text))
    entries: list[Entry] = []
    outside: list[Fence] = []
    sections: list[Section] = []
    entry: Entry | None = None
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            if entry is not None:
                entry.end_line = tok.map[0]
            title = tokens[i + 1].content
            entry = None  # any other heading ends the entry
            if tok.tag == "h2":
                m = HEADING_ID.search(title)
                sections.append(Section(tok.map[0] + 1, m.group(1) if m else None, HEADING_ID.sub("", title).strip()))
            if tok.tag == "h3":
                m = HEADING_ID.search(title)
                aliases = ALIASES.search(m.group(2)) if m else None
                words = SEARCH_WORDS.search(m.group(2)) if m else None
                entry = Entry(m.group(1) if m else None, HEADING_ID.sub("", title).strip(), tok.map[0] + 1, path, lang,
                              tuple(aliases.group(1).split()) if aliases else (), search_words=words.group(1) if words else "")
                entries.append(entry)
        elif tok.type == "fence":
            fence_lang, options, attrs = parse_fence_info(tok.info)
            fence = Fence(path, tok.map[0] + 1, fence_lang, options, attrs, tok.content, "prose", tok.map[1])
            if entry is None:
                outside.append(fence)
                continue
            if entry.example_marker_line is None:
                role = "stray" if entry.code_line else "code-line"
            elif fence.include:
                role = "include"
            elif fence_lang in RUNNABLE_LANGS:
                role = "example"
            else:
                role = "idle"
            entry.fences.append(Fence(path, fence.line, fence_lang, options, attrs, tok.content, role, tok.map[1]))
        elif tok.type == "inline" and entry is not None:
            content = tok.content.strip()
            if content in (f"**{labels['example']}**", labels["example"]):
                entry.example_marker_line = tok.map[0] + 1
            for key in ("mnemonic", "what", "prereq"):
                if content.startswith(labels[key]) and tokens[i - 1].type == "paragraph_open":
                    entry.fields.setdefault(key, tok.map[0] + 1)
    lines = tuple(text.splitlines())
    if entry is not None:
        entry.end_line = len(lines)
    for each in entries:
        each.lines = lines
    return Page(path, lang, entries, outside, text, sections=sections)


CELL_MARKER = re.compile(r"^# %%(.*)$", re.M)
RECIPE_TITLE = re.compile(r"^# # (.+)$", re.M)


def parse_recipe(path: Path, text: str, lang: str) -> Page:
    """A recipe: one entry, `recipe-<file name>`, whose example is the whole file."""
    title = RECIPE_TITLE.search(text)
    entry = Entry(f"recipe-{path.stem}", title.group(1).strip() if title else path.stem, 1, path, lang,
                  end_line=len(text.splitlines()), example_marker_line=1, lines=tuple(text.splitlines()))
    entry.fences.append(Fence(path, 0, "python", frozenset(), {}, text, "example", len(text.splitlines()) + 1))
    return Page(path, lang, [entry], [], text, kind="recipe")


def cells(text: str) -> list[str]:
    """The cell markers of a recipe, in order (`# %%`, `# %% [markdown]`)."""
    return [m.group(0).strip() for m in CELL_MARKER.finditer(text)]


@cache
def _parse_cached(path: Path, mtime_ns: int, lang: str) -> Page:
    text = path.read_text("utf-8")
    return parse_recipe(path, text, lang) if path.suffix == ".py" else parse_text(path, text, lang)


def parse_page(path: Path, lang: str) -> Page:
    path = Path(path).resolve()
    return _parse_cached(path, path.stat().st_mtime_ns, lang)


def site_lang(config) -> str:
    """The language of the site an MkDocs config builds: its docs folder (docs/zh, docs/en), else
    the theme's language. For the site plugin (cheatsheet/site/plugin.py)."""
    name = Path(config.docs_dir).name
    return name if name in LANGS else config.theme["language"]


def page_lang(path: Path, docs: Path) -> str | None:
    """The language (model/langs.py) of a page under docs/<lang>/."""
    try:
        rel = Path(path).resolve().relative_to(Path(docs).resolve())
    except ValueError:
        return None
    return rel.parts[0] if len(rel.parts) > 1 and rel.parts[0] in LANGS else None


def counterpart(path: Path, docs: Path, lang: str) -> Path:
    """The same page in the other language."""
    rel = Path(path).resolve().relative_to(Path(docs).resolve())
    return Path(docs).resolve() / lang / Path(*rel.parts[1:])


def page_kind(path: Path | str) -> str | None:
    """What a file under a language's docs is: "topic" (a Markdown page), "recipe" (recipes/NAME.py),
    or None (not a page). The one place a file's name says what it is."""
    path = Path(path)
    if path.suffix == ".md":
        return "topic"
    if path.suffix == ".py" and path.parent.name == "recipes":
        return "recipe"
    return None


def site_files(root: Path) -> list[Path]:
    """A language's pages: the Markdown pages and the recipes."""
    return sorted([*Path(root).rglob("*.md"), *(Path(root) / "recipes").glob("*.py")])


def site_pages(docs: Path, lang: str) -> list[Page]:
    return [parse_page(p, lang) for p in site_files(Path(docs) / lang)]


def comparable_code(fence: Fence) -> str:
    """The fence's code with comments removed (output lines kept) and blank lines dropped: what must
    be identical in both languages, and what a verification row vouches for."""
    if fence.lang == "python" and not fence.include:
        code = _strip_python_comments(fence.code)
    else:
        code = "\n".join(line for line in fence.code.splitlines() if not line.lstrip().startswith("#") or OUTPUT_LINE.match(line))
    lines = [line.rstrip() for line in code.splitlines()]
    return "\n".join(line for line in lines if line.strip())


@cache  # a pure function of the text, asked for every entry by every verdict of a build
def _strip_python_comments(code: str) -> str:
    import io
    import tokenize

    try:
        kept = [t for t in tokenize.generate_tokens(io.StringIO(code).readline)
                if t.type != tokenize.COMMENT or OUTPUT_LINE.match(t.string)]
        return tokenize.untokenize(kept)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return code
