"""Gradient accumulation with DDP: skip the gradient all-reduce with no_sync() until the last micro-batch.

Launch: torchrun --standalone --nnodes=1 --nproc-per-node=2 dist_no_sync.py
"""

import contextlib
import copy
import gc
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    use_cuda = torch.cuda.is_available() and torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"])
    if use_cuda:
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        dist.init_process_group(backend="nccl", device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group(backend="gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()

    torch.manual_seed(0)  # the same model and data on every rank
    net = torch.nn.Linear(4, 1).to(device)
    reference = copy.deepcopy(net)  # a single-process copy to check against
    model = DDP(net, device_ids=[local_rank] if use_cuda else None)
    x, y = torch.randn(16, 4, device=device), torch.randn(16, 1, device=device)
    my_x, my_y = x[rank::world_size], y[rank::world_size]  # this rank's 8 samples

    accumulation_steps = 4
    for i, (xb, yb) in enumerate(zip(my_x.chunk(accumulation_steps), my_y.chunk(accumulation_steps))):
        last = i == accumulation_steps - 1
        # no_sync: backward only adds to the local .grad; the last backward all-reduces the sum
        with contextlib.nullcontext() if last else model.no_sync():
            loss = F.mse_loss(model(xb), yb) / accumulation_steps
            loss.backward()
        if i == 0:
            grads = [torch.empty_like(net.weight.grad) for _ in range(world_size)]
            dist.all_gather(grads, net.weight.grad)
            if rank == 0:
                print("after a no_sync backward, grads equal on all ranks:", torch.equal(grads[0], grads[1]))

    F.mse_loss(reference(x), y).backward()  # one big batch, one process
    if rank == 0:
        matches = torch.allclose(net.weight.grad, reference.weight.grad, atol=1e-6)
        print("after the last backward, grad matches the full batch:", matches)
    del model
    gc.collect()  # free DDP's communication state now, not at interpreter exit (gloo can abort there)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
