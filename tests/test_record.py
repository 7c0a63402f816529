"""The committed verification record says exactly what ran: a current, passing CPU row for every
entry, no row (CPU or CUDA) that vouches for code that has changed since, and CUDA rows only from
a GPU (each of these is a rule with its own fixture: REC001-REC005 in tests/fixtures/rules/)."""

from cheatsheet.model.record import check
from cheatsheet.project import repo

PROJECT = repo()


def test_the_committed_record_matches_the_pages():
    problems = check(PROJECT.docs, PROJECT.snippets, PROJECT.record, PROJECT.releases)
    assert not problems, "\n" + "\n".join(map(str, problems))

