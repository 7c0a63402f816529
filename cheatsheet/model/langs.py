"""The site's languages: their order (the first is the default site, at the root), where each
one's pages are served, and the words an entry's fields begin with."""

LANGS = ("zh", "en")
URL_PREFIX = {"zh": "", "en": "en/"}
# Field labels and the example marker, per language.
LABELS = {
    "zh": {"mnemonic": "助记：", "what": "作用：", "prereq": "使用前提：", "example": "解释性示例："},
    "en": {"mnemonic": "Mnemonic:", "what": "What it does:", "prereq": "Prerequisites:", "example": "Example:"},
}
