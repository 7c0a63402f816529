"""`python -m cheatsheet lint-zh [--fix]`: Chinese copywriting in docs/zh and snippets/*.md.

* AutoCorrect: spacing and punctuation between CJK and Latin text (`--fix` rewrites them). Code
  blocks are skipped, except the comments inside them; a line that must stay as it is can be
  excluded with `<!-- autocorrect-disable-next-line -->` above it.
* The glossary's preferred terms (the "统一用词" table in snippets/glossary.md): in prose and code
  comments, not in code, backquotes, output lines or mnemonics. These need rewording by hand.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from cheatsheet import display
from cheatsheet.model.edits import PageEdits
from cheatsheet.model.pages import OUTPUT_LINE, markdown_tokens, page_kind, site_files
from cheatsheet.project import repo

PROJECT = repo()


def files(docs: Path = PROJECT.docs, snippets: Path = PROJECT.snippets) -> list[Path]:
    return sorted([*site_files(docs / "zh"), *snippets.glob("*.md")])


def _kind(path: Path) -> str:
    return "python" if page_kind(path) == "recipe" else "markdown"  # a recipe's text is in its comments


def problems(paths: list[Path] | None = None) -> list[str]:
    import autocorrect_py

    found = []
    terms = preferred_terms()
    for path in paths or files():
        text = path.read_text("utf-8")
        for line in autocorrect_py.lint_for(text, _kind(path)).lines:
            found.append(f"{display(path, PROJECT.root)}:{line.line}:{line.col}: {line.old.strip()!r} -> {line.new.strip()!r}")
        if path.name != "glossary.md":
            found += [f"{display(path, PROJECT.root)}:{line}: {avoid!r} -> {use!r} (glossary: preferred terms)"
                      for line, avoid, use in vocabulary(text if _kind(path) == "markdown" else f"```python\n{text}```\n",
                                                         terms, offset=-1 if _kind(path) == "python" else 0)]
    return found


def preferred_terms(glossary: Path = PROJECT.snippets / "glossary.md") -> list[tuple[str, str]]:
    """(use, avoid) pairs from the table after the "统一用词" heading of the glossary."""
    text = glossary.read_text("utf-8")
    table = text[text.index("统一用词"):] if "统一用词" in text else ""
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in table.splitlines() if line.startswith("|")]
    return [(row[0], row[1]) for row in rows[2:] if len(row) >= 2]


def vocabulary(text: str, terms: list[tuple[str, str]], offset: int = 0) -> list[tuple[int, str, str]]:
    """(line, avoided word, preferred word) in the page's prose and code comments. A recipe is
    checked as one python fence (`offset` corrects the line numbers for that wrapping)."""
    found = []

    def check(line: int, chunk: str) -> None:
        for use, avoid in terms:
            # Allowed: the original in brackets after the Chinese word, "轮（epoch）", `code`, a
            # heading's `{ #id }`, and a link's target (a recipe's comments hold Markdown links).
            chunk_ok = re.sub(r"`[^`]*`|\{\s*#[^}]*\}|\]\([^)]*\)", "]", chunk.replace(f"（{avoid}）", ""))
            pattern = rf"(?<![A-Za-z_]){re.escape(avoid)}(?![A-Za-z_])" if avoid.isascii() else re.escape(avoid)
            if re.search(pattern, chunk_ok):
                found.append((line + offset, avoid, use))

    for tok in markdown_tokens(text):
        if tok.type == "inline" and not tok.content.startswith("助记："):
            prose = "".join(child.content for child in tok.children or [] if child.type == "text")
            check(tok.map[0] + 1, prose)
        elif tok.type == "fence" and tok.info.strip().strip("{}.").split()[:1] == ["python"]:
            try:
                for t in tokenize.generate_tokens(io.StringIO(tok.content).readline):
                    if t.type == tokenize.COMMENT and not OUTPUT_LINE.match(t.string):
                        check(tok.map[0] + 1 + t.start[0], t.string)
            except (tokenize.TokenError, SyntaxError):
                pass
    return found


def fix(paths: list[Path] | None = None) -> list[str]:
    import autocorrect_py

    fixed, edits = [], PageEdits()
    for path in paths or files():
        text = path.read_text("utf-8")
        new = autocorrect_py.format_for(text, _kind(path))
        if new != text:
            edits.replace_file(path, new, "AutoCorrect's fix")
            fixed.append(f"fixed {display(path)}")
    edits.write()
    return fixed
