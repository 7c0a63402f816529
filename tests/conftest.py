"""Helpers for the tests that run pytest on pages they write (the plugin's own tests), and
`early`: session fixtures whose slow subprocesses start as soon as collection ends."""

import contextlib
import importlib.metadata
import os
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from cheatsheet.model.langs import LABELS
from cheatsheet.project import repo
from cheatsheet.pytest_plugin import RUN_KEY
from cheatsheet.site.browser import HOW_TO_INSTALL, chromium, find_chromium, serve

PROJECT = repo()
AXE = PROJECT.root / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2 A and AA; what a test fails on: the serious and critical violations, with a few places
AXE_RUN = """async () => (await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}}))
    .violations.filter(v => ['serious', 'critical'].includes(v.impact))
    .map(v => `${v.id} (${v.nodes.length}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')}`)"""

pytest_plugins = ["pytester"]
# The torch the examples run on here (the record files its rows under this release).
TORCH = importlib.metadata.version("torch")

# The source language's field labels -> the English ones (model/langs.py), for pages written in Chinese.
EN_LABELS = {**{f"**{LABELS['zh'][k]}**" if k == "example" else LABELS["zh"][k]:
                f"**{LABELS['en'][k]}**" if k == "example" else LABELS["en"][k] + " " for k in LABELS["zh"]},
             "# 测试页": "# Test page"}
INNER_INI = """\
[tool.pytest.ini_options]
addopts = "-p cheatsheet.pytest_plugin -p no:cacheprovider -ra"

[tool.cheatsheet]
timeout = {timeout}
"""


def english(zh: str) -> str:
    for label, en in EN_LABELS.items():
        zh = zh.replace(label, en)
    return zh


def write_site(root: Path, pages: dict[str, str], timeout: int = 20) -> Path:
    """docs/zh/<name>.md from Chinese text and docs/en/<name>.md with the English labels, plus
    the settings an inner pytest run needs. Returns docs/zh."""
    for lang in ("zh", "en"):
        (root / "docs" / lang).mkdir(parents=True, exist_ok=True)
    for name, text in pages.items():
        for lang, body in (("zh", text), ("en", english(text))):
            path = root / "docs" / lang / f"{name}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, "utf-8")
    (root / "snippets").mkdir(exist_ok=True)
    (root / "pyproject.toml").write_text(INNER_INI.format(timeout=timeout), "utf-8")
    return root / "docs" / "zh"


def run_pytest(root: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """pytest in a subprocess over `root` (for runs shared by a module; pytester's are per test)."""
    env = dict(os.environ if env is None else env, PYTHONPATH=str(PROJECT.root))
    return subprocess.run([sys.executable, "-m", "pytest", "--rootdir", str(root), *args],
                          cwd=root, env=env, capture_output=True, text=True)


# --- early fixtures ------------------------------------------------------------------------
# The suite's slow parts are subprocesses (inner pytest runs, the site build) and browser work
# on the built site that the test process would only wait for. Started right after collection,
# in threads, they run beside the examples and the other tests instead of one after another; the
# fixture returns the result.

EARLY: dict[str, tuple[Callable, str | None]] = {}
_started: dict[str, Future] = {}
_threads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="early")


def early(func: Callable | None = None, *, after: str | None = None):
    """Make `func(tmp_dir)` a session fixture of the same name that starts early. With `after`
    (another early fixture's name), `func(tmp_dir, that_result)` starts once that one is done,
    without holding a thread while it waits."""
    if func is None:
        return lambda f: early(f, after=after)
    EARLY[func.__name__] = (func, after)

    @pytest.fixture(scope="session", name=func.__name__)
    def fixture():
        return _start(func.__name__).result()

    return fixture


def _start(name: str) -> Future:
    if name not in _started:
        func, after = EARLY[name]
        tmp = Path(tempfile.mkdtemp(prefix=f"{name}-"))
        if after is None:
            _started[name] = _threads.submit(func, tmp)
        else:
            _started[name] = result = Future()

            def run(before: Future) -> None:
                if before.exception() is not None:
                    result.set_exception(before.exception())
                    return
                try:
                    job = _threads.submit(func, tmp, before.result())
                except RuntimeError as stopped:  # the session ended first (pytest -x): nobody waits for it
                    result.set_exception(stopped)
                    return
                job.add_done_callback(
                    lambda done: result.set_exception(done.exception()) if done.exception() else result.set_result(done.result()))

            _start(after).add_done_callback(run)
    return _started[name]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """Among these tests, those that wait for an early fixture go last, so the test process
    does the other work first. (The pages' items come after them all: their examples run in
    workers all along, and waiting for the last of them is the end of the run.)"""
    here = Path(__file__).parent
    ours = [i for i, item in enumerate(items) if here in Path(item.path).parents]
    ordered = sorted((items[i] for i in ours), key=lambda item: bool(set(getattr(item, "fixturenames", ())) & set(EARLY)))
    for i, item in zip(ours, ordered):
        items[i] = item


def pytest_collection_finish(session):
    needed = {name for item in session.items for name in getattr(item, "fixturenames", ())}
    if not session.config.option.collectonly:
        for name in sorted(needed & set(EARLY), key=lambda name: (name != "site", name)):  # the one most wait for, first
            _start(name)


@pytest.fixture
def inner(pytester, monkeypatch):
    """pytester, set up to find the cheatsheet package. Run it with runpytest_subprocess: an
    in-process run puts sys.modules back as it found it when it ends, which pulls modules from
    under an early fixture importing in its thread meanwhile (KeyError: 'psutil',
    'pypdfium2.internal.bases' in full runs)."""
    monkeypatch.setenv("PYTHONPATH", str(PROJECT.root))
    return pytester


@early
def probe_run(root: Path):
    """One pytest run, shared by the plugin's and the rules' tests, with one CPU worker, a 3 s
    example timeout, and a secret in the environment that no example may see. It writes the
    verification record, resuming from one that vouches for `already-verified`.

    Its pages, in the order they run: docs/zh/A-probes.md (the probes), then each run-rule
    fixture as docs/zh/<CODE>/page.md with its entry renamed <code> (ids stay unique), and
    docs/zh/RUN003/then.md, one more example after the hang. So the hang is followed by an
    example on a new worker, and the worker's death (RUN004) comes last: one restart, not two.
    Its requirements.txt lists a distribution no environment has (probe_pages.ABSENT). The run's
    figures go to root/stats.json. Returns (root, output)."""
    from probe_pages import ABSENT, AFTER_THE_HANG, PROBES

    from cheatsheet.model.pages import parse_page
    from cheatsheet.model.record import Row, save

    docs = write_site(root, {"A-probes": PROBES, "RUN003/then": AFTER_THE_HANG}, timeout=3).parent
    (root / "requirements.txt").write_text(f"-e .\ntorch==2.14.1\n{ABSENT}==0.1\n", "utf-8")
    for fixture in sorted((Path(__file__).parent / "fixtures" / "rules").glob("RUN*")):
        for lang in ("zh", "en"):
            text = (fixture / lang / "page.md").read_text("utf-8").replace("#sample-entry", f"#{fixture.name.lower()}")
            (docs / lang / fixture.name).mkdir(exist_ok=True)
            (docs / lang / fixture.name / "page.md").write_text(text, "utf-8")
    vouched = parse_page(docs / "zh" / "A-probes.md", "zh").entry("already-verified")
    row = Row("A-probes.md", "already-verified", "passed", vouched.code_hash(root / "snippets"), TORCH, "3.11.7",
              "an earlier machine", "2026-11-30")
    save(root / "verification", row.release, "cpu", [row])
    proc = run_pytest(root, "-rA", "--workers", "1", "--record", "--resume", "--stats-json", str(root / "stats.json"),
                      env=dict(os.environ, PROBE_SECRET="1"))
    return root, proc.stdout + proc.stderr


@pytest.fixture(scope="session")
def inspect_names(pytestconfig):
    """Ask the installed torch about names, through this session's CPU worker (no torch import here)."""
    return pytestconfig.stash[RUN_KEY].session.inspect_names


def outcome(output: str, test: str) -> str:
    """PASSED / FAILED / ERROR for one test, read off the -rA summary."""
    for line in output.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED", "ERROR") and rest.split(" ")[0].endswith(f"::{test}"):
            return word
    raise AssertionError(f"{test} not in the report:\n{output}")


REPO_URL = "https://github.com/example/pytorch-cheatsheet"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@early
def site(tmp: Path):
    """Build both languages with --strict, as `mkdocs build` does, into a temporary site/."""
    site_dir = tmp / "site"
    port = _free_port()
    # REPO_URL: a stand-in repository, so that the build renders the links that need one.
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", SITE_URL=f"http://127.0.0.1:{port}/", REPO_URL=REPO_URL)
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=PROJECT.root, env=env, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr[-5000:]
    return site_dir, port


@early
def plain_site(tmp: Path):
    """The strict build as the README's `mkdocs serve` runs it: no REPO_URL, no SITE_URL, every
    warning shown (with -q, MkDocs hides warnings from --strict too)."""
    env = {k: v for k, v in os.environ.items() if k not in ("REPO_URL", "SITE_URL")}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp / "site")],
                          cwd=PROJECT.root, env=dict(env, NO_MKDOCS_2_WARNING="1"), capture_output=True, text=True)
    return proc, tmp / "site"


# --- in a browser -------------------------------------------------------------------------


def need_browser(axe: bool = False) -> None:
    """Skip (fail in CI) where Chromium, or with `axe` axe-core, is missing."""
    if find_chromium() is None:
        if os.environ.get("CHEATSHEET_REQUIRE_BROWSER"):
            pytest.fail(f"no Chromium found: {HOW_TO_INSTALL}")
        pytest.skip(f"no Chromium to run the browser checks: {HOW_TO_INSTALL}")
    if axe and not AXE.is_file():
        if os.environ.get("CHEATSHEET_REQUIRE_BROWSER"):
            pytest.fail(f"{AXE} is missing: run npm ci")
        pytest.skip(f"{AXE} is missing: run npm ci to check accessibility")


@contextlib.contextmanager
def beside(site):
    """For an early fixture's browser work, beside the tests' own: the built site served on a
    port of its own and a Chromium of its own (Playwright objects stay in the thread that made
    them). Yields (browser, base URL)."""
    with serve(site[0]) as base, chromium() as browser:
        yield browser, base


@pytest.fixture(scope="session")
def browser(site):
    need_browser()

    site_dir, port = site
    with serve(site_dir, port) as base, chromium() as browser:
        yield browser, base


@pytest.fixture
def browser_page(browser):
    """A fresh page; also returns the set of hosts it sent requests to."""
    chromium, base = browser
    page = chromium.new_page()
    requested_hosts = set()
    page.on("request", lambda request: requested_hosts.add(request.url.split("/")[2]))
    yield page, base, requested_hosts
    page.close()


def typed_filter(page, block: str, word: str) -> int:
    """Type `word` into the page's filter box: some rows of `block` stay, each holding the word.
    Returns how many rows there are in all."""
    total = page.locator(f"{block} tbody tr").count()
    page.fill(".idiom-filter", word)
    page.wait_for_function(f"document.querySelectorAll('{block} tbody tr[hidden]').length > 0")
    shown = page.locator(f"{block} tbody tr:not([hidden])")
    assert 0 < shown.count() < total
    assert all(word in text.lower() for text in shown.all_inner_texts())
    return total
