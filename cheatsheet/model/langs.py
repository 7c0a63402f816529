"""The site's languages: their order (the first is the default site, at the root), where each
one's pages are served, and the words an entry's fields begin with."""

LANGS = ("zh", "en")
# The source language: the default site, the pages the tests run and the record names; every other
# language's pages follow it (same ids, same code) and its site lives under its URL prefix.
SOURCE, OTHERS = LANGS[0], LANGS[1:]
URL_PREFIX = {"zh": "", "en": "en/"}
# Field labels and the example marker, per language.
LABELS = {
    "zh": {"mnemonic": "助记：", "what": "作用：", "prereq": "使用前提：", "example": "解释性示例："},
    "en": {"mnemonic": "Mnemonic:", "what": "What it does:", "prereq": "Prerequisites:", "example": "Example:"},
}
