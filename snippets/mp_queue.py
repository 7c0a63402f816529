"""Pass tensors between processes through a torch.multiprocessing Queue: they are shared, not copied.

Run: python mp_queue.py
"""

import torch
import torch.multiprocessing as mp


def consumer(inbox, outbox, received):
    t = inbox.get()  # the parent's tensor, backed by the same shared memory
    t.mul_(2)  # an in-place change, seen by the parent
    outbox.put((t.is_shared(), torch.arange(3.0)))  # a tensor made here travels the same way
    received.wait()  # stay alive until the parent has the tensor: its memory is handed over by this process


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    inbox, outbox, received = ctx.Queue(), ctx.Queue(), ctx.Event()
    child = ctx.Process(target=consumer, args=(inbox, outbox, received))
    child.start()
    t = torch.ones(4)
    inbox.put(t)  # pickling for the queue moves t's storage into shared memory
    child_saw_shared, made_by_child = outbox.get()
    received.set()
    child.join()
    print("child received a shared tensor:", child_saw_shared)
    print("parent's tensor after the child's mul_(2):", t.tolist(), "is_shared:", t.is_shared())
    print("tensor from the child:", made_by_child.tolist(), "is_shared:", made_by_child.is_shared())
    print("sharing strategy:", mp.get_sharing_strategy(), "of", sorted(mp.get_all_sharing_strategies()))
