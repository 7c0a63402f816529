"""The project's own set-up: one set of pins, and the README's commands are what CI runs."""

import re
import subprocess
import tomllib
from pathlib import Path

from cheatsheet.project import repo

PROJECT = repo()


def groups() -> dict[str, list[str]]:
    raw = tomllib.loads((PROJECT.root / "pyproject.toml").read_text("utf-8"))["dependency-groups"]

    def expand(name):
        out = []
        for item in raw[name]:
            out += expand(item["include-group"]) if isinstance(item, dict) else [item]
        return out

    return {name: expand(name) for name in raw}


def requirement_lines() -> list[str]:
    lines = [line.split("#")[0].strip() for line in (PROJECT.root / "requirements.txt").read_text("utf-8").splitlines()]
    return [line for line in lines if line]


def test_requirements_txt_is_the_package_and_every_group_pinned_alike():
    package = tomllib.loads((PROJECT.root / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    everything = sorted({pin for pins in groups().values() for pin in pins} | set(package))
    assert sorted(line for line in requirement_lines() if line != "-e .") == everything
    assert "-e ." in requirement_lines()
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[\w.]+", pin) for pin in everything), everything


def test_the_site_group_needs_no_torch():
    assert not [pin for pin in groups()["docs"] if pin.startswith(("torch", "numpy"))]


def test_readme_commands_are_what_ci_runs():
    readme = (PROJECT.root / "README.md").read_text("utf-8")
    serve = ("python3 -m venv .venv && .venv/bin/pip install -U pip && .venv/bin/pip install -e . --group docs "
             "&& .venv/bin/mkdocs serve")
    test = "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt && .venv/bin/pytest"
    assert serve in readme and test in readme
    ci = (PROJECT.root / ".ci" / "run").read_text("utf-8")
    assert ".venv/bin/pytest" in ci and "requirements.txt" in (PROJECT.root / ".ci" / "setup").read_text("utf-8")


def test_ci_run_verifies_the_newest_claimed_release_in_its_own_folder_beside_the_suite():
    """Beside the README's test command, .ci/run installs the newest claimed release (when it is
    not the pin) into .venv-RELEASE, the machine's cap lifted for that install only, and runs every
    example there, checked against the committed record; the run fails if either fails."""
    ci = (PROJECT.root / ".ci" / "run").read_text("utf-8")
    leg = ci.index('PIP_CONSTRAINT="$no_cap" VENV=".venv-$newest" TORCH_VERSION="$newest" .ci/setup pages')
    suite = ci.index(".venv/bin/pytest || status=$?")
    assert leg < suite and "repo().releases[0]" in ci and ") >" in ci[leg:suite] and "&\n" in ci[leg:suite]
    assert 'no_cap="$(mktemp)"' in ci[:leg]
    assert '-m cheatsheet verify --device cpu --source ci --out "$part" --check-against verification' in ci[leg:]
    assert 'wait "${leg#*:}" || status=1' in ci[suite:] and ci.rstrip().endswith('exit "$status"')
    setup = (PROJECT.root / ".ci" / "setup").read_text("utf-8")
    assert 'venv="${VENV:-.venv}"' in setup and ".venv/bin" not in setup, "every install goes into $VENV"
    # another torch than the pin: the paired packages' pins, which go with torch's, are left out too
    assert """get("paired", [])""" in setup and 'grep -v "${skip[@]}" requirements.txt' in setup


def test_every_other_release_is_installed_with_what_its_leg_puts_beside_it():
    """`paired` names pinned requirements (so the pin has them); .ci/setup leaves them out for any
    other release and installs what `legs` puts beside its torch instead: a claimed release lacks
    the paired packages its leg does not name, which is what Project.lacking tells the record check."""
    project = repo()
    pinned = {line.split("==")[0] for line in (project.root / "requirements.txt").read_text().splitlines() if "==" in line}
    assert project.paired and set(project.paired) <= pinned
    assert project.pin in project.releases
    legs = dict(project.legs)
    for release in project.releases:
        if release == project.pin:
            continue
        named = {pin.split("==")[0] for pin in legs.get(release, ())}
        assert project.lacking()[release] == tuple(p for p in project.paired if p not in named)


def test_the_browser_is_found_not_assumed(monkeypatch, tmp_path):
    """CHEATSHEET_CHROMIUM names the browser; a name that is no file finds none (the checks then say
    how to get one) rather than falling back behind the reader's back."""
    from cheatsheet.site import browser

    fake = tmp_path / "chrome"
    fake.write_text("")
    for named, found in ((str(fake), fake), (str(tmp_path / "missing"), None)):
        browser.find_chromium.cache_clear()
        monkeypatch.setenv(browser.CHROMIUM_VARIABLE, named)
        assert browser.find_chromium() == found
    browser.find_chromium.cache_clear()


def test_the_docs_name_only_what_is_there():
    """Every `cheatsheet.` module (and attribute) and every repository path in backticks that the
    README, ARCHITECTURE.md, the contributing guide (both languages), the benchmarks' and the
    record's READMEs and the package's docstrings name exists. A bare file name may live anywhere in
    the repository; what the build writes (site/, api/, search/) is not in it."""
    import ast
    import importlib
    import importlib.util
    import re

    root = PROJECT.root
    files = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
    names = {Path(f).name for f in files} | {f for f in files} | {str(Path(f).parent) for f in files}
    texts = {f: (root / f).read_text("utf-8") for f in ("README.md", "ARCHITECTURE.md", "benchmarks/README.md",
                                                        "verification/README.md", "docs/zh/contributing.md",
                                                        "docs/en/contributing.md")}
    for path in sorted((root / "cheatsheet").rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        docs = (ast.get_docstring(node) for node in ast.walk(tree)
                if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)))
        texts[str(path.relative_to(root))] = "\n".join(d for d in docs if d)
    # the build's output (the site, its data, the offline zip's folder); FastAPI's file, named as a model
    built = ("site/", "api/", "search/", "pytorch-cheatsheet/", "scripts/docs.py", "...")
    missing = []
    for name, text in texts.items():
        for dotted in re.findall(r"(?<![\w./])cheatsheet(?:\.[A-Za-z_]\w*)+(?![\w/-])", text):
            if dotted.endswith((".js", ".css", ".py", ".md", ".html")):  # a file (cheatsheet.js), not a module
                continue
            parts = dotted.split(".")
            module = next(".".join(parts[:i]) for i in range(len(parts), 0, -1) if _is_module(".".join(parts[:i])))
            obj = importlib.import_module(module)
            for attr in parts[len(module.split(".")):]:
                if not hasattr(obj, attr):
                    missing.append((name, dotted))
                    break
                obj = getattr(obj, attr)
        for path in re.findall(r"`([\w.-]+(?:/[\w.-]+)+/?|[\w-]+\.(?:py|md|yml|yaml|toml|tsv|csv|json|js|cjs|css|html))`", text):
            path = path.rstrip("/")
            if re.search(r"[<>*]|[A-Z]{3,}", path) or path.startswith(built):
                continue
            if not {path, f"cheatsheet/{path}", f"docs/zh/{path}"} & names and not (root / path).exists():
                missing.append((name, path))
    assert not missing, missing


def _is_module(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent is a module, not a package
        return False


def test_one_engine_makes_rows_and_decides_what_the_record_vouches_for():
    """The pytest plugin and `verify` drive the same code: a run becomes a row in one place
    (record.entry_row; the other Row( reads one from a file), "already vouched for" is decided in
    one place (record.vouches_for), and outcomes are one StrEnum (record.Outcome)."""
    package = PROJECT.root / "cheatsheet"
    sources = {p.relative_to(package).as_posix(): p.read_text("utf-8") for p in package.rglob("*.py")}
    built = {name: len(re.findall(r"(?<![\w.])Row\(", text)) for name, text in sources.items()}
    assert {name: n for name, n in built.items() if n} == {"model/record.py": 2}, built
    assert "return Row(page, entry.id, result" in sources["model/record.py"]
    assert "Row(**row)) for row in reader" in sources["model/record.py"]
    vouch = r"result == (?:\"passed\"|Outcome.PASSED) and \w+\.hash =="
    vouched = {name for name, text in sources.items() if re.search(vouch, text)}
    assert vouched == {"model/record.py"}
    for face in ("pytest_plugin.py", "tools/verify.py"):
        assert "vouches_for(" in sources[face] and "entry_row(" in sources[face]
        assert not re.search(r"(?:==|=|return|\() *\"(?:passed|failed|resumed|skipped|needs-cuda|needs-gpus|needs-package)\"",
                             sources[face]), face


def test_only_the_page_model_reads_a_page_s_text_and_names_a_file_s_kind():
    """Outside model/, a field's text, an entry's head, its heading line and a page's front matter
    come from the page model (Entry.field_markdown, head_markdown, heading, fields_markdown,
    Page.front_matter, lines_holding), and what a file is from pages.page_kind, never from slicing
    page.text or from a suffix. (check/code.py asks whether a snippets/ file is Python: not a page.)"""
    package = PROJECT.root / "cheatsheet"
    found = []
    for path in package.rglob("*.py"):
        name = path.relative_to(package).as_posix()
        if name.startswith("model/"):
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            if re.search(r"\bpage\.text\b|\.text\.splitlines\(\)", line) or (
                    re.search(r"\.suffix ==|\.endswith\(\"\.(?:md|py)\"\)", line) and name != "check/code.py"):
                found.append(f"{name}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_languages_are_named_only_in_the_language_table():
    """A language code appears in the package only in model/langs.py, as the key of a table of
    words kept per language (each key a language: the site's strings, the scaffold's stubs, the
    rules table, find's words, read through langs.wording), or in the Chinese linter, whose
    subject is Chinese text."""
    import ast

    from cheatsheet.model.langs import LANGS

    package = PROJECT.root / "cheatsheet"
    found = []
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        if name in ("model/langs.py", "tools/lint_zh.py") or name.startswith("data/"):
            continue
        tree = ast.parse(path.read_text("utf-8"))
        table_keys = {id(key) for node in ast.walk(tree) if isinstance(node, ast.Dict)
                      and node.keys and all(isinstance(k, ast.Constant) and k.value in LANGS for k in node.keys)
                      for key in node.keys}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in LANGS and id(node) not in table_keys:
                found.append(f"{name}:{node.lineno}: {node.value!r}")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in table_keys:
                quoted = "|".join(LANGS)
                if re.search(rf"(?<![\w/-])[\"'](?:{quoted})[\"']", node.value):
                    found.append(f"{name}:{node.lineno}: {node.value[:60]!r}")
    assert not found, "\n".join(found)
