"""Pages for the plugin's own tests: `entry()` writes one entry of a Chinese test page, and PROBES
is a page whose entries each show one guarantee of the runner (the ones meant to fail say so)."""

import textwrap

from cheatsheet.run.pool import ENV_ALLOWLIST


def entry(entry_id: str, example: str, fence: str = "python", code_line: str = "x = 1") -> str:
    """One entry of a Chinese test page."""
    return textwrap.dedent(f"""
        ### 测试 {entry_id} {{ #{entry_id} }}

        ```python
        {code_line}
        ```

        - 助记：x。
        - 使用前提：无。

        **解释性示例：**

        ```{fence}
        """) + textwrap.dedent(example).strip() + "\n```\n"


# A distribution the probes' requirements.txt lists and no environment has: `listed-but-absent`
# imports its module and is skipped; `unlisted-module-fails` imports one nothing lists.
ABSENT = "cheatsheet-absent-probe"

# Probes: each entry shows one guarantee; the ones meant to fail say so in their id.
PROBES = "# 测试页\n" + "".join([
    entry("good-output", """
        print(1 + 1)
        #> 2
    """),
    entry("already-verified", """
        print("the record vouches for this one")
        #> the record vouches for this one
    """),
    entry("leaves-state", """
        import os
        import sys

        import torch

        leaked = "from the previous example"
        torch.set_default_dtype(torch.float64)
        torch.backends.cuda.matmul.fp32_precision = "tf32"
        os.environ["LEAKED"] = "1"
        sys.path.insert(0, "/nowhere")
        open("scratch.txt", "w").close()
        print(os.path.basename(os.getcwd()).startswith("example-"), os.environ["HOME"] == os.getcwd())
        #> True True
    """),
    entry("fresh-state", """
        import os
        import sys

        import torch

        print("leaked" in globals(), os.path.exists("scratch.txt"), torch.get_default_dtype())
        #> False False torch.float32
        print(torch.backends.cuda.matmul.fp32_precision, "LEAKED" in os.environ, "/nowhere" in sys.path)
        #> none False False
    """),
    entry("cpu-run-sees-no-gpu", """
        import os

        import torch

        # On a GPU machine this is the real test: the CPU worker starts with the GPU hidden.
        print(repr(os.environ["CUDA_VISIBLE_DEVICES"]), torch.cuda.device_count(), torch.cuda.is_available())
        #cpu> '' 0 False
    """),
    entry("environment-is-an-allowlist", f"""
        import os

        allowed = {sorted(ENV_ALLOWLIST + ("HOME", "PYTHONUNBUFFERED"))!r}
        print("PROBE_SECRET" in os.environ, sorted(set(os.environ) - set(allowed)))
        #> False []
    """),
    entry("network-is-blocked", """
        import socket
        import threading

        try:
            socket.create_connection(("192.0.2.1", 80), timeout=2)  # TEST-NET-1: never routed
        except OSError as e:
            print(type(e).__name__)
        #> NetworkBlockedError
        server = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=lambda: server.accept()[0].sendall(b"hi"), daemon=True).start()
        with socket.create_connection(server.getsockname()) as client:
            print(client.recv(2))
        #> b'hi'
    """),
    entry("system-exit-fails", """
        print("exiting")
        raise SystemExit(0)
        #> exiting
    """),
    entry("deprecation-warning-fails", """
        import torch

        print(torch.ones(2).storage().size())
        #> 2
    """),
    entry("own-jit-script-fails", """
        import torch

        scripted = torch.jit.script(torch.nn.Linear(2, 2))  # DeprecationWarning on 2.13, FutureWarning from 2.14
        print(type(scripted).__name__)
        #> RecursiveScriptModule
    """, fence="{.python uses-deprecated}"),
    entry("listed-but-absent", f"""
        import {ABSENT.replace("-", "_")}

        print("ran")
        #> ran
    """),
    entry("unlisted-module-fails", """
        import cheatsheet_unlisted_probe

        print("ran")
        #> ran
    """),
    entry("cuda-only", """
        import torch

        print(torch.ones(1, device="cuda").device.type)
        #> cuda
    """, fence="{.python requires-cuda}"),
    entry("c-level-output", """
        import ctypes

        libc = ctypes.CDLL(None)
        libc.printf(b"from C\\n")  # the runner flushes C's buffer after each statement
        #> from C
        print("from Python")
        #> from Python
    """),
    entry("shell-example", """
        echo "$HOME" | grep -c shell-example
        python -c "import os; print(os.environ['CUDA_VISIBLE_DEVICES'] == '')"
        #> 1
        #cpu> True
        #cuda> False
    """, fence="bash"),
])

# Runs right after docs/zh/RUN003/page.md, whose example hangs and is killed, on a new worker.
AFTER_THE_HANG = "# 测试页\n" + entry("after-the-hang", """
    print("a new worker took over")
    #> a new worker took over
""")
