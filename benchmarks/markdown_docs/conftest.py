"""pytest-markdown-docs over a copy of docs/zh, using its hooks as far as they go (measure.py copies this file there).

Not a conftest of the project: nothing here runs unless pytest-markdown-docs is installed and --markdown-docs given.
The environment says what to do:

PMD_MODE        default: no hook of ours, only the counting below (pytest-markdown-docs as it comes);
                parser:  pytest_markdown_docs_markdown_it supplies a parser configured like the project's
                         (MarkdownIt("commonmark"), cheatsheet/model/pages.py);
                filter:  the same, then pytest_collection_modifyitems keeps only the fences that the project's model
                         (cheatsheet.model.pages.parse_page, a parse of its own) calls examples;
                model:   the hook supplies a parser whose parse() is the project's model: it returns only the example
                         fences, their info rewritten to `python runner:Cheatsheet...` so that pytest-markdown-docs
                         collects bash examples too and hands every one to a runner registered with register_runner.
PMD_PARSES      a file to write the MarkdownIt.parse calls to: {sha1 of the text parsed: calls}.
PMD_RUNS        a file the runners append the task of each fence they are handed to (one JSON line each).
CHEATSHEET_ROOT the project, for cheatsheet.model.pages.

In filter and model modes recipes (recipes/*.py) are left out: pytest-markdown-docs collects a .py file by importing
it (to read its docstrings), which would run the whole recipe at collection.
"""

import hashlib
import json
import os
import sys
from collections import Counter
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

MODE = os.environ.get("PMD_MODE", "default")
PARSES: Counter = Counter()
CURRENT: dict = {}  # the file being collected
sys.path.insert(0, os.environ.get("CHEATSHEET_ROOT", str(Path(__file__).resolve().parents[2])))

_parse = MarkdownIt.parse


def _counting_parse(self, src, env=None):
    PARSES[hashlib.sha1(src.encode()).hexdigest()] += 1
    return _parse(self, src, env)


MarkdownIt.parse = _counting_parse  # every parse, the project's model's included, is counted


def pytest_ignore_collect(collection_path):
    if collection_path.name == "conftest.py":
        return True  # pytest-markdown-docs would import it as a module of docstrings
    if MODE in ("filter", "model") and collection_path.suffix == ".py":
        return True
    return None


def pytest_collectstart(collector):
    if isinstance(collector, pytest.File):
        CURRENT["path"] = Path(collector.path)


def pytest_sessionfinish(session):
    if os.environ.get("PMD_PARSES"):
        Path(os.environ["PMD_PARSES"]).write_text(json.dumps(PARSES))


def example_at(path, line):
    from cheatsheet.model.pages import parse_page

    page = parse_page(Path(path), "zh")  # cached by path and mtime: the second call for a page parses nothing
    return next((f for e in page.entries for f in e.examples if f.line == line), None)


if MODE in ("parser", "filter"):

    @pytest.hookimpl(tryfirst=True)
    def pytest_markdown_docs_markdown_it():
        return MarkdownIt("commonmark")


if MODE == "filter":

    def pytest_collection_modifyitems(config, items):
        keep = [i for i in items if example_at(i.path, getattr(i, "start_line", -1)) is not None]
        drop = [i for i in items if i not in keep]
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep


if MODE == "model":
    from pytest_markdown_docs._runners import _Runner, register_runner

    class ModelParser(MarkdownIt):
        """parse() is the project's page model: one fence token per example, nothing else."""

        def parse(self, src, env=None):
            path = CURRENT.get("path")
            if path is None or path.suffix != ".md":
                return []
            from cheatsheet.model.pages import parse_page

            page = parse_page(path, "zh")
            return [Token("fence", "code", 0, map=[f.line - 1, f.end], content=f.code,
                          info=f"python runner:Cheatsheet{f.lang.capitalize()}")
                    for e in page.entries for f in e.examples]

    @pytest.hookimpl(tryfirst=True)
    def pytest_markdown_docs_markdown_it():
        return ModelParser("commonmark")

    def _hand_off(kind, test):
        fence = example_at(test.source_path, test.start_line)
        task = {"kind": kind, "code": fence.code, "filename": str(fence.path), "first_line": fence.line}
        if os.environ.get("PMD_RUNS"):  # here the project would submit the task to its worker pool
            with open(os.environ["PMD_RUNS"], "a") as out:
                out.write(json.dumps(task) + "\n")

    # runtest takes no asyncio_runner: pytest-markdown-docs calls it with one, catches the TypeError and calls again
    # without. A runner that took **kwargs would be called twice for every fence that raised a TypeError.
    def repr_failure(self, test, excinfo, style=None):
        return str(excinfo.value)

    # Registered by class name, picked by `runner:NAME` in a fence's info string.
    for name, kind in (("CheatsheetPython", "run"), ("CheatsheetBash", "shell")):
        runtest = lambda self, test, args, kind=kind: _hand_off(kind, test)  # noqa: E731
        register_runner()(type(name, (_Runner,), {"runtest": runtest, "repr_failure": repr_failure}))
