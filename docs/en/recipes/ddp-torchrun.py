# %% [markdown]
# # Data-parallel training on one machine: a DDP script launched with torchrun
#
# This program writes a complete DistributedDataParallel (DDP) training script, launches it on 2 processes with
# [`torchrun --standalone`](../distributed.md#torchrun-standalone), and then checks what the processes left behind:
# both ranks end with identical weights, each rank trained on its own half of the data, only rank 0 wrote the
# checkpoint, and the result equals an ordinary single-process run with twice the batch size.
# The script combines the entries [process group and backend](../distributed.md#init-process-group-backend),
# [environment variables](../distributed.md#dist-env-vars), [wrapping with DDP](../distributed.md#ddp-device-ids),
# [`DistributedSampler` and `set_epoch`](../distributed.md#distributed-sampler-set-epoch),
# [`all_reduce` for metrics](../distributed.md#all-reduce-metrics), [saving on rank 0](../distributed.md#save-on-rank-zero),
# [`barrier`](../distributed.md#dist-barrier), [`no_sync` for gradient accumulation](../distributed.md#ddp-no-sync-accumulation)
# and [`destroy_process_group`](../distributed.md#destroy-process-group).
# It runs on the CPU with the gloo backend and takes 10 to 15 seconds on 2 cores, most of it spent starting the processes.

# %% [markdown]
# ## 1. Script, part 1: join the process group that torchrun prepared
#
# Steps 1 to 5 build the training script as a string, one part per step; step 6 writes it to a file in a temporary
# folder and launches it. The script is an ordinary Python file: `torchrun` runs it once in every process.
# `torchrun` does not make code parallel by itself. It starts the processes and gives each one environment variables:
# `RANK` (global index), `LOCAL_RANK` (index on this machine, used to pick a GPU), `WORLD_SIZE` (number of processes),
# and the address and port of the rendezvous. `init_process_group()` reads them and returns once every process has joined.
# The backend is chosen from the hardware: nccl only when this machine has one GPU per process (at least 2 GPUs here),
# otherwise gloo on the CPU. nccl handles only CUDA tensors, and two processes must not share one GPU.
# The script takes one argument: the folder where each rank writes its results for the recipe to check.

# %%
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

tmp = tempfile.TemporaryDirectory()
workdir = Path(tmp.name)
SCRIPT = []  # the training script, part by part

SCRIPT.append("""
import contextlib
import gc
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

out = sys.argv[1]  # the recipe reads the results from this folder
rank = int(os.environ["RANK"])
local_rank = int(os.environ["LOCAL_RANK"])
world_size = int(os.environ["WORLD_SIZE"])

# nccl needs one GPU per process on this machine; otherwise gloo on the CPU
use_cuda = torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"])
if use_cuda:
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)
else:
    device = torch.device("cpu")
    dist.init_process_group("gloo")
""")

# %% [markdown]
# ## 2. Script, part 2: the same data everywhere, a different half per rank
#
# Every rank runs the same lines with the same seed, so every rank builds the same 64 samples and the same initial
# weights. For the data this matters: `DistributedSampler` hands out sample *indices*, and the halves only add up to
# the dataset if every rank holds the same dataset. For the weights, the seed is not what keeps the replicas equal:
# when it is created, DDP broadcasts rank 0's parameters and buffers to all ranks, so a rank whose random state
# differs (another seed, a forgotten seed, random numbers drawn for something else first) still starts from rank 0's
# weights. After that, every rank applies the same averaged gradient, so the replicas stay identical.
# The sampler shuffles the indices and gives rank `r` every second one, starting at `r`: 32 samples each. Each sample
# carries its index, so the script can record exactly which samples each rank trained on.
# Move the model to its device before wrapping it; pass `device_ids` only for a GPU.

# %%
SCRIPT.append("""
torch.manual_seed(0)
x = torch.randn(64, 8)
y = x @ torch.randn(8, 1) + 0.1 * torch.randn(64, 1)
dataset = TensorDataset(torch.arange(64), x, y)  # (index, features, target)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1)).to(device)

sampler = DistributedSampler(dataset, shuffle=True, seed=0)  # this rank's 32 of the 64 samples
loader = DataLoader(dataset, batch_size=8, sampler=sampler)  # no shuffle=True here: the sampler shuffles
ddp = DDP(model, device_ids=[local_rank] if use_cuda else None)  # copies rank 0's weights to every rank
optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
""")

# %% [markdown]
# ## 3. Script, part 3: the training loop, with the loss summed over ranks
#
# The loop looks like a single-process loop. The difference is inside `backward()`: DDP all-reduces the gradients and
# divides them by the world size, so each rank steps with the gradient averaged over 2 x 8 = 16 samples.
# `sampler.set_epoch(epoch)` seeds the shuffle with the epoch; without it, every epoch repeats the order of epoch 0.
# Each rank sees only its own loss. To log the loss of the whole step, put the sums (loss x samples, samples) in one
# tensor, `all_reduce` it with `SUM`, and divide: every rank gets the same result, and only rank 0 prints it.

# %%
SCRIPT.append("""
seen, losses = [], []  # per epoch: the indices this rank trained on, the mean loss over all ranks
for epoch in range(3):
    sampler.set_epoch(epoch)
    seen.append([])
    totals = torch.zeros(2, device=device)  # [sum of per-sample losses, number of samples]
    for idx, xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = F.mse_loss(ddp(xb), yb)
        loss.backward()  # DDP averages the gradients over the ranks here
        optimizer.step()
        seen[-1] += idx.tolist()
        totals[0] += loss.detach() * len(xb)
        totals[1] += len(xb)
    dist.all_reduce(totals, op=dist.ReduceOp.SUM)  # the sums over all ranks, on every rank
    losses.append((totals[0] / totals[1]).item())
    if rank == 0:
        print(f"epoch {epoch}: mean loss {losses[-1]:.3f}")
""")

# %% [markdown]
# ## 4. Script, part 4: gradient accumulation with `no_sync`
#
# With gradient accumulation, the gradients need to be averaged over the ranks only once, just before
# `optimizer.step()`; an all-reduce after every micro-batch is wasted communication. Inside `ddp.no_sync()`,
# `backward()` only adds to the local `.grad`; the next `backward()` outside the block all-reduces the accumulated sum
# once. The forward pass must be inside the block too, and each micro-batch's loss is divided by the number of
# accumulation steps. To keep the recipe short, this part only computes the gradients of one accumulated step
# (rank 0 on samples 0-15, rank 1 on samples 16-31, 2 micro-batches of 8 each) and records them after each
# micro-batch; it does not call `optimizer.step()`.

# %%
SCRIPT.append("""
accumulation_steps = 2
mine = torch.arange(16 * rank, 16 * rank + 16)
grads = []  # this rank's gradients after each micro-batch
optimizer.zero_grad()
for i, part in enumerate(mine.chunk(accumulation_steps)):
    last = i == accumulation_steps - 1
    with contextlib.nullcontext() if last else ddp.no_sync():
        loss = F.mse_loss(ddp(x[part].to(device)), y[part].to(device)) / accumulation_steps
        loss.backward()
    grads.append([p.grad.cpu().clone() for p in model.parameters()])
optimizer.zero_grad()
""")

# %% [markdown]
# ## 5. Script, part 5: save on rank 0, wait at the barrier, shut down
#
# All replicas hold the same weights, so one copy is enough. If every rank wrote to the same path, the writes would
# race and could corrupt the file. Save `ddp.module.state_dict()`: its keys have no `module.` prefix, so the file loads
# into a plain model. `dist.barrier()` makes the other ranks wait until rank 0 has finished writing; then every rank
# loads the file with `map_location` set to its own device and compares it with its weights. `torch.load` uses
# `weights_only=True` by default since PyTorch 2.6, which is enough for a state dict.
# Each rank then writes its results to its own file: the output of several processes printing to one pipe can
# interleave in any order, files cannot. Finally, delete the DDP object (`gc.collect()` frees it now rather than at
# exit) and call `destroy_process_group()` on every rank.

# %%
SCRIPT.append("""
path = os.path.join(out, "checkpoint.pt")
if rank == 0:
    torch.save(ddp.module.state_dict(), path)
dist.barrier()  # the other ranks wait here until the file is complete
checkpoint = torch.load(path, map_location=device)
matches = all(torch.equal(checkpoint[k], v) for k, v in ddp.module.state_dict().items())

results = {
    "rank": rank, "world_size": world_size, "backend": dist.get_backend(), "seen": seen, "losses": losses,
    "params": {k: v.cpu() for k, v in ddp.module.state_dict().items()}, "grads": grads, "checkpoint_matches": matches,
}
torch.save(results, os.path.join(out, f"rank{rank}.pt"))

del ddp
gc.collect()
dist.destroy_process_group()
""")

# %% [markdown]
# ## 6. Launch 2 processes with torchrun
#
# `python -m torch.distributed.run` is the `torchrun` command; starting it with `sys.executable` guarantees the same
# Python and the same PyTorch as this program. Both `--nproc-per-node` and `--nproc_per_node` are accepted; the help
# text lists the hyphenated one first. `--standalone` starts the rendezvous on this machine on a free port, so no
# address or port has to be chosen, and two runs at the same time do not collide.
# `OMP_NUM_THREADS=1`: each process would otherwise start as many threads as there are cores, and 2 processes would
# compete for them. When the variable is unset and there is more than one process, `torchrun` sets it to 1 itself and
# prints a banner to stderr; setting it makes the choice explicit and keeps stderr clean.
# `check=True` raises if any rank fails. The `except` puts `torchrun`'s stderr into the error message, because that
# is where the failing rank's traceback is, on lines that start with `[rank1]:` (for rank 1).
# Only rank 0 prints, so the stdout below is in a fixed order. This step takes most of the run time: `torchrun` and
# each of the 2 processes start Python and import `torch`, and creating the DDP object imports `torch._dynamo`, which
# takes a few more seconds per process.

# %%
script = workdir / "train.py"
script.write_text("".join(SCRIPT))
out = workdir / "out"
out.mkdir()
env = {**os.environ, "OMP_NUM_THREADS": "1"}
command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", str(script), str(out)]
try:
    proc = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
except subprocess.CalledProcessError as e:
    raise RuntimeError(f"torchrun failed with exit status {e.returncode}; its stderr:\n{e.stderr}") from e
print(proc.stdout.strip())
#> epoch 0: mean loss 3.336
#> epoch 1: mean loss 0.588
#> epoch 2: mean loss 0.140
python_warnings = [line for line in proc.stderr.splitlines() if "Warning:" in line]
print("Python warnings in the processes' stderr:", len(python_warnings))
#> Python warnings in the processes' stderr: 0

# %% [markdown]
# ## 7. Check what each rank reported
#
# The results are read back in rank order. They show: 2 processes joined the group with the expected backend; after
# 12 optimizer steps on different data, both ranks hold bit-for-bit the same parameters (they applied the same averaged
# gradients from the same start); in every epoch the two halves are disjoint and together cover all 64 samples, in a
# new order each epoch (`set_epoch`); the all-reduced loss is the same on both ranks; and there is exactly one
# checkpoint, whose keys have no `module.` prefix and which matches the weights of both ranks.

# %%
results = [torch.load(out / f"rank{r}.pt") for r in range(2)]
r0, r1 = results
print("world size:", r0["world_size"], "| ranks:", [r["rank"] for r in results])
#> world size: 2 | ranks: [0, 1]
expected_backend = "nccl" if torch.cuda.device_count() >= 2 else "gloo"
print("backend as expected (gloo on CPU, nccl with 2+ GPUs):", all(r["backend"] == expected_backend for r in results))
#> backend as expected (gloo on CPU, nccl with 2+ GPUs): True
print("both ranks end with identical parameters:", all(torch.equal(r0["params"][k], r1["params"][k]) for k in r0["params"]))
#> both ranks end with identical parameters: True
for epoch, (a, b) in enumerate(zip(r0["seen"], r1["seen"])):
    both, either = set(a) & set(b), set(a) | set(b)
    print(f"epoch {epoch}: rank 0 saw {len(a)}, rank 1 saw {len(b)}, both saw {len(both)}, together {len(either)}")
#> epoch 0: rank 0 saw 32, rank 1 saw 32, both saw 0, together 64
#> epoch 1: rank 0 saw 32, rank 1 saw 32, both saw 0, together 64
#> epoch 2: rank 0 saw 32, rank 1 saw 32, both saw 0, together 64
print("a new order every epoch:", len({tuple(s) for s in r0["seen"]}) == 3)
#> a new order every epoch: True
print("mean losses:", [round(v, 3) for v in r0["losses"]], "| same on both ranks:", r0["losses"] == r1["losses"])
#> mean losses: [3.336, 0.588, 0.14] | same on both ranks: True
print("files:", sorted(p.name for p in out.iterdir()))
#> files: ['checkpoint.pt', 'rank0.pt', 'rank1.pt']
print("checkpoint keys:", list(torch.load(out / "checkpoint.pt", map_location="cpu")))
#> checkpoint keys: ['0.weight', '0.bias', '2.weight', '2.bias']
print("ranks whose weights match the checkpoint:", [r["rank"] for r in results if r["checkpoint_matches"]])
#> ranks whose weights match the checkpoint: [0, 1]

# %% [markdown]
# ## 8. Compare with one process and twice the batch
#
# DDP averages the gradients over the ranks, so 2 ranks with batch 8 each compute the gradient of a batch of 16. One
# process that reads the same shuffled order 16 samples at a time must therefore reach the same weights. In PyTorch
# 2.13, `DistributedSampler` shuffles with `torch.randperm` seeded with `seed + epoch`, and rank `r` takes positions
# `r, r + 2, r + 4, ...`; so step `k` of the 2 ranks covers exactly positions `16k` to `16k + 15`. The first check
# confirms this against the indices the ranks recorded (it is an implementation detail, not a documented guarantee).
# The results are not bit-for-bit equal: DDP sums the two half-batch gradients, a single process sums all 16 terms in
# one go, and float32 additions in a different order differ in the last bits. Here the weights differ by less than
# 1e-7, while a real mistake (another shuffle, or batch 8 instead of 16) changes them by 0.05 to 0.1; the
# comparisons use `atol=1e-5`, between the two.
# The gradient of the accumulation step from part 4 must also equal the gradient of one batch of all 32 samples,
# computed from the checkpoint; after the `no_sync` micro-batch, the two ranks' gradients still differ.

# %%
torch.manual_seed(0)  # the same lines as part 2 of the script
x = torch.randn(64, 8)
y = x @ torch.randn(8, 1) + 0.1 * torch.randn(64, 1)
reference = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
same_order, reference_losses = True, []
for epoch in range(3):
    order = torch.randperm(64, generator=torch.Generator().manual_seed(0 + epoch))  # what DistributedSampler does: seed 0 + epoch
    same_order &= order[0::2].tolist() == r0["seen"][epoch] and order[1::2].tolist() == r1["seen"][epoch]
    total = 0.0
    for idx in order.split(16):  # one step of both ranks: 2 x 8 samples
        optimizer.zero_grad()
        loss = F.mse_loss(reference(x[idx]), y[idx])
        loss.backward()
        optimizer.step()
        total += loss.item() * len(idx)
    reference_losses.append(total / 64)
print("rank r trained on the shuffled order [r::2]:", same_order)
#> rank r trained on the shuffled order [r::2]: True
close = all(torch.allclose(v, r0["params"][k], rtol=0, atol=1e-5) for k, v in reference.state_dict().items())
print("DDP, 2 ranks x batch 8 == 1 process x batch 16:", close)
#> DDP, 2 ranks x batch 8 == 1 process x batch 16: True
print("losses match:", all(abs(a - b) < 1e-5 for a, b in zip(reference_losses, r0["losses"])))
#> losses match: True

reference.load_state_dict(torch.load(out / "checkpoint.pt", map_location="cpu"))
reference.zero_grad()
F.mse_loss(reference(x[:32]), y[:32]).backward()  # samples 0-31 in one batch
after_no_sync, after_last = (all(torch.equal(a, b) for a, b in zip(r0["grads"][i], r1["grads"][i])) for i in (0, 1))
print("after the no_sync backward, gradients equal on both ranks:", after_no_sync)
#> after the no_sync backward, gradients equal on both ranks: False
print("after the last backward, gradients equal on both ranks:", after_last)
#> after the last backward, gradients equal on both ranks: True
matches = all(torch.allclose(g, p.grad, rtol=0, atol=1e-5) for g, p in zip(r0["grads"][1], reference.parameters()))
print("accumulated gradient == gradient of one batch of 32:", matches)
#> accumulated gradient == gradient of one batch of 32: True
tmp.cleanup()
