"""A collective that one rank does not join in time: which rank is late, and the timeout.

Launch: torchrun --standalone --nnodes=1 --nproc-per-node=2 dist_timeout.py
"""

import time
from datetime import timedelta

import torch
import torch.distributed as dist


def main():
    # gloo everywhere here: with nccl a timed-out collective takes the whole process down instead of raising
    dist.init_process_group(backend="gloo", timeout=timedelta(seconds=3))  # nccl's default: 10 minutes
    check_group = dist.new_group(backend="gloo")  # with nccl training: a gloo group for monitored_barrier
    rank = dist.get_rank()
    if rank == 1:
        time.sleep(8)  # busy with work of its own (evaluation, saving, a slow batch) while rank 0 waits
    try:  # monitored_barrier (gloo groups only) names the ranks that did not arrive in time
        dist.monitored_barrier(group=check_group, timeout=timedelta(seconds=2))
    except RuntimeError as e:
        if rank == 0:
            print("monitored_barrier:", str(e).splitlines()[0].split("]: ")[-1])
    try:
        dist.all_reduce(torch.ones(1))  # rank 0 waits longer than the group's timeout
    except RuntimeError as e:
        if rank == 0:
            print("all_reduce:", str(e).splitlines()[0].split("] ")[-1])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
