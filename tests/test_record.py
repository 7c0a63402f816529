"""The committed verification record says exactly what ran: a current, passing CPU row for every
entry, and no row (CPU or CUDA) that vouches for code that has changed since."""

from cheatsheet import DOCS, SNIPPETS, VERIFICATION
from cheatsheet.record import check, summary


def test_the_committed_record_matches_the_pages():
    problems = check(DOCS, SNIPPETS, VERIFICATION)
    assert not problems, "\n" + "\n".join(map(str, problems))


def test_cuda_rows_come_from_a_cuda_device():
    cuda = summary(VERIFICATION)["cuda"]
    # A CUDA row names the GPU and its compute capability, as the CUDA worker reports it.
    assert all("(sm_" in device for device in cuda["devices"]), cuda["devices"]
