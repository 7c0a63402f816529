"""The site's languages, declared once: one row per language, in order. The first is the source
language: the default site, at the root, built from mkdocs.yml; its pages are the ones the tests
run and the record names, and every other language's pages follow it (same ids, same code). Every
other language's site is derived from mkdocs.yml and its row (cheatsheet/site/languages.py) and
served below the root at its URL prefix.

Adding a language is adding its row here and its pages under docs/<code>/
(tests/test_languages.py builds a third one that way)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class Language:
    code: str  # docs/<code>/, the theme's language, hreflang
    name: str  # in the language switch
    url_prefix: str  # where its site is served below the source's root ("" for the source)
    labels: Mapping[str, str]  # the words an entry's fields begin with, and the example marker
    # The rest is for a language other than the source, whose own are in mkdocs.yml: its site's
    # name and description, Material's search settings, the colour toggle's words per scheme,
    # and the nav's titles (a section by its title in mkdocs.yml, a page by its file; a page left
    # out is titled by its own heading).
    site_name: str = ""
    site_description: str = ""
    search: Mapping[str, str] = field(default_factory=dict)
    toggle: Mapping[str, str] = field(default_factory=dict)
    nav: Mapping[str, str] = field(default_factory=dict)
    strings: str = ""  # whose words the site's code adds to a page (site/strings.py) until it has its own
    # Characters that mark a query as written in this language (`find`, the MCP server answer in
    # it); a query in none of the rows' scripts is in the first language without one.
    script: str = ""


LANGUAGES: tuple[Language, ...] = (
    Language(
        code="zh", name="中文", url_prefix="", script="[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]",
        labels={"mnemonic": "助记：", "what": "作用：", "prereq": "使用前提：", "example": "解释性示例："},
    ),
    Language(
        code="en", name="English", url_prefix="en/",
        labels={"mnemonic": "Mnemonic:", "what": "What it does:", "prereq": "Prerequisites:", "example": "Example:"},
        site_name="PyTorch Cheat Sheet",
        site_description="A PyTorch cheat sheet whose every example runs in the tests",
        # Material's search box highlights the words a result link names (?h=); the separator
        # only splits those.
        search={"lang": "en", "separator": r'[\s\-,:!=\[\]()"`/]+|\.(?!\d)|&[lg]t;'},
        toggle={"default": "Switch to dark mode", "slate": "Switch to light mode"},
        nav={
            "index.md": "Home",
            "张量": "Tensors",
            "设备与显存": "Devices and memory",
            "模型与求导": "Models and autograd",
            "训练": "Training",
            "性能、调试与部署": "Performance, debugging, deployment",
            "常见报错": "Common errors",
            "errors-tensors.md": "Shapes, dtypes and indexing",
            "errors-autograd.md": "Autograd and optimizers",
            "errors-modules.md": "Layers and losses",
            "errors-data-saving.md": "Data loading, saving and loading",
            "实战": "Recipes",
            "参与贡献": "Contributing",
        },
    ),
)

BY_CODE = MappingProxyType({language.code: language for language in LANGUAGES})
LANGS = tuple(BY_CODE)
SOURCE, OTHERS = LANGS[0], LANGS[1:]
URL_PREFIX = MappingProxyType({language.code: language.url_prefix for language in LANGUAGES})
LABELS = MappingProxyType({language.code: dict(language.labels) for language in LANGUAGES})
# The language of a query in no row's script, and of an answer asked for in none.
UNMARKED = next(language.code for language in LANGUAGES if not language.script)


def query_language(query: str) -> str:
    """The language a query is written in, by its characters (`script`)."""
    return next((lang.code for lang in LANGUAGES if lang.script and re.search(lang.script, query)), UNMARKED)


def wording(table: Mapping[str, object], code: str):
    """A language's entry in a table of words kept per language (the site's strings, the scaffold's
    stubs, the rules table): its own, or until it has one that of the language its row names."""
    return table[code] if code in table else table[BY_CODE[code].strings]
