"""The translation-status report names entries whose languages changed in different commits."""

import os
import shutil
import subprocess

from entry_format import ROOT
from translation_status import stale_entries

PAGE_PAIR = ROOT / "tests" / "fixtures" / "rules" / "ENTRY008"  # any valid-shaped zh/en page pair


def git(repo, *args, date="2026-01-01T00:00:00"):
    # Explicit dates: both commits would otherwise fall in the same second.
    env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=repo, check=True, capture_output=True, env=env)


def test_reports_the_side_changed_later(tmp_path):
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
