"""`python -m cheatsheet status`: which entries may have a stale translation? (advisory)

For every entry, `git blame` gives the newest commit among the entry's lines on the Chinese page
and on the English page. When the two differ, one side changed without the other: the report
names the newer side, so a translator knows which text to bring across. Uncommitted edits count
as the newest change.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cheatsheet.model.langs import LANGS
from cheatsheet.model.pages import parse_page, site_files
from cheatsheet.project import Project, repo

PROJECT = repo()

UNCOMMITTED = "0" * 40


def line_commits(path: Path, repo: Path) -> list[tuple[str, int]]:
    """(commit, commit time) for each line of the file, as git blame sees it."""
    out = subprocess.run(
        ["git", "blame", "--line-porcelain", "--", str(path.relative_to(repo))],
        cwd=repo, capture_output=True, text=True, check=True,
    ).stdout
    commits, current, times = [], None, {}
    for line in out.splitlines():
        if line[:40].isalnum() and len(line.split()) >= 3 and len(line.split()[0]) == 40:
            current = line.split()[0]
        elif line.startswith("committer-time "):
            times[current] = int(line.split()[1])
        elif line.startswith("\t"):
            commits.append((current, times.get(current, 0)))
    return commits


def newest(commits: list[tuple[str, int]], first: int, last: int) -> tuple[str, int]:
    span = commits[first - 1:last]
    if any(c == UNCOMMITTED for c, _ in span):
        return UNCOMMITTED, sys.maxsize
    return max(span, key=lambda item: item[1])


def stale_entries(repo: Path = PROJECT.root) -> list[str]:
    report = []
    zh, en = LANGS
    docs = Project.load(repo).docs
    zh_root, en_root = docs / zh, docs / en
    for zh_path in site_files(zh_root):
        en_path = en_root / zh_path.relative_to(zh_root)
        if not en_path.exists():
            continue  # a missing page is the checker's business (PAIR001)
        zh_commits, en_commits = line_commits(zh_path, repo), line_commits(en_path, repo)
        en_entries = {e.id: e for e in parse_page(en_path, en).entries}
        for z in parse_page(zh_path, zh).entries:
            e = en_entries.get(z.id)
            if e is None:
                continue
            zh_commit, zh_time = newest(zh_commits, z.line, z.end_line)
            en_commit, en_time = newest(en_commits, e.line, e.end_line)
            if zh_commit == en_commit:
                continue
            newer, older = (zh, en) if zh_time > en_time else (en, zh)
            commit = zh_commit if newer == zh else en_commit
            where = "uncommitted edits" if commit == UNCOMMITTED else f"commit {commit[:10]}"
            report.append(f"{zh_path.relative_to(repo)}:{z.line}: [{z.id}] {newer} changed later ({where}); "
                          f"check the {older} side")
    return report

