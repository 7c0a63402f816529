"""Initialize the default process group and read rank, local rank and world size.

Launch: torchrun --standalone --nnodes=1 --nproc-per-node=2 dist_init.py
"""

import os

import torch
import torch.distributed as dist


def main():
    local_rank = int(os.environ["LOCAL_RANK"])  # index of this process on this machine
    # nccl needs one GPU per process on this node; otherwise use gloo on the CPU.
    if torch.cuda.is_available() and torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"]):
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        dist.init_process_group(backend="nccl", device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group(backend="gloo")

    rank = dist.get_rank()  # global index of this process, 0 .. world_size - 1
    world_size = dist.get_world_size()  # total number of processes
    assert rank == int(os.environ["RANK"]) and world_size == int(os.environ["WORLD_SIZE"])

    everyone = [None] * world_size
    dist.all_gather_object(everyone, (rank, local_rank))  # collect a small Python object from every rank
    if rank == 0:  # print once, not once per process
        print(f"initialized: {dist.is_initialized()}, world size {world_size}")
        for r, lr in everyone:
            print(f"rank {r}: local rank {lr}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
