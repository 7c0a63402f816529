"""Start worker processes with torch.multiprocessing.spawn instead of torchrun.

Run: python mp_spawn.py
"""

import os
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world_size, init_file):  # spawn passes the process index first, then args
    if torch.cuda.is_available() and torch.cuda.device_count() >= world_size:
        device = torch.device("cuda", rank)
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", init_method=f"file://{init_file}", rank=rank, world_size=world_size,
                                device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world_size)
    total = torch.tensor([rank + 1.0], device=device)
    dist.all_reduce(total)
    if rank == 0:
        print(f"rank 0 of {dist.get_world_size()}: sum of (rank + 1) over all ranks = {total.item():.0f}")
    dist.destroy_process_group()


if __name__ == "__main__":  # needed: every spawned child imports this file again
    world_size = 2
    with tempfile.TemporaryDirectory() as tmp:  # the file the processes meet at (instead of MASTER_ADDR/PORT)
        result = mp.spawn(worker, args=(world_size, os.path.join(tmp, "store")), nprocs=world_size)
    print("spawn returned:", result)  # join=True: it waits for all; fn's return values are dropped

