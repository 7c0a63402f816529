"""The committed verification record says exactly what ran: a current, passing CPU row for every
entry, no row (CPU or CUDA) that vouches for code that has changed since, and CUDA rows only from
a GPU (each of these is a rule with its own fixture: REC001-REC005 in tests/fixtures/rules/)."""

import subprocess
import sys

from conftest import TORCH, run_pytest, write_site
from probe_pages import entry

from cheatsheet.model.record import Row, check, releases, save
from cheatsheet.project import repo
from cheatsheet.tools.watch import MARKER, issue_body

PROJECT = repo()


def test_the_committed_record_matches_the_pages():
    problems = check(PROJECT.docs, PROJECT.snippets, PROJECT.record, PROJECT.releases, PROJECT.lacking(), PROJECT.pin)
    assert not problems, "\n" + "\n".join(map(str, problems))


def test_a_contributor_records_the_pin_only(tmp_path):
    """A new entry with a row for the pin alone, and a changed one whose other release's row is for
    its old code: the record is fine, both are pending on the other release (the site says "not yet
    run" there); without the pin rule they are problems; the pin's own row may not be missing."""
    from cheatsheet.model.pages import parse_page
    from cheatsheet.model.record import Record, pending

    zh = write_site(tmp_path / "site", {"page": "# 测试页\n" + entry("old", "print(1)") + entry("new", "print(2)")})
    docs, snippets, record = zh.parent, tmp_path / "site" / "snippets", tmp_path / "record"
    page = parse_page(zh / "page.md", "zh")
    hashes = {e.id: e.code_hash(snippets) for e in page.entries}

    def row(entry_id, torch, hash=None):
        return Row("page.md", entry_id, "passed", hash or hashes[entry_id], torch, "3.11.7", "AMD EPYC", "2026-12-01", "ci", "")

    save(record, "2.14.1", "cpu", [row("old", "2.14.1"), row("new", "2.14.1")])
    save(record, "2.13.0", "cpu", [row("old", "2.13.0", "0" * 16)])  # recorded before "old" changed
    claimed = ("2.14.1", "2.13.0")
    assert check(docs, snippets, record, claimed, pin="2.14.1") == []
    assert sorted(p.code for p in check(docs, snippets, record, claimed)) == ["REC001", "REC002"]
    verdicts = Record(record, snippets).verdicts
    assert [pending(verdicts(e), claimed, "2.14.1") for e in page.entries] == [["2.13.0"], ["2.13.0"]]
    save(record, "2.14.1", "cpu", [row("old", "2.14.1")])
    assert [p.code for p in check(docs, snippets, record, claimed, pin="2.14.1")] == ["REC001"]



def test_a_contribution_recorded_on_the_pin_alone_end_to_end(tmp_path):
    """The contributing guide's flow, run: an entry changed and a new one written, `pytest
    --update-output` (what `fill` runs) and `pytest --entry ID --record` with the pin's torch only.
    The record check is clean under the pin rule, and both entries are "not yet run" on the other
    claimed release until a release leg runs them there."""
    from cheatsheet.model.pages import parse_page
    from cheatsheet.model.record import Record, load, pending, release_of

    pin, other = release_of(TORCH), "2.13.0"
    root = tmp_path / "site"
    write_site(root, {"page": "# 测试页\n" + entry("old", "print(1)\n#> 1")})
    assert run_pytest(root, "-m", "cpu", "--workers", "1", "--record").returncode == 0
    record = root / "verification"
    # what a release leg wrote for the entry as it was, on the other release
    [(_, row)] = load(record, pin, "cpu").values()
    save(record, other, "cpu", [Row(**{**row.__dict__, "torch": f"{other}+cpu"})])

    # the contribution: "old" changes, "new" comes without output lines; fill, then record, on the pin
    write_site(root, {"page": "# 测试页\n" + entry("old", "print(10)") + entry("new", "print(2)")})
    fill = run_pytest(root, "-m", "cpu", "--workers", "1", "--update-output")
    assert fill.returncode == 0, fill.stdout
    page = (root / "docs" / "zh" / "page.md").read_text("utf-8")
    assert "print(10)\n#> 10\n" in page and "print(2)\n#> 2\n" in page
    recorded = run_pytest(root, "-m", "cpu", "--workers", "1", "--entry", "old", "--entry", "new", "--record")
    assert recorded.returncode == 0, recorded.stdout

    docs, snippets, claimed = root / "docs", root / "snippets", (pin, other)
    assert sorted(load(record, pin, "cpu")) == ["new", "old"]
    assert check(docs, snippets, record, claimed, pin=pin) == []
    # recording "old" anew dropped its row for the old code on the other release: without the pin
    # rule, both would be missing there
    assert load(record, other, "cpu") == {}
    assert [p.code for p in check(docs, snippets, record, claimed)] == ["REC001", "REC001"]
    verdicts = Record(record, snippets).verdicts
    entries = parse_page(root / "docs" / "zh" / "page.md", "zh").entries
    assert [pending(verdicts(e), claimed, pin) for e in entries] == [[other], [other]]


def _rows(*rows: tuple[str, str, str, str]) -> list[Row]:
    return [Row("page.md", entry, result, "0123456789abcdef", torch, "3.11.7", "AMD EPYC", "2026-12-01", "ci", note)
            for entry, result, note, torch in rows]


def test_the_watch_issue_says_what_changed_with_its_note(tmp_path):
    """`record --diff OLD NEW`'s body: a line per entry whose result changed, with what failed;
    "Nothing changed" when both say the same. OLD may be one release's folder of a record."""
    docs = write_site(tmp_path / "site", {"page": "# 测试页\n" + entry("breaks", "print(1)") + entry("mends", "print(2)")}).parent
    old, new = tmp_path / "record", tmp_path / "part"
    save(old, "2.14.1", "cpu", _rows(("breaks", "passed", "", "2.14.1"), ("mends", "failed", "RUN002 ValueError: x", "2.14.1")))
    save(new, "2.15.0", "cpu", _rows(("breaks", "failed", "RUN002 TypeError: y", "2.15.0+cpu"),
                                     ("mends", "passed", "", "2.15.0")))
    body = issue_body(old / "2.14.1", new, docs)
    assert body.startswith(MARKER + "\n") and "Examples run on torch 2.15.0, against the committed record of torch 2.14.1" in body
    assert "2 entries changed:" in body
    assert "| `breaks` | page.md | cpu | passed | failed: RUN002 TypeError: y |" in body
    assert "| `mends` | page.md | cpu | failed: RUN002 ValueError: x | passed |" in body
    same = issue_body(old, old / "2.14.1", docs)
    assert "Nothing changed: every entry has the same result on both." in same and "|" not in same


def test_record_diff_runs_on_the_two_newest_committed_releases():
    assert len(PROJECT.releases) >= 2, "the project claims two releases; their rows are what the diff compares"
    new, old = PROJECT.releases[:2]
    assert {new, old} <= set(releases(PROJECT.record))
    proc = subprocess.run([sys.executable, "-m", "cheatsheet", "record", "--diff", f"verification/{old}", f"verification/{new}"],
                          cwd=PROJECT.root, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(MARKER) and f"torch {new}, against the committed record of torch {old}" in proc.stdout


def test_the_record_is_read_once_until_its_files_change(tmp_path):
    """Record.load parses the record once per process (the checker, both languages' builds, the
    recorder and the package data share it) and again only when a file's contents change."""
    from cheatsheet.model.record import Record

    def row(entry_id, result="passed"):
        return Row("page.md", entry_id, result, "0" * 16, "2.14.1", "3.11.7", "AMD EPYC", "2026-12-01", "ci", "")

    save(tmp_path, "2.14.1", "cpu", [row("a")])
    first = Record.load(tmp_path, tmp_path)
    assert Record.load(tmp_path, tmp_path) is first
    save(tmp_path, "2.14.1", "cpu", [row("a", "failed")])  # the same size: only the contents differ
    again = Record.load(tmp_path, tmp_path)
    assert again is not first and again.row("2.14.1", "cpu", "a").result == "failed"
    assert Record.load(PROJECT.record, PROJECT.snippets) is Record.load(PROJECT.record, PROJECT.snippets)
