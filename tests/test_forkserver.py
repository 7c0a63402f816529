"""The fork server of the shell examples (cheatsheet/run/forkserver.py): a Python process it
forks sees what a real interpreter would, exits as it would, and nothing of a timed-out example
stays behind. Each comparison runs the same shell code twice, with and without the server."""

import os
import textwrap
import time
from pathlib import Path

import pytest

from cheatsheet.pytest_plugin import RUN_KEY
from cheatsheet.run.pool import ForkServer, TaskTimeout, WorkerDied, run_shell

PROBE = textwrap.dedent('''\
    import multiprocessing.process, os, sys, warnings
    def here(path):  # each run has its own working directory (and HOME)
        return path.replace(os.environ["HOME"], "~")
    print("torch imported already:", "torch" in sys.modules)  # the one line that differs
    print("argv:", [here(a) for a in sys.argv], "name:", __name__, "file:", here(__file__))
    print("path[0]:", here(sys.path[0]), "cwd:", os.getcwd() == os.environ["HOME"])
    print("mp start dir:", multiprocessing.process.ORIGINAL_DIR == os.getcwd())
    print("env:", os.environ.get("EXAMPLE_SETTING"), "stdin is a tty:", sys.stdin.isatty())
    import torch, torch._dynamo  # the server's imports: after them, the filters are a fresh interpreter's
    print("warning filters:", [f[:3:2] for f in warnings.filters], "warnoptions:", sys.warnoptions)
    print("threads:", torch.get_num_threads())
''')


@pytest.fixture(scope="module")
def server(pytestconfig):
    """The fork server of this session's CPU shell examples (one torch import, not two)."""
    server = pytestconfig.stash[RUN_KEY].session.forkserver("cpu")
    assert server is not None, "the session's fork server did not start"
    return server


@pytest.fixture
def snippets(tmp_path):
    (tmp_path / "probe.py").write_text(PROBE, "utf-8")
    return tmp_path


def both(code: str, snippets: Path, server: ForkServer, timeout: float = 60):
    return run_shell(code, "cpu", snippets, timeout), run_shell(code, "cpu", snippets, timeout, server)


def test_a_forked_python_sees_what_a_real_one_sees(server, snippets):
    before = server.fallbacks()
    real, forked = both("EXAMPLE_SETTING=7 OMP_NUM_THREADS=1 python -u -W ignore::UserWarning probe.py one two",
                        snippets, server)
    assert real.error is None and forked.error is None, (real.stderr, forked.stderr)
    real_lines, forked_lines = real.printed, forked.printed
    assert real_lines[0] == "torch imported already: False"
    assert forked_lines[0] == "torch imported already: True"
    assert forked_lines[1:] == real_lines[1:]
    assert "threads: 1" in forked_lines and any("'ignore::UserWarning'" in line for line in forked_lines)
    assert server.fallbacks() == before


def test_module_and_command_modes_match_the_interpreter(server, snippets):
    (snippets / "where.py").write_text("import os, sys\nprint(sys.argv[1:], __name__, sys.path[0] == os.getcwd())\n")
    code = "python -c 'import sys; print(sys.argv, repr(sys.path[0]))' a; python -m where x"
    real, forked = both(code, snippets, server)
    assert real.error is None and forked.error is None, forked.stderr
    assert forked.printed == real.printed
    assert forked.printed == ["['-c', 'a'] ''", "['x'] __main__ True"]


@pytest.mark.parametrize(("code", "status"), [
    ("python -c 'import sys; sys.exit(3)'", 3),
    ("python -c 'raise ValueError(42)'", 1),
    # bash runs a lone command in its own place, so the shell reports the signal itself
    ("python -c 'import os, signal; os.kill(os.getpid(), signal.SIGTERM)'", -15),
])
def test_exit_status_and_death_by_signal_reach_the_shell(server, snippets, code, status):
    real, forked = both(code, snippets, server)
    assert real.error == forked.error == f"exit status {status}"
    if status == 1:
        assert "ValueError: 42" in forked.stderr


def test_an_option_it_does_not_model_runs_the_real_interpreter(server, snippets):
    before = server.fallbacks()
    result = run_shell("python -X dev -c 'import sys; print(\"torch\" in sys.modules)'", "cpu", snippets, 60, server)
    assert result.printed == ["False"]
    assert server.fallbacks() == before + 1


def test_torchrun_and_its_workers_come_from_the_server(server, snippets):
    # One write per rank (under PIPE_BUF, so atomic): print() with several arguments writes them
    # piecewise to an unbuffered pipe, and the two ranks' pieces could interleave ("01 torch ...").
    (snippets / "ranks.py").write_text(
        "import os, sys\nsys.stdout.write(f\"{os.environ['RANK']} torch imported already: {'torch' in sys.modules}\\n\")\n",
        "utf-8")
    before = server.fallbacks()
    result = run_shell("torchrun --standalone --nnodes=1 --nproc-per-node=2 ranks.py | sort", "cpu", snippets, 120, server)
    assert result.error is None, result.stderr
    assert result.printed == ["0 torch imported already: True", "1 torch imported already: True"]
    assert server.fallbacks() == before


def test_a_server_that_does_not_start_says_so(tmp_path):
    """Session.forkserver turns this into real interpreters for the shell examples."""
    with pytest.raises(WorkerDied, match="the fork server did not start"):
        ForkServer("cpu", tmp_path, timeout=0.01)


def test_a_timed_out_example_leaves_no_fork_behind(server, snippets):
    code = "python -c 'import os, time; open(\"pid\", \"w\").write(str(os.getpid())); time.sleep(60)' & wait"
    (snippets / "keep").mkdir()
    code = code.replace('"pid"', f'"{snippets / "keep" / "pid"}"')
    with pytest.raises(TaskTimeout):
        run_shell(code, "cpu", snippets, 3, server)
    pid = int((snippets / "keep" / "pid").read_text())
    for _ in range(50):  # SIGKILL is sent; the server reaps the fork
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"fork {pid} of the timed-out example is still running")
