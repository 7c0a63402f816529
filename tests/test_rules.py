"""One table of rule codes, one fixture per rule: each fixture breaks exactly its rule and yields
exactly the messages in its expected.txt (paths relative to the fixture folder)."""

from pathlib import Path

import pytest

from cheatsheet.check.site import check_site
from cheatsheet.model.record import check as check_record
from cheatsheet.model.rules import RULES, TABLE_MARKER, Problem, UnknownRule, markdown_table
from cheatsheet.project import repo

PROJECT = repo()

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
KIND = {code: rule.kind for code, rule in RULES.items()}


def expected(code: str) -> list[str]:
    return (FIXTURES / code / "expected.txt").read_text("utf-8").splitlines()


def relative(problem: Problem, fixture: Path) -> str:
    return str(problem).replace(f"{fixture.relative_to(PROJECT.root)}/", "")


def test_every_rule_has_a_fixture():
    assert sorted(p.name for p in FIXTURES.iterdir()) == sorted(RULES)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_contributor_guide_tables_every_rule(lang):
    """The guide's table of codes is generated from RULES: the page holds only the marker that the
    site replaces with `markdown_table(lang)`, and the table has one row per code."""
    table = markdown_table(lang)
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == list(RULES)
    assert all(RULES[code].summary(lang) in row for code, row in zip(RULES, rows))
    guide = (PROJECT.docs / lang / "contributing.md").read_text("utf-8")
    assert TABLE_MARKER in guide.splitlines()
    assert "| `ENTRY001` |" not in guide, "no hand-written copy of the table left to drift"


def test_an_unknown_code_is_itself_an_error():
    with pytest.raises(UnknownRule, match="ENTRY999"):
        Problem(Path("page.md"), 1, "-", "ENTRY999", "no such rule")


@pytest.mark.parametrize("code", [c for c, k in KIND.items() if k == "check"])
def test_check_rule(code, inspect_names):
    fixture = FIXTURES / code
    problems = [p for _, p in check_site(fixture, PROJECT.snippets, inspect_names)]
    assert [relative(p, fixture) for p in problems] == expected(code)
    assert {p.code for p in problems} == {code}


@pytest.mark.parametrize("code", [c for c, k in KIND.items() if k == "record"])
def test_record_rule(code):
    fixture = FIXTURES / code
    problems = check_record(fixture, PROJECT.snippets, fixture / "verification", claimed=("2.13.0",))
    assert [relative(p, fixture) for p in problems] == expected(code)
    assert {p.code for p in problems} == {code}


@pytest.mark.parametrize("code", [c for c, k in KIND.items() if k == "run"])
def test_run_rule(code, probe_run):
    root, output = probe_run
    page = str(root / "docs" / "zh" / code / "page.md")
    assert f"FAILED docs/zh/{code}/page.md::{code.lower()}[cpu]" in output, output
    shown = output.replace(page, "zh/page.md").replace(f"[{code.lower()}]", "[sample-entry]")
    for line in expected(code):
        assert line in shown, f"{line!r} not in:\n{output}"
    reported = {word for line in shown.splitlines() if line.startswith("zh/page.md:") for word in line.split() if word in RULES}
    assert reported == {code}, output


def test_a_needs_package_row_is_what_a_release_installed_without_that_package_can_say():
    """REC007's fixture row is the right one where the release is installed without torchvision
    (Project.lacking: the pin's paired packages, on every other release), and only there."""
    fixture = FIXTURES / "REC007"
    assert check_record(fixture, PROJECT.snippets, fixture / "verification", ("2.13.0",), {"2.13.0": ("torchvision",)}) == []
    wrong = check_record(fixture, PROJECT.snippets, fixture / "verification", ("2.13.0",), {"2.13.0": ("safetensors",)})
    assert [p.code for p in wrong] == ["REC007"] and "installed without safetensors" in wrong[0].message


def test_a_cuda_only_example_that_prints_may_wait_for_a_gpu_to_write_its_lines(tmp_path, inspect_names):
    """No machine without a GPU can write a requires-cuda example's `#cuda>` lines, and none may be
    typed by hand: such an example needs only to print. One that prints nothing is still ENTRY007."""
    from conftest import write_site

    fence = "```{.python requires-cuda}\nimport torch\n\n%s\n```\n"
    page = ("# 测试页\n\n### 示例 { #sample-entry }\n\n```python\ny = torch.ones(2)\n```\n\n- 助记：ones = 全是 1。\n"
            "- 作用：全 1 张量。\n- 使用前提：已 `import torch`。\n\n**解释性示例：**\n\n")
    docs = write_site(tmp_path, {"prints": page + fence % 'print(torch.ones(2, device="cuda").sum())',
                                 "silent": page.replace("sample-entry", "silent-entry") + fence % 'torch.ones(2, device="cuda")'})
    problems = [p for _, p in check_site(docs.parent, PROJECT.snippets, inspect_names)]
    assert [(p.entry_id, p.code) for p in problems] == [("silent-entry", "ENTRY007")] * 2, problems
