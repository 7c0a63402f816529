"""fork copies the parent's run-time state into the child; spawn starts a fresh interpreter.

Run: python mp_start_method.py
"""

import inspect

import torch.multiprocessing as mp

STATE = {"initialized": False}


def report(results):
    results.put(STATE["initialized"])


if __name__ == "__main__":
    STATE["initialized"] = True  # state the parent created at run time, as torch.cuda.init() does for CUDA
    for method in ("fork", "spawn"):
        ctx = mp.get_context(method)
        results = ctx.Queue()
        child = ctx.Process(target=report, args=(results,))
        child.start()
        seen = results.get()
        child.join()
        print(f"{method}: the child sees the parent's run-time state: {seen}")
    print("torch.multiprocessing.spawn uses:", inspect.signature(mp.spawn).parameters["start_method"].default)
