"""The languages' table (cheatsheet/model/langs.py) is the only place a language is declared: a
third language is its row and its pages, nothing else. Shown on a copy of the package with one row
added (French, `fr`) and the synthetic site of tests/test_site_plugin.py with French pages: the
build makes a French site below the others with its labels, nav, search settings and language
switch, and the checker holds the French pages to the Chinese ones."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cheatsheet.model import langs
from cheatsheet.project import repo
from tests.test_site_plugin import write_site

PROJECT = repo()
LABELS = {"mnemonic": "Mnémonique :", "what": "Rôle :", "prereq": "Prérequis :", "example": "Exemple :"}
FRENCH = f"""\
    Language(
        code="fr", name="Français", url_prefix="fr/",
        labels={LABELS!r},
        site_name="Aide-mémoire PyTorch",
        site_description="Un aide-mémoire PyTorch",
        search={{"lang": "fr"}},
        nav={{"index.md": "Accueil"}},
        strings="en",
    ),
"""


def with_french(package: Path) -> None:
    """Add the French row to a copy of the package's languages table: the one edit it takes."""
    table = package / "model" / "langs.py"
    text = table.read_text("utf-8")
    end = text.index("\n)\n\nBY_CODE")  # the end of LANGUAGES
    table.write_text(text[:end + 1] + FRENCH + text[end + 1:], "utf-8")


def french_pages(root: Path) -> None:
    """docs/fr: the English pages with the French labels."""
    for path in (root / "docs" / "en").rglob("*"):
        if path.is_file():
            text = path.read_text("utf-8")
            for key, label in langs.LABELS["en"].items():
                text = text.replace(label, LABELS[key])
            target = root / "docs" / "fr" / path.relative_to(root / "docs" / "en")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, "utf-8")


@pytest.fixture(scope="module")
def trilingual(tmp_path_factory):
    """(project root, environment whose `cheatsheet` is the copy with the French row, in that root)."""
    root = write_site(tmp_path_factory.mktemp("trilingual") / "project")
    with (root / "mkdocs.yml").open("a", encoding="utf-8") as f:
        f.write("nav:\n  - 首页: index.md\n  - all.md\n  - compatibility.md\n  - alpha.md\n  - beta.md\n  - recipes/demo.py\n")
    french_pages(root)
    # the package beside the pages, as in a checkout (its commands work on the checkout they are in)
    shutil.copytree(PROJECT.root / "cheatsheet", root / "cheatsheet", ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copytree(PROJECT.root / "schemas", root / "schemas")
    with_french(root / "cheatsheet")
    env = dict(os.environ, PYTHONPATH=str(root), NO_MKDOCS_2_WARNING="1")
    return root, env


def run(env, *args, cwd):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_copy_has_three_languages(trilingual):
    root, env = trilingual
    done = run(env, "-c", "from cheatsheet.model import langs; print(langs.LANGS, langs.OTHERS)", cwd=root)
    assert done.stdout.split("\n")[0] == "('zh', 'en', 'fr') ('en', 'fr')", done.stderr


def test_a_third_language_builds_from_its_row_and_its_pages(trilingual):
    root, env = trilingual
    done = run(env, "-m", "mkdocs", "build", "-q", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    site = root / "site"
    page = (site / "fr" / "alpha" / "index.html").read_text("utf-8")
    assert '<html lang="fr"' in page
    assert "Aide-mémoire PyTorch" in page  # the row's site name
    assert re.search(r">\s*Accueil\s*<", page)  # the row's nav title; other pages keep their own headings
    assert page.count('class="entry-chrome"') == 2  # each entry's status line and copy button
    # the language switch, on every site, names all three with links from that site's root
    for prefix, links in (("", ["./", "en/", "fr/"]), ("en/", ["../", "./", "../fr/"]), ("fr/", ["../", "../en/", "./"])):
        html = (site / prefix / "alpha" / "index.html").read_text("utf-8")
        assert re.findall(r'data-root="([^"]*)"', html) == links, prefix
    assert "Français" in (site / "alpha" / "index.html").read_text("utf-8")
    # its own search index, with its own entries
    index = json.loads((site / "fr" / "search" / "entries.json").read_text("utf-8"))
    assert {d["u"] for d in index["docs"] if d["k"] == "entry"} >= {"alpha/#alpha-one", "beta/#beta-one"}
    search = json.loads((site / "fr" / "search" / "search_index.json").read_text("utf-8"))
    assert search["config"]["lang"] == ["fr"]


def test_the_checker_holds_a_third_language_to_the_source(trilingual):
    root, env = trilingual
    done = run(env, "-m", "cheatsheet", "check", cwd=root)
    assert done.returncode == 0 and "4 entries in docs/fr, 0 problem(s)" in done.stdout, done.stdout + done.stderr
    beta = root / "docs" / "fr" / "beta.md"
    text = beta.read_text("utf-8")
    try:
        beta.write_text(text.replace("{ #beta-one", "{ #beta-uno"), "utf-8")
        done = run(env, "-m", "cheatsheet", "check", cwd=root)
        assert done.returncode != 0
        assert re.search(r"docs/fr/beta\.md:\d+.*beta-(one|uno)", done.stdout + done.stderr), done.stdout + done.stderr
    finally:
        beta.write_text(text, "utf-8")


def test_new_writes_the_stub_in_every_language(trilingual):
    root, env = trilingual
    before = {lang: (root / "docs" / lang / "beta.md").read_text("utf-8") for lang in ("zh", "en", "fr")}
    try:
        done = run(env, "-m", "cheatsheet", "new", "beta", "beta-two", cwd=root)
        assert done.returncode == 0, done.stdout + done.stderr
        french = (root / "docs" / "fr" / "beta.md").read_text("utf-8")
        assert "{ #beta-two }" in french and f"- {LABELS['mnemonic']} TODO" in french  # its labels, English words
    finally:
        for lang, text in before.items():
            (root / "docs" / lang / "beta.md").write_text(text, "utf-8")
