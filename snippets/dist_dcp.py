"""Save and load a sharded (FSDP2) model with torch.distributed.checkpoint (DCP).

Launch: torchrun --standalone --nnodes=1 --nproc-per-node=2 dist_dcp.py save CHECKPOINT_DIR
        torchrun --standalone --nnodes=1 --nproc-per-node=1 dist_dcp.py load CHECKPOINT_DIR
"""

import gc
import os
import sys

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.fsdp import fully_shard


def build_model(seed, device):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.ReLU(), torch.nn.Linear(6, 2)).to(device)
    return model


def shard(model):
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            fully_shard(layer)
    fully_shard(model)
    return model


def save(path, device):
    model = shard(build_model(0, device))
    dcp.save({"model": model.state_dict()}, checkpoint_id=path)  # each rank writes its own shards
    if dist.get_rank() == 0:
        print(f"saved by {dist.get_world_size()} ranks:", sorted(os.listdir(path)))


def main():
    mode, path = sys.argv[1], sys.argv[2]  # every rank gets the same directory
    local_rank = int(os.environ["LOCAL_RANK"])
    if torch.cuda.is_available() and torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"]):
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        dist.init_process_group(backend="nccl", device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group(backend="gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()

    if mode == "save":
        save(path, device)

    restored = shard(build_model(1, device))  # different initial weights, this run's sharding
    state = {"model": restored.state_dict()}  # says which shard of which tensor this rank wants
    dcp.load(state, checkpoint_id=path)  # fills those tensors in place
    restored.load_state_dict(state["model"])
    weight = restored[0].weight
    saved = build_model(0, device)[0].weight  # what the save run started from
    same = torch.equal(weight.full_tensor(), saved)  # full_tensor() on every rank: an all-gather
    if rank == 0:
        print(f"loaded by {world_size} rank(s): local shard {tuple(weight.to_local().shape)} "
              f"of {tuple(weight.shape)}, equals the saved weights: {same}")
    del restored, state, weight
    gc.collect()  # free the sharded state now, not at interpreter exit (gloo can abort there)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
