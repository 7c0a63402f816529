"""The scaffolder writes a stub that the checker accepts structurally and flags as unfinished."""

import pytest
from entry_format import check_site
from new_entry import main


def test_new_page_stub_is_flagged_only_as_unfinished(tmp_path):
    main(["topic", "do-something"], docs=tmp_path)
    violations = check_site(tmp_path / "zh", tmp_path / "en")
    # The page intro and the entry carry TODOs; everything else about the stub is well formed.
    assert {v.code for v in violations} == {"ENTRY010"}
    assert {v.entry_id for v in violations} == {"do-something", "-"}  # "-": the page intro


def test_stub_goes_after_the_named_entry_in_both_languages(tmp_path):
    main(["topic", "first"], docs=tmp_path)
    main(["topic", "third"], docs=tmp_path)
    main(["topic", "second", "--after", "first"], docs=tmp_path)
    for lang in ("zh", "en"):
        text = (tmp_path / lang / "topic.md").read_text("utf-8")
        assert text.index("{ #first }") < text.index("{ #second }") < text.index("{ #third }")
    assert not [v for v in check_site(tmp_path / "zh", tmp_path / "en") if v.code != "ENTRY010"]


def test_duplicate_id_is_refused(tmp_path):
    main(["topic", "first"], docs=tmp_path)
    with pytest.raises(SystemExit, match="already used"):
        main(["other", "first"], docs=tmp_path)
