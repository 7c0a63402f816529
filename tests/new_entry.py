"""Create a new entry's stub in both languages, at the same place on both pages.

    python tests/new_entry.py PAGE ENTRY-ID [--after OTHER-ID]

PAGE is the page name without .md (e.g. gpu-memory); a new page is created in both languages.
The entry goes after OTHER-ID, or at the end of the page. The stub is full of TODO markers:
`python tests/entry_format.py` reports each one (ENTRY010) until it is filled in.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from entry_format import ID_FORMAT, LABELS, ROOT, display, parse_page  # noqa: E402

PAGE_STUB = {"zh": "# TODO 页面标题\n\nTODO 一句话介绍本页；代码行默认已 `import torch`。\n", "en": "# TODO page title\n\nTODO one sentence on this page; code lines assume `import torch`.\n"}
TITLE = {"zh": "TODO 用中文写出要完成的任务", "en": "TODO the task, in words people search for"}
FIELD_TEXT = {
    "mnemonic": {"zh": "TODO 英文 API 名字的含义", "en": "TODO what the API names mean"},
    "what": {"zh": "TODO 作用、注意事项、从哪个版本起", "en": "TODO what it does, caveats, since which version"},
    "prereq": {"zh": "TODO 先要有什么：变量、设备、版本", "en": "TODO what must exist first: names, devices, versions"},
}


def stub(lang: str, entry_id: str) -> str:
    labels = LABELS[lang]
    space = " " if lang == "en" else ""  # "Mnemonic: text", but "助记：文字"
    fields = "\n".join(f"- {labels[key]}{space}{FIELD_TEXT[key][lang]}" for key in ("mnemonic", "what", "prereq"))
    return (
        f"### {TITLE[lang]} {{ #{entry_id} }}\n\n"
        "```python\n...  # TODO the line a reader copies\n```\n\n"
        f"{fields}\n\n"
        f"**{labels['example']}**\n\n"
        "```python\nimport torch\n\nprint(...)  # TODO a complete example that prints its result\n"
        "#> TODO the real output: run tests/fill_output.py\n```\n"
    )


def insert(path: Path, lang: str, entry_id: str, after: str | None) -> int:
    """Insert the stub into the page; return the line number of its heading."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(PAGE_STUB[lang], "utf-8")
    page = parse_page(path, lang)
    ids = [e.id for e in page.entries]
    if entry_id in ids:
        sys.exit(f"{path}: entry `{entry_id}` already exists")
    lines = path.read_text("utf-8").rstrip("\n").split("\n")
    if after is None:
        at = len(lines)
    elif after in ids:
        at = page.entries[ids.index(after)].end_line
        while at > 0 and not lines[at - 1].strip():
            at -= 1  # keep one blank line before the next heading
    else:
        sys.exit(f"{path}: no entry `{after}` to insert after")
    block = stub(lang, entry_id).rstrip("\n").split("\n")
    lines[at:at] = ["", *block]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return at + 2


def main(argv: list[str] | None = None, docs: Path = ROOT / "docs") -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", help="page name without .md, e.g. gpu-memory")
    parser.add_argument("entry_id", help="lowercase-kebab-case English id, e.g. cuda-empty-cache")
    parser.add_argument("--after", help="id of the entry the new one follows (default: end of page)")
    args = parser.parse_args(argv)
    if not ID_FORMAT.match(args.entry_id):
        sys.exit(f"id `{args.entry_id}` must be lowercase words joined by hyphens, e.g. cuda-empty-cache")
    for lang in ("zh", "en"):
        for other in (docs / lang).rglob("*.md"):
            if args.entry_id in [e.id for e in parse_page(other, lang).entries]:
                sys.exit(f"{display(other)}: id `{args.entry_id}` is already used; ids are unique across the site")
    for lang in ("zh", "en"):
        path = docs / lang / f"{args.page}.md"
        new_page = not path.exists()
        line = insert(path, lang, args.entry_id, args.after)
        print(f"{display(path)}:{line}: stub for `{args.entry_id}`" + (" (new page: add it to the nav in mkdocs.yml / mkdocs.en.yml)" if new_page else ""))
    print("Next: fill in every TODO, then run `python tests/fill_output.py docs/zh/"
          f"{args.page}.md {args.entry_id}` and `python tests/entry_format.py`.")


if __name__ == "__main__":
    main()
