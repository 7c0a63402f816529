"""The entry checker: the real pages pass it, and every rule fires on its broken fixture."""

from pathlib import Path

import pytest
from entry_format import ROOT, RULES, check_site

RULE_FIXTURES = Path(__file__).parent / "fixtures" / "rules"


def test_pages_follow_the_entry_format():
    violations = check_site(ROOT / "docs" / "zh", ROOT / "docs" / "en")
    assert not violations, "\n" + "\n".join(map(str, violations))


def test_every_rule_has_a_fixture():
    assert sorted(p.name for p in RULE_FIXTURES.iterdir()) == sorted(RULES)


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_fires_with_its_message(code):
    """Each fixture breaks exactly one rule; expected.txt holds the full messages (paths relative to the fixture)."""
    fixture = RULE_FIXTURES / code
    violations = check_site(fixture / "zh", fixture / "en")
    prefix = f"{fixture.relative_to(ROOT)}/"
    reported = [str(v).replace(prefix, "") for v in violations]
    expected = (fixture / "expected.txt").read_text("utf-8").splitlines()
    assert reported == expected
    assert {v.code for v in violations} == {code}
