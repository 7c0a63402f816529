"""Combine a metric over all ranks with all_reduce.

Launch: torchrun --standalone --nnodes=1 --nproc-per-node=2 dist_all_reduce.py
"""

import os

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

    # Each rank evaluated its own shard: rank 0 got 3 of 5 right, rank 1 got 4 of 5.
    correct, total = 3 + rank, 5
    loss = 0.5 + rank  # this rank's mean loss
    stats = torch.tensor([correct, total, loss], dtype=torch.float64, device=device)
    if rank == 0:
        print(f"rank 0 alone: accuracy {correct / total:.2f}")
    dist.all_reduce(stats, op=dist.ReduceOp.SUM)  # in place; every rank gets the sum
    if rank == 0:
        print(f"all ranks: accuracy {(stats[0] / stats[1]).item():.2f}")
        print(f"mean loss over ranks: {(stats[2] / dist.get_world_size()).item():.2f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
