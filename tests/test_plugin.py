"""The plugin and its runner, tested the way pytest plugins are: run pytest on pages written here
and check what it reports. Each guarantee is shown to hold, and each way of breaking it to fail."""

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import TORCH, early, outcome, run_pytest, write_site
from probe_pages import ABSENT, entry

from cheatsheet.check.outputs import Unplaceable, expected_code, mismatch
from cheatsheet.model.pages import Fence
from cheatsheet.model.record import check as check_record
from cheatsheet.model.record import release_of


@pytest.fixture(scope="module")
def probes(probe_run):
    return probe_run[1]


def test_resume_skips_what_the_record_vouches_for_and_keeps_its_row(probe_run):
    root, output = probe_run
    assert f"[already-verified] already verified on cpu (an earlier machine, torch {TORCH}, 2026-11-30): --resume" in output
    assert rows(root)["already-verified"]["device"] == "an earlier machine"


def test_the_record_says_what_passed_failed_or_needs_a_gpu(probe_run):
    root, _ = probe_run
    results = {entry: row["result"] for entry, row in rows(root).items()}
    assert results["good-output"] == results["fresh-state"] == "passed"
    assert results["run001"] == results["run003"] == results["system-exit-fails"] == "failed"
    assert results["cuda-only"] == "needs-cuda"
    # a listed package this environment lacks: not run, and the row names the package
    assert (results["listed-but-absent"], rows(root)["listed-but-absent"]["note"]) == ("needs-package", ABSENT)


def test_each_row_says_who_ran_it_and_what_failed(probe_run):
    root, _ = probe_run
    found = rows(root)
    assert {row["source"] for row in found.values()} == {"ci"}
    assert found["good-output"]["note"] == ""
    assert found["run001"]["note"] == "RUN001 -#> tensor(3.) / +#> tensor(2.)"
    assert found["system-exit-fails"]["note"] == "RUN002 SystemExit: 0"
    assert found["run003"]["note"].startswith("RUN003 example on cpu: no result after 3 s")


@pytest.mark.parametrize("test", ["good-output[cpu]", "leaves-state[cpu]", "fresh-state[cpu]", "cpu-run-sees-no-gpu[cpu]",
                                  "environment-is-an-allowlist[cpu]", "network-is-blocked[cpu]", "after-the-hang[cpu]",
                                  "c-level-output[cpu]", "shell-example[cpu]", "good-output[entry]", "[page]"])
def test_probe_passes(probes, test):
    assert outcome(probes, test) == "PASSED", probes


def test_the_run_s_figures_count_examples_and_the_fork_server(probe_run):
    """--stats-json (what `bench --suite` reads): examples run and their run time per kind, the
    slowest runs, the span, and how the workers and the fork server started. The shell probe's `python` came from
    the fork server, not from a real interpreter."""
    root, _ = probe_run
    figures = json.loads((root / "stats.json").read_text("utf-8"))
    assert figures["examples"]["bash on cpu"]["count"] == 1 and figures["examples"]["python on cpu"]["count"] > 5
    assert figures["span"] > 0
    assert re.fullmatch(r"\d+\.\d s, 0 real interpreter\(s\)", figures["startup"]["cpu fork server"])
    slowest = figures["slowest"]  # the ten longest runs, longest first, each named by page and line
    assert len(slowest) == 10 and [s for _, s in slowest] == sorted((s for _, s in slowest), reverse=True)
    assert all(re.fullmatch(r"[\w-]+\.md:\d+ on cpu", where) for where, _ in slowest), slowest


def test_a_hang_is_killed_from_outside_and_the_run_goes_on(probes):
    # RUN003's fixture catches BaseException in a loop, which would swallow an in-process timeout.
    assert outcome(probes, "run003[cpu]") == "FAILED"
    assert re.search(r"RUN003/page\.md:\d+: \[run003\] RUN003 example on cpu: no result after 3 s", probes)
    assert outcome(probes, "after-the-hang[cpu]") == "PASSED"


def test_system_exit_is_a_failure(probes):
    assert outcome(probes, "system-exit-fails[cpu]") == "FAILED"
    assert "SystemExit: 0" in probes


def test_a_warning_raised_by_the_example_fails_it(probes):
    assert outcome(probes, "deprecation-warning-fails[cpu]") == "FAILED"
    assert "UserWarning: TypedStorage is deprecated" in probes


def test_an_example_s_own_jit_script_fails_on_every_release(probes):
    # torch's own imports may raise this warning unseen; an example's call to it may not.
    assert outcome(probes, "own-jit-script-fails[cpu]") == "FAILED"
    assert re.search(r"(DeprecationWarning|FutureWarning): `torch.jit.script` is deprecated", probes)


def test_an_import_of_a_listed_but_absent_package_is_a_skip(probes):
    skipped = [line for line in probes.splitlines() if line.startswith("SKIPPED") and "[listed-but-absent] needs" in line]
    assert len(skipped) == 1 and skipped[0].endswith(f"[listed-but-absent] needs {ABSENT}, which this environment lacks"), probes
    assert not re.search(r"^(PASSED|FAILED) \S+::listed-but-absent\[cpu\]", probes, re.M)
    assert outcome(probes, "unlisted-module-fails[cpu]") == "FAILED"
    assert re.search(r"\[unlisted-module-fails\] RUN002 example on cpu failed", probes), probes
    assert "ModuleNotFoundError: No module named 'cheatsheet_unlisted_probe'" in probes


def test_every_skip_names_its_entry_and_reason(probes):
    skips = [line for line in probes.splitlines() if line.startswith("SKIPPED")]
    assert any("[cuda-only] example needs CUDA (fence option requires-cuda)" in line for line in skips), skips
    if "CUDA run not possible here" in probes:
        assert any("[good-output] CUDA run not possible here" in line for line in skips), skips
    assert all(re.search(r"\[[a-z0-9-]+\]", line) for line in skips), skips


def test_examples_report_the_torch_they_ran_on(probes):
    assert re.search(r"example workers on cpu: torch \d+\.\d+", probes)


# --- one site through its life: fill the output lines, record, change an entry, resume ----------

FILL = entry("needs-output", """
    import torch

    x = torch.arange(3)
    print(x)
    for i in range(2):
        print(i)
    print(x.device.type)  # 设备
""") + entry("stale-output", """
    print("new")
    #> old
""") + entry("device-lines", """
    import torch

    print(torch.ones(1).sum().item())
    #> 2.0
    print("cuda" if torch.cuda.is_available() else "cpu")
    #cpu> cpu
    #cuda> cuda
""")
# Output lines that sit after the last statement, though the first statement printed one of them.
MISPLACED = entry("misplaced-output", """
    print(1)
    print(2)
    #> 1
    #> 2
""")
# The same with lines written for CUDA alone: no CPU run can tell which statement prints them.
MISPLACED_CUDA = entry("misplaced-cuda-lines", """
    import torch

    print(1)
    print("cuda" if torch.cuda.is_available() else "cpu")
    #> 1
    #cpu> cpu
    #cuda> cuda
""")
FILL += MISPLACED
RECORD = entry("gpu-only", """
    import torch

    print(torch.cuda.is_available())
    #> True
""", fence="{.python requires-cuda}")


def rows(root, device="cpu"):
    with open(root / "verification" / release_of(TORCH) / f"{device}.csv", encoding="utf-8") as f:
        return {row["entry"]: row for row in csv.DictReader(f)}


# A recipe: the whole file is one example; its cells share one process.
RECIPE = {
    "zh": ("# %% [markdown]\n# # 测试实战\n\n# %%\nx = 2\nprint(x)\n\n"
           "# %% [markdown]\n# 下一步。\n\n# %%\nprint(x * 21)  # 同一进程\n"),
    "en": ("# %% [markdown]\n# # Test recipe\n\n# %%\nx = 2\nprint(x)\n\n"
           "# %% [markdown]\n# Next.\n\n# %%\nprint(x * 21)  # same process\n"),
}


def write_recipe(docs, name: str, recipe: dict[str, str]) -> None:
    for lang, text in recipe.items():
        (docs / lang / "recipes").mkdir(parents=True, exist_ok=True)
        (docs / lang / "recipes" / f"{name}.py").write_text(text, "utf-8")


@early
def filled(root):
    """One --update-output run over a site; returns the run and both languages' pages after it."""
    docs = write_site(root, {"site": "# 测试页\n" + FILL + RECORD}).parent
    write_recipe(docs, "recipe", RECIPE)
    proc = run_pytest(root, "--update-output", "-m", "cpu", "--workers", "1")
    pages = {lang: (docs / lang / "site.md").read_text("utf-8") for lang in ("zh", "en")}
    recipes = {lang: (docs / lang / "recipes" / "recipe.py").read_text("utf-8") for lang in ("zh", "en")}
    return proc, pages, recipes


def test_update_output_writes_what_ran_into_both_languages(filled):
    proc, texts, _ = filled
    assert proc.returncode == 0, proc.stdout
    for text in texts.values():
        assert "print(x)\n#> tensor([0, 1, 2])\nfor i in range(2):\n    print(i)\n#> 0\n#> 1\n" in text
        # Taken to be the same on CUDA until a GPU run says otherwise (the record tells which ran).
        assert "print(x.device.type)  # 设备\n#> cpu\n" in text
        assert 'print("new")\n#> new\n' in text and "#> old" not in text
    assert "# 设备" in texts["en"] and "#> tensor([0, 1, 2])" in texts["en"]  # comments kept, outputs written


def test_output_lines_are_checked_under_the_statement_that_printed_them(inner):
    """The same flat output is not enough: each line belongs under its statement, and the failure
    is the diff between the page and what `--update-output` would write."""
    write_site(inner.path, {"site": "# 测试页\n" + MISPLACED + MISPLACED_CUDA})
    result = inner.runpytest_subprocess("-m", "cpu", "--workers", "1")
    out = str(result.stdout)
    assert "FAILED docs/zh/site.md::misplaced-output[cpu]" in out, out
    # Line 16 is the first that differs: `#> 1` belongs there, right under `print(1)`.
    assert "docs/zh/site.md:16: [misplaced-output] RUN001" in out, out
    assert "\n print(1)\n+#> 1\n print(2)\n-#> 1\n #> 2\n" in out, out
    assert "FAILED docs/zh/site.md::misplaced-cuda-lines[cpu]" in out
    assert "[misplaced-cuda-lines] RUN001 the output lines on cpu cannot be checked: the `#cuda>` lines after line" in out, out
    # --update-output repairs the first; the second it leaves as it is, still failing, for a person to place.
    result = inner.runpytest_subprocess("-m", "cpu", "--workers", "1", "--update-output")
    page = (inner.path / "docs" / "zh" / "site.md").read_text("utf-8")
    assert "print(1)\n#> 1\nprint(2)\n#> 2\n" in page
    assert 'print("cuda" if torch.cuda.is_available() else "cpu")\n#> 1\n#cpu> cpu\n#cuda> cuda\n' in page
    assert "FAILED docs/zh/site.md::misplaced-cuda-lines[cpu]" in str(result.stdout)


def test_update_output_fills_the_english_page_when_only_it_lacks_the_lines(inner):
    write_site(inner.path, {"site": "# 测试页\n" + entry("english-behind", "print(1 + 1)\n#> 2")})
    en = inner.path / "docs" / "en" / "site.md"
    en.write_text(en.read_text("utf-8").replace("print(1 + 1)\n#> 2\n", "print(1 + 1)\n"), "utf-8")
    inner.runpytest_subprocess("-m", "cpu", "--workers", "1", "--update-output")
    assert "print(1 + 1)\n#> 2\n" in en.read_text("utf-8")


def test_update_output_moves_output_lines_under_their_statement(filled):
    _, texts, _ = filled
    for text in texts.values():
        assert "print(1)\n#> 1\nprint(2)\n#> 2\n" in text


def test_update_output_keeps_lines_written_for_a_device_that_did_not_run(filled):
    _, texts, _ = filled
    # A shared line follows the run; a line written for CUDA alone stays until a GPU run rewrites it.
    assert "print(torch.ones(1).sum().item())\n#> 1.0\n" in texts["en"]
    assert "#cpu> cpu\n#cuda> cuda\n" in texts["en"]


def test_a_recipe_runs_as_one_program_and_gets_its_output_lines(filled):
    _, _, recipes = filled
    assert "print(x)\n#> 2\n" in recipes["zh"] and "print(x * 21)  # 同一进程\n#> 42\n" in recipes["zh"]
    assert "print(x * 21)  # same process\n#> 42\n" in recipes["en"] and "# Next." in recipes["en"]


def test_a_recipe_whose_output_changed_fails_at_its_line(inner):
    docs = write_site(inner.path, {})
    broken = {lang: text.replace("print(x)\n", "print(x)\n#> 3\n") for lang, text in RECIPE.items()}
    write_recipe(docs.parent, "recipe", broken)
    result = inner.runpytest_subprocess("-m", "cpu", "--workers", "1")
    assert result.ret != 0
    out = str(result.stdout)
    assert "FAILED docs/zh/recipes/recipe.py::recipe-recipe[cpu]" in out
    # Reported at the first line that differs (line 7 of the file: the output line of `print(x)`), with the diff.
    assert "docs/zh/recipes/recipe.py:7: [recipe-recipe] RUN001" in out and "\n-#> 3\n+#> 2\n" in out, out


def test_a_changed_example_makes_its_row_stale(probe_run, tmp_path):
    root, _ = probe_run
    shutil.copytree(root / "docs", tmp_path / "docs")
    shutil.copytree(root / "verification", tmp_path / "verification")
    def problems():
        return [p for p in check_record(tmp_path / "docs", tmp_path, tmp_path / "verification") if p.entry_id == "good-output"]

    assert problems() == []
    for lang in ("zh", "en"):
        page = tmp_path / "docs" / lang / "A-probes.md"
        page.write_text(page.read_text("utf-8").replace("print(1 + 1)\n#> 2", "print(2 + 2)\n#> 4"), "utf-8")
    [stale] = problems()
    assert stale.code == "REC002" and "changed since they were verified" in stale.message


def test_record_refreshes_the_api_docs_table(tmp_path):
    """A contributor's `pytest --entry ID --record` also brings generated/api-docs.csv up to date
    (the site reads it; it is what the installed torch resolves for each entry's code line)."""
    write_site(tmp_path, {"site": "# 测试页\n" + entry("api-link", "print(1)\n#> 1", code_line="y = torch.zeros(2)")})
    table = tmp_path / "generated" / "api-docs.csv"
    table.parent.mkdir()
    table.write_text("entry,api,url\n", "utf-8")
    proc = run_pytest(tmp_path, "--record", "-m", "cpu", "--entry", "api-link", "--workers", "1")
    assert proc.returncode == 0, proc.stdout
    assert table.read_text("utf-8").splitlines()[1].startswith("api-link,torch.zeros,https://"), table.read_text("utf-8")
    assert "generated/api-docs.csv updated: commit it with the record" in proc.stdout


def test_record_and_update_output_exclude_each_other(inner):
    write_site(inner.path, {"site": "# 测试页\n" + RECORD})
    result = inner.runpytest_subprocess("--record", "--update-output")
    assert result.ret != 0
    assert "--update-output rewrites pages, --record vouches for them" in str(result.stderr) + str(result.stdout)


# --- selection -------------------------------------------------------------------------

def collected(result) -> set[str]:
    return {line for line in result.stdout.lines if line.startswith("docs/") and "::" in line}


def test_shards_split_the_pages_without_overlap(inner):
    write_site(inner.path, {f"page{i}": "# 测试页\n" + entry(f"entry-{i}", f"print({i})\n#> {i}") for i in range(5)})
    everything = collected(inner.runpytest_subprocess("--collect-only", "-q"))
    shards = [collected(inner.runpytest_subprocess("--collect-only", "-q", f"--shard={i}/3")) for i in (1, 2, 3)]
    assert all(shards) and set().union(*shards) == everything
    assert sum(len(s) for s in shards) == len(everything)


def test_entry_option_selects_by_exact_id(inner):
    write_site(inner.path, {"page": "# 测试页\n" + entry("cuda", "print(1)\n#> 1") + entry("cuda-memory", "print(2)\n#> 2")})
    selected = collected(inner.runpytest_subprocess("--collect-only", "-q", "--entry", "cuda"))
    assert selected == {f"docs/zh/page.md::cuda[{kind}]" for kind in ("entry", "cpu", "cuda")}


# --- output lines written per release --------------------------------------------------------

def _fence(code: str) -> Fence:
    return Fence(Path("page.md"), 10, "python", frozenset(), {}, code, "example")


PER_RELEASE = ('print("a")\n#> a\n'
               'raise_it()\n#torch>=2.13> RuntimeError: new wording\n#torch<2.13> RuntimeError: old wording\n')


def _printed(*texts: str) -> tuple[tuple[int, str], ...]:
    # what each statement printed, keyed by the file line where it ends (fence line 10: code from 11)
    return tuple((line, text) for line, text in zip((11, 13), texts))


@pytest.mark.parametrize("release,printed", [("2.14.1+cu130", "RuntimeError: new wording\n"),
                                             ("2.13.0", "RuntimeError: new wording\n"),
                                             ("2.12.1+cu130", "RuntimeError: old wording\n")])
def test_a_release_checks_only_its_own_per_release_lines(release, printed):
    fence = _fence(PER_RELEASE)
    assert expected_code(fence, {"cpu": _printed("a\n", printed)}, release) == fence.code
    assert fence.expected_output("cpu", release) == ["a", printed.strip()]
    assert fence.expected_output("cpu") == ["a", "RuntimeError: new wording", "RuntimeError: old wording"]


def test_a_changed_message_on_one_release_keeps_the_other_releases_lines():
    fence = _fence(PER_RELEASE)
    code = expected_code(fence, {"cpu": _printed("a\n", "RuntimeError: newer wording\n")}, "2.15.0")
    assert code == ('print("a")\n#> a\nraise_it()\n#torch<2.13> RuntimeError: old wording\n'
                    '#torch>=2.13> RuntimeError: newer wording\n')
    assert mismatch(fence, code) is not None


def test_per_release_lines_must_agree_across_devices():
    fence = _fence(PER_RELEASE)
    with pytest.raises(Unplaceable, match="per release"):
        expected_code(fence, {"cpu": _printed("a\n", "RuntimeError: new wording\n"),
                              "cuda": _printed("a\n", "RuntimeError: cuda wording\n")}, "2.14.1")


def test_per_release_lines_are_shown_as_output_on_the_site():
    from cheatsheet.site.output_lines import mark

    html = '<span class="c1">#torch&lt;2.13&gt; RuntimeError: old wording</span>\n'
    assert mark(html).startswith('<span class="output-line">')
