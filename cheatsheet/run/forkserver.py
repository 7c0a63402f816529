"""A fork server for the Python processes that shell examples start.

A `torchrun --nproc-per-node=2` example starts three Python processes (the launcher and two
workers), and each imports torch: about 2.5 s of CPU apiece on this project's machines, most of
what such an example costs. Here one process imports torch once, and each of those Python
processes becomes a fork of it instead: the Python examples' workers already run examples with
torch imported beforehand; this does the same for every process a shell example starts, each one
still a process of its own.

* `python`, `python3` and `torchrun` in a directory put first on the example's PATH are small
  scripts (SHIM) that pass their arguments, environment, working directory and open file
  descriptors to the server over a Unix socket, forward signals to the fork, and exit as it
  exited. torchrun's workers come the same way: PYTHON_EXEC (torchrun's own setting) names the
  `python` script, and so do multiprocessing's spawned children (its set_executable).
  `torchrun` is run as its console script, the file pip installed.
* What the fork then does is what `python [-u] [-W arg] (SCRIPT | -m MODULE | -c CODE) ARGS`
  would: a fresh `__main__`, sys.argv, sys.path[0], os.environ, the working directory and the
  descriptors as given, OMP_NUM_THREADS applied (the OpenMP runtime read it when torch loaded),
  and the interpreter's own exit (atexit, non-daemon threads). Any other interpreter option, or
  PYTHON* settings other than the server's, makes the script exec the real interpreter instead.
* Known differences from a fresh interpreter: torch, torch._dynamo (which DDP and FSDP import on
  first use; the settings it reads from the environment at import are the server's) and this
  module are imported already, their objects are frozen out of garbage collection (gc.freeze, as
  in the example workers), `sys.executable` is the real interpreter, and every fork shares the
  server's hash seed.

The parent side is `ForkServer` (cheatsheet/run/pool.py's run_shell uses it); this module's
`main` is the server.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
import types

# PYTHON* variables that only name things for other programs, not interpreter settings.
NOT_INTERPRETER_SETTINGS = ("PYTHON_EXEC",)
SOCKET_VAR = "CHEATSHEET_FORKSERVER"  # the socket's path, in the example's environment
TOKEN_VAR = "CHEATSHEET_SHELL_EXAMPLE"  # which shell example a process belongs to
HIGH_FD = 1024  # received descriptors are parked above this while the fork takes its own numbers

# The scripts on PATH, started with -IS (isolated, no site module): no torch, about 15 ms. If the
# server cannot be reached, or it answers "fallback", the real program runs in the script's place.
SHIM = '''\
import json, os, signal, socket, sys
REAL = {real!r}
PREFIX = {prefix!r}


def real():
    os.execv(REAL, [REAL] + sys.argv[1:])


try:
    conn = socket.socket(socket.AF_UNIX)
    conn.connect(os.environ[{socket_var!r}])
except (KeyError, OSError):
    real()
fds = []
for name in os.listdir("/proc/self/fd"):
    try:
        fd = int(name)
        os.fstat(fd)
    except (ValueError, OSError):
        continue
    if fd != conn.fileno():
        fds.append(fd)
request = json.dumps({{"argv": PREFIX + sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd(),
                      "fds": fds}}).encode()
socket.send_fds(conn, [len(request).to_bytes(8, "big")], fds)
conn.sendall(request)
reader = conn.makefile("rb")
answer = json.loads(reader.readline() or b'{{"fallback": true}}')
if answer.get("fallback"):
    conn.close()
    real()
pid = answer["pid"]


def forward(signum, frame):
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        pass


for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
    signal.signal(signum, forward)
status = json.loads(reader.readline() or b'{{"status": 9}}')["status"]
if os.WIFSIGNALED(status):  # die of the same signal
    if os.WTERMSIG(status) not in (signal.SIGKILL, signal.SIGSTOP):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.waitstatus_to_exitcode(status))
'''


def write_shims(bin_dir: str, python: str, torchrun: str) -> None:
    shim_python = f"#!{sys.executable} -IS\n"  # one argument: Linux passes the rest of the line as one
    for name, real, prefix in (("python", python, []), ("python3", python, []), ("torchrun", torchrun, [torchrun])):
        path = os.path.join(bin_dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(shim_python + SHIM.format(real=real, prefix=prefix, socket_var=SOCKET_VAR))
        os.chmod(path, 0o755)


def interpreter_settings(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith("PYTHON") and k not in NOT_INTERPRETER_SETTINGS}


def plan(argv: list[str]) -> tuple[str, str, list[str], list[str]] | None:
    """(mode, target, sys.argv, -W options) for `python ARGV`, mode one of script, module,
    command; None for what this server does not do the way the interpreter would."""
    warnoptions: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "-u":  # the server runs unbuffered already (PYTHONUNBUFFERED=1 for every example)
            if os.environ.get("PYTHONUNBUFFERED") != "1":
                return None
        elif arg.startswith("-W"):
            if arg == "-W":
                i += 1
                if i == len(argv):
                    return None
            warnoptions.append(argv[i] if arg == "-W" else arg[2:])
        elif arg in ("-c", "-m"):
            if i + 1 == len(argv):
                return None
            mode = "command" if arg == "-c" else "module"
            return mode, argv[i + 1], [arg if arg == "-c" else "-m", *argv[i + 2:]], warnoptions
        elif arg.startswith("-") and arg != "-":
            return None
        else:
            return "script", arg, argv[i:], warnoptions
        i += 1
    return None  # the interactive interpreter


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    header, fds, _, _ = socket.recv_fds(conn, 8, 1024)
    size = int.from_bytes(header, "big")
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return json.loads(data), fds


def _take_descriptors(received: list[int], targets: list[int]) -> None:
    """Make the received descriptors the fork's only ones, at the numbers the script had them."""
    import fcntl

    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, HIGH_FD) for fd in received]
    os.closerange(0, HIGH_FD)  # the server's socket, its pipe, other scripts' connections
    for fd, target in zip(high, targets, strict=True):
        os.dup2(fd, target)
    os.closerange(HIGH_FD, max(high, default=HIGH_FD) + 1)


def serve(listener: socket.socket, lifeline: int, torch) -> tuple[str, str, list[str], list[str]]:
    """Accept requests until `lifeline` (a pipe whose other end the parent holds) closes. Returns
    only in a fork, with what it is to run."""
    own_settings = interpreter_settings(dict(os.environ))
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: dict[int, list] = {}  # pid -> [the script's connection (None once it is gone), its token]
    while True:
        waiting = [conn for conn, _ in children.values() if conn is not None]
        ready, _, _ = select.select([listener, wake_r, lifeline, *waiting], [], [])
        if lifeline in ready:  # the parent is gone: so is every fork
            for pid in children:
                _kill(pid)
            sys.exit(0)
        if wake_r in ready:
            while True:
                try:
                    if not os.read(wake_r, 512):
                        break
                except BlockingIOError:
                    break
            while children:
                pid, status = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                conn, _ = children.pop(pid, (None, ""))
                if conn is not None:  # the script exits as its fork did
                    try:
                        conn.sendall(json.dumps({"status": status}).encode() + b"\n")
                    except OSError:
                        pass
                    conn.close()
        for pid, child in children.items():
            if child[0] in ready and _closed(child[0]):  # the script died: so does its fork
                _kill(pid)
                child[0].close()
                child[0] = None
        if listener not in ready:
            continue
        conn, _ = listener.accept()
        try:
            request, fds = _receive(conn)
        except (OSError, EOFError, ValueError):
            conn.close()
            continue
        if "kill" in request:  # the shell example is over or timed out: nothing of it may stay
            for pid, (_, token) in list(children.items()):
                if token == request["kill"]:
                    _kill(pid)
            conn.close()
            continue
        what = plan(request["argv"])
        if what is None or interpreter_settings(request["env"]) != own_settings:
            print("fallback to the real interpreter:", request["argv"], flush=True)
            for fd in fds:
                os.close(fd)
            conn.sendall(b'{"fallback": true}\n')
            conn.close()
            continue
        pid = os.fork()
        if pid == 0:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for sock in (listener, conn, *(c for c, _ in children.values() if c is not None)):
                sock.detach()  # closed below with the server's other descriptors
            os.setpgid(0, 0)  # its own group, as torchrun gives each worker: killing it reaches its children
            _take_descriptors(fds, request["fds"])
            os.environ.clear()
            os.environ.update(request["env"])
            os.chdir(request["cwd"])
            if "multiprocessing.process" in sys.modules:  # the directory it started in, read at import
                sys.modules["multiprocessing.process"].ORIGINAL_DIR = request["cwd"]
            if "multiprocessing.spawn" in sys.modules and "PYTHON_EXEC" in os.environ:
                # spawn's children ("a fresh interpreter") come from here too, not from this fork
                sys.modules["multiprocessing.spawn"].set_executable(os.environ["PYTHON_EXEC"])
            if "OMP_NUM_THREADS" in os.environ:
                torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
            if "numpy" in sys.modules:  # a fresh process seeds numpy afresh (random reseeds itself on fork)
                sys.modules["numpy"].random.seed()
            return what
        for fd in fds:
            os.close(fd)
        children[pid] = [conn, request["env"].get(TOKEN_VAR, "")]
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")


def _closed(conn: socket.socket) -> bool:
    try:
        return not conn.recv(1, socket.MSG_PEEK)
    except OSError:
        return True


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(mode: str, target: str, argv: list[str], warnoptions: list[str], filters: tuple[list, list]) -> None:
    """Run as `python` would: in a fresh __main__, with the interpreter's exit after it.
    `filters`: the warning filters the server started with, and those its imports added."""
    import runpy
    import warnings

    sys.argv[:] = argv
    sys.warnoptions.extend(warnoptions)
    # The start-up filters with -W applied, as the interpreter makes them, then what the imports
    # added, as if they had run after start-up (in place: the C side holds this list).
    at_startup, imported = filters
    warnings.filters[:] = at_startup
    warnings._processoptions(warnoptions)
    warnings.filters[:0] = imported
    warnings._filters_mutated()
    main = types.ModuleType("__main__")
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    library_path = sys.path[1:]  # [0] is the server's own
    if mode == "module":
        sys.path[:] = [os.getcwd(), *library_path]
        runpy._run_module_as_main(target, alter_argv=True)
        return
    if mode == "command":
        sys.path[:] = ["", *library_path]
        exec(compile(target, "<string>", "exec"), main.__dict__)
        return
    sys.path[:] = [os.path.dirname(os.path.realpath(target)), *library_path]
    with open(target, "rb") as f:
        source = f.read()
    main.__file__ = os.path.abspath(target)  # as Python 3.9+ sets it
    main.__cached__ = None
    exec(compile(source, target, "exec"), main.__dict__)


def main() -> None:
    socket_path, ready_fd, lifeline = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    import gc
    import warnings

    at_startup = list(warnings.filters)
    import torch

    # DistributedDataParallel and fully_shard import it on first use: 1.6 s in every torchrun
    # worker. Imported here, its import-time warnings (errors, as in the examples) stop the server.
    import torch._dynamo  # noqa: F401

    # As the example workers do: later collections, the ones at each fork's exit included, skip
    # torch's own objects (most of a torch process's exit time), and forks share those pages longer.
    added = len(warnings.filters) - len(at_startup)
    if warnings.filters[added:] != at_startup:
        raise SystemExit("the imports changed the start-up warning filters: forks could not be set up as interpreters")
    filters = at_startup, warnings.filters[:added]
    gc.collect()
    gc.freeze()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(socket_path)
    listener.listen(64)
    os.write(ready_fd, f"{torch.__version__}\n".encode())
    os.close(ready_fd)
    what = serve(listener, lifeline, torch)
    del torch
    run(*what, filters)


if __name__ == "__main__":
    main()
