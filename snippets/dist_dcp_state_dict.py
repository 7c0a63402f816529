"""Checkpoint model and optimizer with get_state_dict / set_state_dict and DCP, then resume training.

Launch: torchrun --standalone --nnodes=1 --nproc-per-node=2 dist_dcp_state_dict.py CHECKPOINT_DIR
"""

import gc
import os
import sys

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn.functional as F
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_state_dict, set_state_dict
from torch.distributed.fsdp import fully_shard


def build(seed, device):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.ReLU(), torch.nn.Linear(6, 2)).to(device)
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            fully_shard(layer)
    fully_shard(model)
    return model, torch.optim.AdamW(model.parameters(), lr=0.01)


def train_step(model, optimizer, x, y):
    F.mse_loss(model(x), y).backward()
    optimizer.step()
    optimizer.zero_grad()


def main():
    path = sys.argv[1]
    local_rank = int(os.environ["LOCAL_RANK"])
    if torch.cuda.is_available() and torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"]):
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        dist.init_process_group(backend="nccl", device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group(backend="gloo")
    rank = dist.get_rank()
    torch.manual_seed(100 + rank)  # each rank its own data
    batches = [(torch.randn(4, 8, device=device), torch.randn(4, 2, device=device)) for _ in range(3)]

    model, optimizer = build(0, device)
    for x, y in batches[:2]:
        train_step(model, optimizer, x, y)
    model_sd, optim_sd = get_state_dict(model, optimizer)  # optimizer state keyed by parameter name
    if rank == 0:
        print("optimizer.state_dict() keys:", list(optimizer.state_dict()["state"]))
        print("get_state_dict keys:", list(optim_sd["state"]))
    dcp.save({"model": model_sd, "optim": optim_sd}, checkpoint_id=path)

    # "Restart": a new model and optimizer, then resume from the checkpoint.
    resumed, resumed_optimizer = build(1, device)
    model_sd, optim_sd = get_state_dict(resumed, resumed_optimizer)  # the shapes and shards to fill
    state = {"model": model_sd, "optim": optim_sd}
    dcp.load(state, checkpoint_id=path)
    set_state_dict(resumed, resumed_optimizer, model_state_dict=state["model"], optim_state_dict=state["optim"])

    x, y = batches[2]
    train_step(model, optimizer, x, y)  # the uninterrupted run
    train_step(resumed, resumed_optimizer, x, y)  # the resumed run
    same = all(torch.equal(a.full_tensor(), b.full_tensor()) for a, b in zip(model.parameters(), resumed.parameters()))
    full_sd, _ = get_state_dict(model, optimizer, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    sizes = [None] * dist.get_world_size()
    dist.all_gather_object(sizes, len(full_sd))
    if rank == 0:
        print("resumed run == uninterrupted run:", same)
        weight = full_sd["0.weight"]  # whole tensors, ready for torch.save on rank 0
        print(f"full_state_dict: {type(weight).__name__} {tuple(weight.shape)} on {weight.device}; keys per rank {sizes}")
    del model, optimizer, resumed, resumed_optimizer, model_sd, optim_sd, state, full_sd
    gc.collect()  # free the sharded state now, not at interpreter exit (gloo can abort there)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
