"""Parse cheat-sheet pages into entries and check them against the entry format.

Used by the pytest plugin (conftest.py) and runnable on its own:

    python tests/entry_format.py            # check docs/zh against docs/en

Every rule has a stable code; a violation prints as
`file:line: [entry-id] CODE message. How to fix.`
"""

from __future__ import annotations

import ast
import importlib
import io
import re
import shlex
import sys
import tokenize
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt
from pytest_markdown_docs.plugin import parse_superfences_block_info

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"

# Field labels and the example marker, per language.
LABELS = {
    "zh": {
        "mnemonic": "助记：",
        "what": "作用：",
        "prereq": "使用前提：",
        "example": "解释性示例：",
    },
    "en": {
        "mnemonic": "Mnemonic:",
        "what": "What it does:",
        "prereq": "Prerequisites:",
        "example": "Example:",
    },
}
REQUIRED_FIELDS = ("mnemonic", "prereq")

PYTHON_LANGS = {"python", "py", "python3"}
SHELL_LANGS = {"bash", "sh", "shell", "console"}
# Fence options the harness understands; anything else is a typo.
FENCE_OPTIONS = {"requires-cuda", "notest"}
FENCE_ATTRS = {"title"}

# Output lines: `#>` on every device, `#cpu>` / `#cuda>` only on that one.
OUTPUT_LINE = re.compile(r"^\s*#(cpu|cuda)?>(?: (.*)|$)")
SNIPPET_INCLUDE = re.compile(r'^\s*-{1,2}8<-{1,2}\s+"([^"]+)"\s*$')
HEADING_ID = re.compile(r"\{\s*#([^\s}]+)\s*\}\s*$")
PLACEHOLDER = "TODO"
ID_FORMAT = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

# Imports a code line may take for granted (the pages say so at the top).
DEFAULT_ALIASES = {
    "torch": "torch",
    "nn": "torch.nn",
    "F": "torch.nn.functional",
}
# Deprecated spellings that still resolve, so the name check alone would not catch them.
DEPRECATED = {
    "torch.cuda.amp.autocast": 'torch.autocast(device_type="cuda")',
    "torch.cuda.amp.GradScaler": 'torch.amp.GradScaler("cuda")',
    "torch.cpu.amp.autocast": 'torch.autocast(device_type="cpu")',
    "torch.cuda.amp.custom_fwd": 'torch.amp.custom_fwd(device_type="cuda")',
    "torch.cuda.amp.custom_bwd": 'torch.amp.custom_bwd(device_type="cuda")',
}

RULES = {
    "ENTRY001": "entry heading has no explicit id",
    "ENTRY002": "entry id is not lowercase-kebab-case",
    "ENTRY003": "entry id is used twice",
    "ENTRY004": "entry has no code line",
    "ENTRY005": "entry lacks a required field",
    "ENTRY006": "entry has no example",
    "ENTRY007": "example shows no output",
    "ENTRY008": "unknown fence option",
    "ENTRY009": "fence in an unexpected place",
    "ENTRY010": "placeholder text left in an entry",
    "PAIR001": "page exists in one language only",
    "PAIR002": "entry ids differ between languages",
    "PAIR003": "code differs between languages",
    "CODE001": "code does not parse",
    "CODE002": "torch name does not exist",
    "CODE003": "deprecated API",
    "CODE004": "snippet file missing",
}


@dataclass
class Fence:
    lang: str
    options: set[str]
    attrs: dict[str, str]
    code: str
    line: int  # 1-based line of the opening ``` in the file
    path: Path

    @property
    def is_python(self) -> bool:
        return self.lang in PYTHON_LANGS

    @property
    def is_shell(self) -> bool:
        return self.lang in SHELL_LANGS

    @property
    def snippet(self) -> str | None:
        """Name of the snippets/ file this fence includes, if it is an include."""
        m = SNIPPET_INCLUDE.match(self.code.strip())
        return m.group(1) if m else None

    @property
    def requires_cuda(self) -> bool:
        return "requires-cuda" in self.options

    def expected_output(self, device: str) -> list[str]:
        """The `#>` lines that apply to a run on `device` ("cpu" or "cuda")."""
        lines = []
        for line in self.code.splitlines():
            m = OUTPUT_LINE.match(line)
            if m and m.group(1) in (None, device):
                lines.append(m.group(2) or "")
        return lines

    @property
    def has_output(self) -> bool:
        return any(OUTPUT_LINE.match(line) for line in self.code.splitlines())


@dataclass
class Entry:
    id: str | None
    title: str
    line: int
    path: Path
    end_line: int = 0  # last line of the entry in the file
    fields: dict[str, int] = field(default_factory=dict)  # field key -> line
    code_line: Fence | None = None
    example_marker_line: int | None = None
    examples: list[Fence] = field(default_factory=list)
    stray_fences: list[Fence] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.id or f"(no id: {self.title})"


@dataclass
class Page:
    path: Path
    lang: str
    entries: list[Entry]
    fences: list[Fence]  # every fence on the page, entries or not

    def fence_at(self, line: int) -> tuple[Entry | None, Fence | None]:
        for entry in self.entries:
            for fence in [entry.code_line, *entry.examples, *entry.stray_fences]:
                if fence is not None and fence.line == line:
                    return entry, fence
        for fence in self.fences:
            if fence.line == line:
                return None, fence
        return None, None


@dataclass
class Violation:
    path: Path
    line: int
    entry_id: str
    code: str
    message: str

    def __str__(self) -> str:
        return f"{display(self.path)}:{self.line}: [{self.entry_id}] {self.code} {self.message}"


def display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


_parser = MarkdownIt("commonmark")


@cache
def _parse_cached(path: Path, mtime: float, lang: str) -> Page:
    return _parse(path, path.read_text("utf-8"), lang)


def parse_page(path: Path, lang: str) -> Page:
    path = Path(path).resolve()
    return _parse_cached(path, path.stat().st_mtime, lang)


def _parse(path: Path, text: str, lang: str) -> Page:
    labels = LABELS[lang]
    tokens = _parser.parse(text)
    entries: list[Entry] = []
    fences: list[Fence] = []
    entry: Entry | None = None
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            if entry is not None:
                entry.end_line = tok.map[0]
            title = tokens[i + 1].content
            if tok.tag == "h3":
                m = HEADING_ID.search(title)
                entry = Entry(
                    id=m.group(1) if m else None,
                    title=HEADING_ID.sub("", title).strip(),
                    line=tok.map[0] + 1,
                    path=path,
                )
                entries.append(entry)
            else:
                entry = None  # a section heading ends the entry
        elif tok.type == "fence":
            info = parse_superfences_block_info(tok.info)
            fence = Fence(
                lang=(info[0] if info else "").lower(),
                options={o for o in info[1:] if "=" not in o},
                attrs=dict(o.split("=", 1) for o in info[1:] if "=" in o),
                code=tok.content,
                line=tok.map[0] + 1,
                path=path,
            )
            fences.append(fence)
            if entry is None:
                continue
            if entry.example_marker_line is not None:
                entry.examples.append(fence)
            elif entry.code_line is None:
                entry.code_line = fence
            else:
                entry.stray_fences.append(fence)
        elif tok.type == "inline" and entry is not None:
            content = tok.content.strip()
            if content in (f"**{labels['example']}**", labels["example"]):
                entry.example_marker_line = tok.map[0] + 1
            for key in ("mnemonic", "what", "prereq"):
                if content.startswith(labels[key]) and tokens[i - 1].type == "paragraph_open":
                    entry.fields.setdefault(key, tok.map[0] + 1)
    if entry is not None:
        entry.end_line = len(text.splitlines())
    return Page(path=path, lang=lang, entries=entries, fences=fences)


# --- code checks -------------------------------------------------------------


def _resolve(dotted: str):
    """Return the object at a dotted torch path, importing submodules as needed."""
    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=1):
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:
            obj = importlib.import_module(".".join(parts[: i + 1]))
        except ImportError:
            raise AttributeError(dotted) from None
    return obj


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def torch_names(tree: ast.AST, aliases: dict[str, str] | None = None) -> list[tuple[str, int]]:
    """Dotted torch names used in `tree`, with their line numbers, aliases expanded."""
    aliases = dict(aliases or {})
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "torch":
                    found.append((a.name, node.lineno))
                    if a.asname:
                        aliases[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "torch":
            for a in node.names:
                found.append((f"{node.module}.{a.name}", node.lineno))
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    outermost = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in outermost:
            # Mark inner attributes so each chain is reported once, at its full length.
            inner = node.value
            while isinstance(inner, ast.Attribute):
                outermost.add(id(inner))
                inner = inner.value
            name = _dotted(node)
            if name is None:
                continue
            root, _, rest = name.partition(".")
            if root in aliases:
                found.append((f"{aliases[root]}.{rest}", node.lineno))
    return found


def check_python_code(fence: Fence, aliases: dict[str, str] | None = None) -> list[tuple[int, str, str]]:
    """(line, rule code, message) for a Python fence that must parse and use real torch names."""
    code = fence.code
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        line = fence.line + (e.lineno or 1)
        return [(line, "CODE001", f"Python does not parse: {e.msg}. Fix the syntax; a code line must be valid Python on its own (indent a `with` body, close brackets).")]
    problems = []
    for name, lineno in torch_names(tree, aliases):
        line = fence.line + lineno
        for bad, good in DEPRECATED.items():
            if name == bad or name.startswith(bad + "."):
                problems.append((line, "CODE003", f"`{name}` is deprecated. Use `{good}` instead."))
                break
        else:
            try:
                _resolve(name)
            except (AttributeError, ImportError):
                problems.append((line, "CODE002", f"`{name}` does not exist in the installed PyTorch {_torch_version()}. Check the spelling against the PyTorch docs, or use the current name."))
    return problems


def check_shell_code(fence: Fence) -> list[tuple[int, str, str]]:
    for offset, line in enumerate(fence.code.splitlines(), start=1):
        if line.strip().startswith("#"):
            continue
        try:
            shlex.split(line)
        except ValueError as e:
            return [(fence.line + offset, "CODE001", f"shell line does not parse: {e}. Close the quotes.")]
    return []


def check_snippet(fence: Fence) -> list[tuple[int, str, str]]:
    name = fence.snippet
    path = SNIPPETS / name
    if not path.is_file():
        return [(fence.line, "CODE004", f'snippets/{name} does not exist. Add the file to snippets/ or fix the name in `--8<-- "{name}"`.')]
    included = Fence("python", set(), {}, path.read_text("utf-8"), 0, path)
    return check_python_code(included)


def _torch_version() -> str:
    import torch

    return torch.__version__


def check_code_line(fence: Fence) -> list[tuple[int, str, str]]:
    if fence.is_python:
        return check_python_code(fence, DEFAULT_ALIASES)
    if fence.is_shell:
        return check_shell_code(fence)
    return []


def comparable_code(fence: Fence) -> str:
    """The fence's code without comments (output lines kept) and trailing blanks."""
    if fence.is_python and not fence.snippet:
        try:
            out = []
            for tok in tokenize.generate_tokens(io.StringIO(fence.code).readline):
                if tok.type == tokenize.COMMENT and not OUTPUT_LINE.match(tok.string):
                    continue
                out.append(tok)
            code = tokenize.untokenize(out)
        except (tokenize.TokenError, SyntaxError, IndentationError):
            code = fence.code
    else:
        code = "\n".join(
            line for line in fence.code.splitlines()
            if not line.lstrip().startswith("#") or OUTPUT_LINE.match(line)
        )
    lines = [line.rstrip() for line in code.splitlines()]
    return "\n".join(line for line in lines if line)


# --- entry checks ------------------------------------------------------------


def check_page(page: Page) -> list[Violation]:
    labels = LABELS[page.lang]
    out: list[Violation] = []

    def add(line, entry, code, message):
        out.append(Violation(page.path, line, entry.label if entry else "-", code, message))

    reported = set()
    for number, line in enumerate(page.path.read_text("utf-8").splitlines(), start=1):
        owner = next((e for e in page.entries if e.line <= number <= e.end_line), None)
        if PLACEHOLDER in line and id(owner) not in reported:
            reported.add(id(owner))  # the first placeholder per entry (or per page intro) is enough
            add(number, owner, "ENTRY010", f"placeholder `{PLACEHOLDER}` left here. Replace it with the real text or code (tests/new_entry.py writes these into new stubs).")
    for entry in page.entries:
        if entry.id is None:
            add(entry.line, entry, "ENTRY001", "the ### heading has no explicit id. End it with `{ #task-in-english }`, and use the same id on the other language's page.")
        elif not ID_FORMAT.match(entry.id):
            add(entry.line, entry, "ENTRY002", f"id `{entry.id}` must be lowercase words joined by hyphens, e.g. `cuda-empty-cache`.")
        if entry.code_line is None:
            add(entry.line, entry, "ENTRY004", "no code line. Put the line a reader copies in a ```python fence right under the heading.")
        for key in REQUIRED_FIELDS:
            if key not in entry.fields:
                add(entry.line, entry, "ENTRY005", f'missing field "{labels[key]}". Add a bullet `- {labels[key]}...` under the code line.')
        if entry.example_marker_line is None or not entry.examples:
            add(entry.line, entry, "ENTRY006", f"no example. Add a paragraph `**{labels['example']}**` followed by a complete ```python example that prints its result.")
        elif not any(f.has_output or f.snippet for f in entry.examples):
            add(entry.examples[0].line, entry, "ENTRY007", f"the example shows no output. Print a result; `python tests/fill_output.py docs/zh/{page.path.name} {entry.label}` writes what it prints as `#> ` lines.")
        for fence in entry.stray_fences:
            add(fence.line, entry, "ENTRY009", f"a second fence before `**{labels['example']}**`. An entry has one code-line fence; move this one below the example marker.")
        for fence in filter(None, [entry.code_line, *entry.examples]):
            unknown = (fence.options - FENCE_OPTIONS) | (set(fence.attrs) - FENCE_ATTRS)
            if unknown:
                add(fence.line, entry, "ENTRY008", f"unknown fence option(s) {sorted(unknown)}. Known: {sorted(FENCE_OPTIONS | FENCE_ATTRS)}.")
            if "notest" in fence.options and not fence.snippet:
                add(fence.line, entry, "ENTRY008", "`notest` is only for fences that include a snippets/ file. Examples must run; mark CUDA-only ones `requires-cuda`.")
        if entry.code_line is not None:
            for line, code, message in check_code_line(entry.code_line):
                add(line, entry, code, message)
        for fence in entry.examples:
            if fence.snippet:
                problems = check_snippet(fence)
            elif fence.is_shell:
                problems = check_shell_code(fence)
            else:
                continue  # examples are executed, which checks them fully
            for line, code, message in problems:
                add(line, entry, code, message)
    return out


def check_pair(zh: Page | None, en: Page | None, zh_path: Path, en_path: Path) -> list[Violation]:
    if zh is None or en is None:
        missing, present = (zh_path, en_path) if zh is None else (en_path, zh_path)
        return [Violation(present, 1, "-", "PAIR001", f"{display(missing)} does not exist. Every page needs both languages at the same relative path; translate this page there.")]
    out: list[Violation] = []
    zh_ids = [e.label for e in zh.entries]
    en_ids = [e.label for e in en.entries]
    for entry in zh.entries:
        if entry.label not in en_ids:
            out.append(Violation(zh.path, entry.line, entry.label, "PAIR002", f"entry is missing from {display(en.path)}. Add it there with the same id and code."))
    for entry in en.entries:
        if entry.label not in zh_ids:
            out.append(Violation(en.path, entry.line, entry.label, "PAIR002", f"entry is missing from {display(zh.path)}. Add it there with the same id and code."))
    common_zh = [i for i in zh_ids if i in en_ids]
    common_en = [i for i in en_ids if i in zh_ids]
    if common_zh != common_en:
        first = next(a for a, b in zip(common_zh, common_en) if a != b)
        entry = next(e for e in en.entries if e.label == first)
        out.append(Violation(en.path, entry.line, first, "PAIR002", f"entries are in a different order than in {display(zh.path)}. Order them as the Chinese page does."))
    en_by_id = {e.label: e for e in en.entries}
    for z in zh.entries:
        e = en_by_id.get(z.label)
        if e is None:
            continue
        z_fences = [f for f in [z.code_line, *z.examples] if f]
        e_fences = [f for f in [e.code_line, *e.examples] if f]
        if len(z_fences) != len(e_fences):
            out.append(Violation(e.path, e.line, e.label, "PAIR003", f"{len(e_fences)} fences here, {len(z_fences)} in {display(z.path)}. Both languages show the same code."))
            continue
        for zf, ef in zip(z_fences, e_fences):
            if comparable_code(zf) != comparable_code(ef) or zf.options != ef.options or zf.lang != ef.lang:
                out.append(Violation(ef.path, ef.line, e.label, "PAIR003", f"code differs from {display(zf.path)}:{zf.line}. Only comments may differ between languages; copy the code and `#>` lines across."))
    return out


def check_site(zh_root: Path, en_root: Path) -> list[Violation]:
    zh_root, en_root = Path(zh_root), Path(en_root)
    rel = sorted({p.relative_to(zh_root) for p in zh_root.rglob("*.md")} | {p.relative_to(en_root) for p in en_root.rglob("*.md")})
    out: list[Violation] = []
    seen: dict[str, dict[str, Entry]] = {"zh": {}, "en": {}}
    for r in rel:
        pages = {}
        for lang, root in (("zh", zh_root), ("en", en_root)):
            p = root / r
            pages[lang] = parse_page(p, lang) if p.exists() else None
            if pages[lang] is None:
                continue
            out += check_page(pages[lang])
            for entry in pages[lang].entries:
                if entry.id is None:
                    continue
                if entry.id in seen[lang]:
                    first = seen[lang][entry.id]
                    out.append(Violation(entry.path, entry.line, entry.id, "ENTRY003", f"id already used at {display(first.path)}:{first.line}. Ids are unique across the site; pick another."))
                else:
                    seen[lang][entry.id] = entry
        out += check_pair(pages["zh"], pages["en"], zh_root / r, en_root / r)
    return out


def main(argv: list[str]) -> int:
    zh_root = Path(argv[0]) if argv else ROOT / "docs" / "zh"
    en_root = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "en"
    violations = check_site(zh_root, en_root)
    for v in violations:
        print(v)
    zh_count = sum(len(parse_page(p, "zh").entries) for p in zh_root.rglob("*.md"))
    en_count = sum(len(parse_page(p, "en").entries) for p in en_root.rglob("*.md"))
    print(f"{zh_count} entries in {display(zh_root)}, {en_count} in {display(en_root)}, {len(violations)} problem(s)")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
