"""Save a DDP checkpoint from rank 0 only and load it on every rank.

Launch: torchrun --standalone --nnodes=1 --nproc-per-node=2 dist_save_rank0.py
"""

import gc
import os

import torch
import torch.distributed as dist
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
    rank = dist.get_rank()

    torch.manual_seed(rank)  # different initial weights; DDP copies rank 0's weights to all ranks
    model = DDP(torch.nn.Linear(4, 2).to(device), device_ids=[local_rank] if use_cuda else None)

    if rank == 0:  # one writer: no ranks racing on the same file
        torch.save(model.module.state_dict(), "checkpoint.pt")  # unwrap: keys without "module."
        print("saved keys:", list(model.module.state_dict()))
    dist.barrier()  # the other ranks wait until the file is complete

    state = torch.load("checkpoint.pt", map_location=device)  # onto this rank's own device
    same = torch.tensor([float(torch.equal(state["weight"], model.module.weight))], device=device)
    dist.all_reduce(same)
    if rank == 0:
        print(f"ranks whose weights match the file: {int(same.item())} of {dist.get_world_size()}")
    del model
    gc.collect()  # free DDP's communication state now, not at interpreter exit (gloo can abort there)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
