"""The contributor tools behind `python -m cheatsheet`: the CLI itself, the scaffolder and the translation report."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from cheatsheet.check.site import check_site
from cheatsheet.project import repo
from cheatsheet.tools.scaffold import ScaffoldError, new_entry, new_recipe
from cheatsheet.tools.status import stale_entries

PROJECT = repo()

PAGE_PAIR = PROJECT.root / "tests" / "fixtures" / "rules" / "ENTRY008"  # any valid-shaped zh/en page pair


def test_new_page_stub_is_flagged_only_as_unfinished(tmp_path, inspect_names):
    new_entry(tmp_path, "topic", "do-something")
    problems = [p for _, p in check_site(tmp_path, PROJECT.snippets, inspect_names)]
    # The page intro and the entry carry TODOs; everything else about the stub is well formed.
    assert {p.code for p in problems} == {"ENTRY010"}
    assert {p.entry_id for p in problems} == {"do-something", "-"}  # "-": the page intro


def test_stub_goes_after_the_named_entry_in_both_languages(tmp_path, inspect_names):
    for entry_id, after in (("first", None), ("third", None), ("second", "first")):
        new_entry(tmp_path, "topic", entry_id, after)
    for lang in ("zh", "en"):
        text = (tmp_path / lang / "topic.md").read_text("utf-8")
        assert text.index("{ #first }") < text.index("{ #second }") < text.index("{ #third }")
    assert not [p for _, p in check_site(tmp_path, PROJECT.snippets, inspect_names) if p.code != "ENTRY010"]


def test_duplicate_or_malformed_id_is_refused(tmp_path):
    new_entry(tmp_path, "topic", "first")
    with pytest.raises(ScaffoldError, match="already used"):
        new_entry(tmp_path, "other", "first")
    with pytest.raises(ScaffoldError, match="lowercase words joined by hyphens"):
        new_entry(tmp_path, "other", "Not_An_Id")


def test_recipe_stub_is_flagged_only_as_unfinished(tmp_path, inspect_names):
    new_recipe(tmp_path, "train-something")
    problems = [p for _, p in check_site(tmp_path, PROJECT.snippets, inspect_names)]
    assert {(p.code, p.entry_id) for p in problems} == {("ENTRY010", "recipe-train-something")}
    with pytest.raises(ScaffoldError, match="already exists"):
        new_recipe(tmp_path, "train-something")


def test_new_refreshes_the_api_docs_table(tmp_path, monkeypatch):
    """`new` (and `fill`) end by refreshing generated/api-docs.csv, so the contributor's own steps
    leave it current; `refresh` says whether it changed."""
    from dataclasses import replace

    from cheatsheet import __main__ as cli
    from cheatsheet.model.api_links import load
    from cheatsheet.tools.api_docs import refresh

    project = replace(PROJECT, docs=tmp_path / "docs", generated=tmp_path / "generated")
    monkeypatch.setattr(cli, "PROJECT", project)
    assert cli.main(["new", "topic", "view-as-shape"]) == 0
    assert project.api_docs.is_file() and load(project.api_docs) == {}, "written; the stub's code line names no API yet"
    for lang in ("zh", "en"):
        page = project.docs / lang / "topic.md"
        page.write_text(page.read_text("utf-8").replace("...  # TODO the line a reader copies", "y = x.view(2, 3)"), "utf-8")
    assert refresh(project) is True
    assert load(project.api_docs)["view-as-shape"]["api"] == "torch.Tensor.view"
    assert refresh(project) is False


def test_cli_registers_every_command():
    """Every `cmd_*` function of the CLI is a command that `--help` lists, with the first line of
    its docstring as its help."""
    import inspect

    from cheatsheet import __main__ as cli

    out = subprocess.run([sys.executable, "-m", "cheatsheet", "--help"], cwd=PROJECT.root, capture_output=True, text=True,
                         check=True).stdout
    listed = out.split("\ncommands:\n", 1)[1]
    names = re.findall(r"^    (\S+)", listed, re.M)  # a command's name starts its line, four spaces in
    functions = {name.removeprefix("cmd_").replace("_", "-"): f for name, f in vars(cli).items() if name.startswith("cmd_")}
    assert names == list(cli.COMMANDS) and set(names) == set(functions)
    for name, func in functions.items():
        assert cli.COMMANDS[name][0] is func
        first_line = inspect.getdoc(func).split("\n")[0]
        assert " ".join(first_line.split()) in " ".join(listed.split()), name


def test_bench_options_reach_its_main(monkeypatch):
    """`python -m cheatsheet bench ...` runs benchmarks/bench.py as its own process with the
    options as given, and every spelling argparse accepts reaches its `main` (`--scale=1.5` as
    `--scale 1.5`): the package never puts the repository on sys.path."""
    from benchmarks import bench
    from cheatsheet import __main__ as cli

    calls = []
    monkeypatch.setattr(cli.subprocess, "call", lambda cmd, cwd: calls.append((cmd, cwd)) or 0)
    assert cli.main(["bench", "--suite", "--scale=1.5", "--against=HEAD", "--search-scale=3"]) == 0
    assert cli.main(["bench", "--suite", "--scale", "2", "--against", "HEAD~1", "--search"]) == 0
    (first, cwd), (second, _) = calls
    assert first[:3] == [sys.executable, "-m", "benchmarks.bench"] and cwd == PROJECT.root
    first, second = bench.options().parse_args(first[3:]), bench.options().parse_args(second[3:])
    assert (first.suite, first.scale, first.against, first.search_scale, first.search) == (True, 1.5, "HEAD", 3, False)
    assert (second.scale, second.against, second.search_scale, second.search) == (2.0, "HEAD~1", None, True)
    assert "sys.path" not in (PROJECT.root / "cheatsheet" / "__main__.py").read_text("utf-8")


def test_bench_accepts_every_option_its_help_names():
    """The options that `bench --help` names are bench's own parser's, and its `main` reads each."""
    import inspect

    from benchmarks import bench

    out = subprocess.run([sys.executable, "-m", "cheatsheet", "bench", "--help"], cwd=PROJECT.root, capture_output=True,
                         text=True, check=True).stdout
    documented = set(re.findall(r"(--[a-z-]+)", out)) - {"--help"}
    parser = bench.options()
    assert documented == {flag for action in parser._actions for flag in action.option_strings} - {"-h", "--help"}
    source = inspect.getsource(bench.main)
    ignored = [a.dest for a in parser._actions if a.dest != "help" and f"args.{a.dest}" not in source]
    assert not ignored, "an option that bench's main ignores"


def git(repo, *args, date="2026-01-01T00:00:00"):
    # Explicit dates: both commits would otherwise fall in the same second.
    env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=repo, check=True,
                   capture_output=True, env=env)


def test_translation_report_names_the_side_changed_later(tmp_path):
    for lang in ("zh", "en"):
        (tmp_path / "docs" / lang).mkdir(parents=True)
        shutil.copy(PAGE_PAIR / lang / "page.md", tmp_path / "docs" / lang / "page.md")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "both languages")
    assert stale_entries(tmp_path) == []

    zh = tmp_path / "docs" / "zh" / "page.md"
    zh.write_text(zh.read_text("utf-8").replace("全是 1", "元素全为 1"), "utf-8")
    git(tmp_path, "commit", "-qam", "reword the Chinese mnemonic", date="2026-01-02T00:00:00")
    [line] = stale_entries(tmp_path)
    assert line.startswith("docs/zh/page.md:3: [sample-entry] zh changed later (commit ")
    assert line.endswith("check the en side")

    en = tmp_path / "docs" / "en" / "page.md"
    en.write_text(en.read_text("utf-8").replace("all ones", "every element is 1"), "utf-8")
    [line] = stale_entries(tmp_path)
    assert "en changed later (uncommitted edits); check the zh side" in line


def test_generated_files_are_written_from_the_pins_torch_only(tmp_path):
    """A run on another release (a release leg, a second venv) leaves generated/ as it is; the pin's
    torch writes it."""
    from dataclasses import replace

    from cheatsheet.tools import api_docs

    project = replace(PROJECT, generated=tmp_path)
    project.api_docs.write_text("stale\n", "utf-8")
    assert api_docs.pin_owns(project, f"{project.pin}+cu130") and not api_docs.pin_owns(project, "2.13.0+cpu")
    assert api_docs.refresh(project, inspect=lambda names: {}, torch_version="2.13.0+cpu") is False
    assert project.api_docs.read_text("utf-8") == "stale\n"
