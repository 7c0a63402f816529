"""Shard a model with FSDP2 (fully_shard): every rank keeps one slice of each parameter.

Launch: torchrun --standalone --nnodes=1 --nproc-per-node=2 dist_fsdp2.py
"""

import copy
import gc
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.fsdp import FSDPModule, fully_shard


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    if torch.cuda.is_available() and torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"]):
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        dist.init_process_group(backend="nccl", device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group(backend="gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()

    torch.manual_seed(0)  # the same initial weights and data on every rank
    model = torch.nn.Sequential(torch.nn.Linear(8, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2)).to(device)
    reference = copy.deepcopy(model)  # an unsharded copy, trained in one process on the whole batch
    for layer in model:  # first each block: one all-gather per block
        if isinstance(layer, torch.nn.Linear):
            fully_shard(layer)
    fully_shard(model)  # then the root, for the parameters no block owns
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # after fully_shard: it sees the shards

    weight = model[0].weight
    shards = [None] * world_size
    dist.all_gather_object(shards, tuple(weight.to_local().shape))
    if rank == 0:
        print(type(model).__name__, isinstance(model, FSDPModule))
        print(f"{type(weight).__name__}: full shape {tuple(weight.shape)}, {weight.placements}")
        print("local shard per rank:", shards)  # 5 rows over 2 ranks: 3 + 2

    x, y = torch.randn(8, 8, device=device), torch.randn(8, 2, device=device)
    loss = F.mse_loss(model(x[rank::world_size]), y[rank::world_size])  # this rank's half of the batch
    loss.backward()  # the gradients are averaged over the ranks and sharded like the parameters
    if rank == 0:
        print(f"grad: {type(weight.grad).__name__}, local shape {tuple(weight.grad.to_local().shape)}")
    optimizer.step()  # each rank updates only its own shard

    reference_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    F.mse_loss(reference(x), y).backward()
    reference_optimizer.step()
    full = weight.full_tensor()  # an all-gather: every rank must call it
    if rank == 0:
        same = torch.allclose(full, reference[0].weight, atol=1e-6)
        print(f"full_tensor(): {type(full).__name__} {tuple(full.shape)}, matches one-process training: {same}")
    del model, optimizer, weight, loss
    gc.collect()  # free the sharded state now, not at interpreter exit (gloo can abort there)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
