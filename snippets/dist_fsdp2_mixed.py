"""FSDP2 mixed precision: compute in bfloat16, keep float32 shards and gradients for the optimizer.

Launch: torchrun --standalone --nnodes=1 --nproc-per-node=2 dist_fsdp2_mixed.py
"""

import gc
import os

import torch
import torch.distributed as dist
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


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

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.ReLU(), torch.nn.Linear(6, 2)).to(device)
    seen = []  # what the first layer computes with
    model[0].register_forward_hook(lambda m, args, out: seen.append((args[0].dtype, m.weight.dtype, out.dtype)))

    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            fully_shard(layer, mp_policy=policy)
    fully_shard(model, mp_policy=policy)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    out = model(torch.randn(4, 8, device=device))  # a float32 input: the root casts it to bfloat16
    out.float().pow(2).mean().backward()
    optimizer.step()
    weight = model[0].weight
    if rank == 0:
        inp, w, o = seen[0]
        print(f"forward: input {inp}, weight {w}, output {o}")
        print(f"model output: {out.dtype}")
        print(f"stored shard: {weight.dtype}, its grad: {weight.grad.dtype}")
    del model, optimizer, weight, out
    gc.collect()  # free the sharded state now, not at interpreter exit (gloo can abort there)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
