"""Make every rank wait with barrier until rank 0 has prepared a file.

Launch: torchrun --standalone --nnodes=1 --nproc-per-node=2 dist_barrier.py
"""

import os
import time

import torch
import torch.distributed as dist


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    if torch.cuda.is_available() and torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"]):
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        dist.init_process_group(backend="nccl", device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group(backend="gloo")
    rank = dist.get_rank()

    if rank == 0:  # e.g. download or preprocess the data once
        time.sleep(0.5)
        with open("vocab.txt", "w") as f:
            f.write("hello world\n")
    dist.barrier()  # no rank continues until every rank has reached this line
    found = torch.tensor([float(os.path.exists("vocab.txt"))], device=device)
    dist.all_reduce(found)
    if rank == 0:
        print(f"ranks that found the file: {int(found.item())} of {dist.get_world_size()}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
