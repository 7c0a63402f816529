"""`python -m cheatsheet new PAGE ENTRY-ID [--after OTHER-ID]`: an entry's stub in both languages,
at the same place on both pages. `python -m cheatsheet new-recipe NAME`: a recipe's stub
(docs/<lang>/recipes/NAME.py) in both languages.

PAGE is the page name without .md (e.g. gpu-memory); a new page is created in both languages.
The entry goes after OTHER-ID, or at the end of the page. The stub is full of TODO markers, which
the checker reports (ENTRY010) until each is replaced.
"""

from __future__ import annotations

from pathlib import Path

from cheatsheet import display
from cheatsheet.model.edits import PageEdits
from cheatsheet.model.langs import LABELS, LANGS, wording
from cheatsheet.model.pages import ID_FORMAT, parse_page, site_files

PAGE_STUB = {
    "zh": "# TODO 页面标题\n\nTODO 一句话介绍本页；代码行默认已 `import torch`。\n",
    "en": "# TODO page title\n\nTODO one sentence on this page; code lines assume `import torch`.\n",
}
TITLE = {"zh": "TODO 用中文写出要完成的任务", "en": "TODO the task, in words people search for"}
FIELD_TEXT = {
    "mnemonic": {"zh": "TODO 英文 API 名字的含义", "en": "TODO what the API names mean"},
    "what": {"zh": "TODO 作用、注意事项、从哪个版本起", "en": "TODO what it does, caveats, since which version"},
    "prereq": {"zh": "TODO 先要有什么：变量、设备、版本", "en": "TODO what must exist first: names, devices, versions"},
}


# A recipe: a jupytext "percent" script. Same cells and code in both languages; the Markdown cells
# and the comments are translated.
RECIPE_STUB = {
    "zh": """\
# %% [markdown]
# # TODO 实战标题：这个程序完成什么
#
# TODO 两三句话：程序做什么，读者学到什么，在 CPU 上运行多久，用到哪些条目（链接，如
# [梯度累积](../training.md#gradient-accumulation)）。
#
# ## TODO 第一步：准备数据和模型
#
# TODO 这一步为什么这样做。

# %%
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device.type in ("cpu", "cuda"))  # TODO 打印能证明这一步结论的结果
#> TODO the real output: `python -m cheatsheet fill` writes it

# %% [markdown]
# ## TODO 第二步
#
# TODO 说明。

# %%
print("TODO")
""",
    "en": """\
# %% [markdown]
# # TODO recipe title: what this program does
#
# TODO two or three sentences: what the program does, what the reader learns, how long it runs
# on CPU, which entries it uses (links, e.g. [gradient accumulation](../training.md#gradient-accumulation)).
#
# ## TODO Step one: data and model
#
# TODO why this step is done this way.

# %%
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device.type in ("cpu", "cuda"))  # TODO print what proves this step's point
#> TODO the real output: `python -m cheatsheet fill` writes it

# %% [markdown]
# ## TODO Step two
#
# TODO explain.

# %%
print("TODO")
""",
}


class ScaffoldError(Exception):
    pass


def stub(lang: str, entry_id: str) -> str:
    labels = LABELS[lang]
    # "Mnemonic: text", but "助记：文字" (a full-width colon carries its own space)
    fields = "\n".join(f"- {labels[key]}{'' if labels[key].endswith('：') else ' '}{wording(FIELD_TEXT[key], lang)}"
                       for key in ("mnemonic", "what", "prereq"))
    return (
        f"### {wording(TITLE, lang)} {{ #{entry_id} }}\n\n"
        "```python\n...  # TODO the line a reader copies\n```\n\n"
        f"{fields}\n\n"
        f"**{labels['example']}**\n\n"
        "```python\nimport torch\n\nprint(...)  # TODO a complete example that prints its result\n"
        "#> TODO the real output: `python -m cheatsheet fill` writes it\n```\n"
    )


def insert(edits: PageEdits, path: Path, lang: str, entry_id: str, after: str | None) -> int:
    """Add the stub's insertion into the page to `edits`; return the line number of its heading."""
    if not path.exists():
        edits.create(path, wording(PAGE_STUB, lang) + "\n" + stub(lang, entry_id))
        return len(wording(PAGE_STUB, lang).split("\n")) + 1
    page = parse_page(path, lang)
    ids = [e.id for e in page.entries]
    lines = path.read_text("utf-8").rstrip("\n").split("\n")
    if after is None:
        at = len(lines)
    elif after in ids:
        at = page.entries[ids.index(after)].end_line
        while at > 0 and not lines[at - 1].strip():
            at -= 1  # keep one blank line before the next heading
    else:
        raise ScaffoldError(f"{display(path)}: no entry `{after}` to insert after")
    edits.insert(path, at, "\n" + stub(lang, entry_id).rstrip("\n"), f"the stub of `{entry_id}`")
    return at + 2


def new_entry(docs: Path, page: str, entry_id: str, after: str | None = None) -> list[str]:
    """Write the stub into docs/zh/PAGE.md and docs/en/PAGE.md; returns what it did."""
    if not ID_FORMAT.match(entry_id):
        raise ScaffoldError(f"id `{entry_id}` must be lowercase words joined by hyphens, e.g. cuda-empty-cache")
    for lang in LANGS:
        for other in site_files(docs / lang):
            if entry_id in [e.id for e in parse_page(other, lang).entries]:
                raise ScaffoldError(f"{display(other)}: id `{entry_id}` is already used; ids are unique across the site")
    done, edits = [], PageEdits()
    for lang in LANGS:
        path = docs / lang / f"{page}.md"
        new_page = not path.exists()
        line = insert(edits, path, lang, entry_id, after)
        done.append(f"{display(path)}:{line}: stub for `{entry_id}`"
                    + (" (new page: add it to the nav in mkdocs.yml; the other languages' navs follow it)" if new_page else ""))
    edits.write()
    done.append(f"Next: replace every TODO, then `python -m cheatsheet fill docs/zh/{page}.md {entry_id}` "
                "and `python -m cheatsheet check`.")
    return done


def new_recipe(docs: Path, name: str) -> list[str]:
    """Write the recipe stub into docs/zh/recipes/NAME.py and docs/en/recipes/NAME.py."""
    if not ID_FORMAT.match(name):
        raise ScaffoldError(f"recipe name `{name}` must be lowercase words joined by hyphens, e.g. training-run")
    paths = [docs / lang / "recipes" / f"{name}.py" for lang in LANGS]
    for path in paths:
        if path.exists():
            raise ScaffoldError(f"{display(path)} already exists")
    done, edits = [], PageEdits()
    for lang, path in zip(LANGS, paths):
        edits.create(path, wording(RECIPE_STUB, lang))
        done.append(f"{display(path)}:1: recipe stub")
    edits.write()
    done.append(f"Next: add recipes/{name}.py to the nav of mkdocs.yml (the other languages' navs follow it), "
                f"replace every TODO, then `python -m cheatsheet fill docs/zh/recipes/{name}.py` "
                "and `python -m cheatsheet check`.")
    return done
