"""Share a tensor's memory with child processes: share_memory_() and what each start method does.

Run: python mp_share_memory.py
"""

import torch
import torch.multiprocessing as mp


def add_ten(t):  # runs in the child: an in-place write
    t.add_(10)


def run_child(method, share):
    t = torch.zeros(3)
    if share:
        t.share_memory_()  # move the storage into shared memory, in place
    before = t.is_shared()
    child = mp.get_context(method).Process(target=add_ten, args=(t,))
    child.start()
    child.join()
    print(f"{method:5} share_memory_()={share!s:5}  shared before start: {before!s:5}  "
          f"after: {t.is_shared()!s:5}  parent sees {t.tolist()}")


if __name__ == "__main__":
    for method in ("fork", "spawn"):
        for share in (False, True):
            run_child(method, share)
