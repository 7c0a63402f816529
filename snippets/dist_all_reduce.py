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

    # Each rank evaluated its own shard, and the shards differ in size:
    # rank 0 got 3 of 5 right, rank 1 got 3 of 3 right.
    correct, count = 3, 5 - 2 * rank
    loss_sum = 1.0 + 2.0 * rank  # the sum of this rank's per-sample losses, not their mean
    stats = torch.tensor([correct, count, loss_sum], dtype=torch.float64, device=device)
    if rank == 0:
        print(f"rank 0 alone: accuracy {correct / count:.2f}")
    dist.all_reduce(stats, op=dist.ReduceOp.SUM)  # in place; every rank gets the sums
    correct_all, count_all, loss_all = stats.tolist()
    if rank == 0:
        print(f"all ranks: accuracy {correct_all / count_all:.2f}, mean loss {loss_all / count_all:.2f}")

    # For comparison: averaging the per-rank means weights the 3-sample shard like the 5-sample one.
    means = torch.tensor([correct / count, loss_sum / count], dtype=torch.float64, device=device)
    dist.all_reduce(means, op=dist.ReduceOp.SUM)
    mean_accuracy, mean_loss = (means / dist.get_world_size()).tolist()
    if rank == 0:
        print(f"mean of per-rank means (wrong): accuracy {mean_accuracy:.2f}, mean loss {mean_loss:.2f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
