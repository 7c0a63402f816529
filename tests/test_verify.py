"""`python -m cheatsheet verify`: a page's examples run without pytest, judged as the tests judge
them, reported per page with every failure in the project's format, and written as a record part
that `record --merge` folds in. One run on a small site (one CPU worker) serves most tests."""

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import PROJECT, TORCH, early, write_site
from probe_pages import entry

from cheatsheet.model.pages import parse_page
from cheatsheet.model.record import Row, check, load, release_of, save
from cheatsheet.tools.verify import BAR, Progress

PAGE = "# 测试页\n" + "".join([
    entry("passes", """
        print(1 + 1)
        #> 2
    """),
    entry("fails", """
        print(3)
        #> 4
    """),
    entry("cuda-only", """
        import torch

        print(torch.ones(1, device="cuda").device.type)
        #> cuda
    """, fence="{.python requires-cuda}"),
])
RELEASE = release_of(TORCH)


def cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(PROJECT.root))
    return subprocess.run([sys.executable, "-m", "cheatsheet", *args], cwd=root, env=env, capture_output=True, text=True)


def verify(root: Path, *args: str) -> subprocess.CompletedProcess:
    return cli(root, "verify", "--project", str(root), "--device", "cpu", "--workers", "1", *args)


def rows(folder: Path, release: str = RELEASE) -> dict[str, Row]:
    return {entry_id: row for entry_id, (_, row) in load(folder, release, "cpu").items()}


@early
def verify_run(root: Path):
    """verify over the whole small site, into root/part."""
    write_site(root, {"page": PAGE})
    return root, verify(root, "--out", str(root / "part"))


def test_verify_reports_each_page_and_every_failure(verify_run):
    root, proc = verify_run
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "page.md: 1 passed / 1 failed / 1 skipped" in proc.stdout, proc.stdout
    # Problem's own format, the same message the test suite gives
    assert re.search(r"^\S*docs/zh/page\.md:\d+: \[fails\] RUN001 the output lines on cpu are not what the example printed",
                     proc.stdout, re.M), proc.stdout
    assert "1 failure(s):" in proc.stdout and "[passes]" not in proc.stdout
    # stderr is not a terminal here: a line per tenth, the last one full
    assert f"[{'#' * BAR}] 2/2 examples" in proc.stderr.splitlines()[-1], proc.stderr


def test_verify_writes_a_record_part_with_the_plugins_row_policy(verify_run):
    root, _ = verify_run
    found = rows(root / "part")
    assert {e: (r.result, r.source) for e, r in found.items()} == {
        "passes": ("passed", "submitted"), "fails": ("failed", "submitted"), "cuda-only": ("needs-cuda", "submitted")}
    assert found["passes"].note == found["cuda-only"].note == ""
    assert found["fails"].note == "RUN001 -#> 4 / +#> 3", found["fails"].note
    assert release_of(found["passes"].torch) == release_of(TORCH) and found["passes"].device != "cpu"
    page = parse_page(root / "docs" / "zh" / "page.md", "zh")
    assert found["fails"].hash == page.entry("fails").code_hash(root / "snippets")


def test_record_merge_folds_the_part_into_a_record(verify_run, tmp_path):
    root, _ = verify_run
    record = tmp_path / "record"
    old = Row("page.md", "passes", "failed", "0" * 16, TORCH, "3.11.7", "an earlier machine", "2026-01-01", "ci", "RUN002 x")
    save(record, RELEASE, "cpu", [old])
    proc = cli(root, "record", "--project", str(root), "--dir", str(record), "--merge", str(root / "part"),
               "--source", "submitted")
    assert f"merged 1 part(s) into {record}: 3 {RELEASE}/cpu rows" in proc.stdout, proc.stdout + proc.stderr
    assert rows(record) == rows(root / "part")  # the part's rows replace the record's
    # the merged record holds the failed row. This project claims no release: there the row is what
    # the matrix reports (a GPU machine's own torch, say), not a problem; on a claimed release it is one
    assert "1 failed" in proc.stdout and not re.findall(r"^\S+: \[\S+\] REC\d+", proc.stdout, re.M), proc.stdout
    assert proc.returncode == 0, proc.stdout
    problems = check(root / "docs", root / "snippets", record, claimed=(RELEASE,))
    assert [(p.entry_id, p.code) for p in problems] == [("fails", "REC004")], problems


def test_a_needs_gpus_row_says_what_ran_and_is_no_problem(tmp_path):
    """A multi-process example on a machine with fewer GPUs than processes: the row says so
    (needs-gpus, with how many), on a claimed release too, and the site shows it in words."""
    from cheatsheet.model.record import row_result, verdict
    from cheatsheet.site.entry_status import cell_text, row_title
    from cheatsheet.site.strings import EN

    assert row_result({"needs-gpus"}) == row_result({"needs-gpus", "passed"}) == "needs-gpus"
    assert row_result({"needs-gpus", "failed"}) == "failed"
    note = "needs 2 GPUs (one per process for nccl), this machine has 1"
    row = Row("page.md", "multi", "needs-gpus", "h", TORCH, "3.12.3", "NVIDIA H200 (sm_90)", "2026-12-04", "gpu", note)
    found = verdict("cuda", row, "h", RELEASE)
    assert not found.vouches and cell_text(found, EN) == f"{RELEASE} not run: needs several GPUs"
    assert row_title(found, EN).endswith(note)


def test_resume_skips_what_the_part_vouches_for_and_check_against_compares(verify_run, tmp_path):
    """--resume reruns only what the part does not vouch for; --check-against fails on a row whose
    result differs from the record's (cuda-only: needs-cuda here, `passed` there), and names an entry
    the record has no row for as pending there."""
    root, _ = verify_run
    part = tmp_path / "part"
    shutil.copytree(root / "part", part)
    record = tmp_path / "record"
    before = rows(part)
    save(record, RELEASE, "cpu", [before["passes"], Row(**{**vars(before["cuda-only"]), "result": "passed"})])
    proc = verify(root, "passes", "cuda-only", "fails", "--out", str(part), "--resume", "--check-against", str(record))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 example run(s) skipped: --resume" in proc.stdout, proc.stdout
    assert rows(part)["passes"] == before["passes"]  # kept as it was, date and all
    assert re.search(r"cpu\.csv:3: \[cuda-only\] says passed \(\w+\); this run: needs-cuda", proc.stdout), proc.stdout
    assert "2 row(s) compared with" in proc.stdout and ": 1 differ" in proc.stdout
    # the record has no row for `fails`: pending there, not a difference (this run's part has it)
    assert re.search(r"\[fails\] pending \(no row\); this run: failed", proc.stdout) and "1 pending there" in proc.stdout


def test_an_unknown_page_or_id_is_a_usage_error(verify_run):
    root, _ = verify_run
    proc = verify(root, "no-such-page")
    assert proc.returncode == 2 and "`no-such-page` is neither a page under" in proc.stderr, proc.stderr


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_redrawn_on_a_terminal_and_a_line_a_tenth_in_a_log():
    log, terminal = io.StringIO(), Terminal()
    for stream in (log, terminal):
        progress = Progress(40, stream)
        for _ in range(40):
            progress.step()
    assert len(log.getvalue().splitlines()) == 11  # 0/40, 4/40, ..., 40/40
    assert log.getvalue().splitlines()[1] == f"[{'#' * (BAR // 10)}{'.' * (BAR - BAR // 10)}] 4/40 examples"
    assert terminal.getvalue().count("\r") == 41 and terminal.getvalue().endswith("40/40 examples\n")
    assert "\n" not in terminal.getvalue()[:-1]
