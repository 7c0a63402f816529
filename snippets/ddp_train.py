"""Train a tiny model with DistributedDataParallel (DDP).

Launch: torchrun --standalone --nproc-per-node=2 ddp_train.py
On CPU the processes talk over gloo; with one GPU per process they use nccl.
"""

import gc
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    # torchrun sets these for every process it starts.
    rank = int(os.environ["RANK"])
    local_rank = int(os.environ["LOCAL_RANK"])
    world_size = int(os.environ["WORLD_SIZE"])

    # nccl needs one GPU per process on this node; otherwise fall back to gloo on CPU.
    use_cuda = torch.cuda.is_available() and torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"])
    if use_cuda:
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group("gloo")
    if rank == 0:
        print(f"world size {world_size}, backend {dist.get_backend()}")

    torch.manual_seed(0)  # same data on every rank; DDP also copies rank 0's weights to all
    features = torch.randn(64, 8)
    dataset = TensorDataset(features, features.sum(dim=1, keepdim=True))
    sampler = DistributedSampler(dataset)  # each rank reads its own half
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)

    model = DDP(torch.nn.Linear(8, 1).to(device), device_ids=[local_rank] if use_cuda else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    for epoch in range(3):
        sampler.set_epoch(epoch)  # a different shuffle each epoch, the same on all ranks
        totals = torch.zeros(2, device=device)  # [sum of losses, number of batches]
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()  # DDP averages the gradients over all ranks here
            optimizer.step()
            totals += torch.stack([loss.detach(), torch.ones((), device=device)])
        dist.all_reduce(totals)  # sum over ranks, result on every rank
        if rank == 0:
            print(f"epoch {epoch}: mean loss {(totals[0] / totals[1]).item():.2f}")

    # After training, every replica holds the same weights.
    weight = model.module.weight.detach()
    gathered = [torch.empty_like(weight) for _ in range(world_size)]
    dist.all_gather(gathered, weight)
    if rank == 0:
        print("replicas identical:", all(torch.equal(gathered[0], w) for w in gathered))
        # Save from rank 0 only, unwrapped, so the keys have no "module." prefix.
        torch.save(model.module.state_dict(), "ddp_model.pt")
        print("saved keys:", list(model.module.state_dict()))
    dist.barrier()  # the other ranks wait until the file is written
    # Free DDP's communication state before the process group goes; without this a rank
    # sometimes aborts at exit ("terminate called without an active exception") on gloo.
    del model
    gc.collect()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
