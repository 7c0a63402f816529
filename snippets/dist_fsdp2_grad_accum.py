"""Gradient accumulation with FSDP2: skip the gradient reduce-scatter until the last micro-batch.

Launch: torchrun --standalone --nnodes=1 --nproc-per-node=2 dist_fsdp2_grad_accum.py
"""

import copy
import gc
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard


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

    torch.manual_seed(0)  # the same model and data on every rank
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1)).to(device)
    reference = copy.deepcopy(model)  # a single-process copy to check against
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            fully_shard(layer)
    fully_shard(model)
    x, y = torch.randn(16, 4, device=device), torch.randn(16, 1, device=device)
    my_x, my_y = x[rank::world_size], y[rank::world_size]  # this rank's 8 samples

    accumulation_steps = 4
    for i, (xb, yb) in enumerate(zip(my_x.chunk(accumulation_steps), my_y.chunk(accumulation_steps))):
        last = i == accumulation_steps - 1
        model.set_requires_gradient_sync(last)  # False: keep unsharded local gradients, no communication
        loss = F.mse_loss(model(xb), yb) / accumulation_steps
        loss.backward()
        if i == 0 and rank == 0:  # the full-size gradient waits inside FSDP; the shard has none yet
            print("after a backward without sync, the sharded grad is:", model[0].weight.grad)

    F.mse_loss(reference(x), y).backward()  # one big batch, one process
    grad = model[0].weight.grad
    full = grad.full_tensor()
    if rank == 0:
        print(f"after the last backward: local shard {tuple(grad.to_local().shape)},",
              "matches the full batch:", torch.allclose(full, reference[0].weight.grad, atol=1e-6))
    del model, grad, loss
    gc.collect()  # free the sharded state now, not at interpreter exit (gloo can abort there)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
