# %% [markdown]
# # Where the memory of one training step goes: parameters, gradients, optimizer state, activations
#
# This program runs one training step of a small MLP and takes its memory apart phase by phase (forward, backward, optimizer step): it computes the bytes of the parameters, gradients and AdamW state from the tensors themselves, and measures the activations saved for backward with `saved_tensors_hooks`. On a GPU it also checks each phase against the caching allocator ([allocated and reserved](../gpu-memory.md#cuda-memory-allocated-reserved), [peak](../gpu-memory.md#cuda-peak-memory), [memory snapshot](../gpu-memory.md#cuda-memory-snapshot), [`empty_cache`](../gpu-memory.md#cuda-empty-cache), [`expandable_segments`](../gpu-memory.md#cuda-expandable-segments)).
# Then it simulates [running out of memory and halving the batch](../gpu-memory.md#catch-cuda-oom), keeps the effective batch with [gradient accumulation](../gpu-memory.md#gradient-accumulation), and cuts the activations with [activation checkpointing](../gpu-memory.md#activation-checkpointing) and [bf16 autocast](../mixed-precision.md#bf16-training-no-scaler).
# It runs in about 5 seconds on CPU, and prints the same lines on CPU and GPU.

# %% [markdown]
# ## 1. The model, the batch, and the five things that take memory in training
#
# Five things take memory in training: the **parameters**; the **gradients** (after backward, one per parameter, of the same size); the **optimizer state** (AdamW keeps two tensors per parameter, the first moment `exp_avg` and the second moment `exp_avg_sq`, created at the first `step()`); the **activations saved for backward** (they grow with the batch size and are freed by backward); and **temporary buffers** (intermediate results inside operations, freed right away, visible only in the peak).
# The bytes a tensor takes are `numel() * element_size()`, the same on every device. The data is generated on the CPU from a seed and then moved to the device, so CPU and GPU see the same numbers.

# %%
import gc
import os
import pickle
import subprocess
import sys
import tempfile
import weakref

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
WIDTH, CLASSES, BATCH = 128, 10, 1024


class MLP(nn.Module):
    def __init__(self, depth=4):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.GELU()) for _ in range(depth))
        self.head = nn.Linear(WIDTH, CLASSES)
        self.checkpointing = False  # turned on in step 7

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False) if self.checkpointing else block(x)
        return self.head(x)


model = MLP().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(BATCH, WIDTH).to(device)
y = torch.randint(0, CLASSES, (BATCH,)).to(device)


def nbytes(tensors):  # bytes of the tensors' elements: numel * element_size, summed
    return sum(t.numel() * t.element_size() for t in tensors)


param_bytes = nbytes(model.parameters())
print("parameters:", sum(p.numel() for p in model.parameters()), "->", param_bytes, "bytes")
#> parameters: 67338 -> 269352 bytes
print("batch:", tuple(x.shape), x.dtype, "->", nbytes([x]), "bytes")
#> batch: (1024, 128) torch.float32 -> 524288 bytes

# %% [markdown]
# ## 2. Run one training step and count the bytes of each phase
#
# `torch.autograd.graph.saved_tensors_hooks` shows every tensor that autograd saves for backward. `SavedTensorMeter` below counts each storage once and leaves out the parameters and the input batch (they are in memory anyway); what remains is the memory held by activations. This is a real measurement and works on every device. It also keeps a weak reference to each saved tensor, to check after backward that they were really freed.
# Given a `budget`, it raises `torch.OutOfMemoryError` as soon as the saved bytes exceed it; step 5 uses that to simulate running out of memory.
# On CUDA, `mark()` records the allocated memory at the end of each phase and the peak during it, for step 3; on CPU it does nothing.
# Run one forward and backward pass first as a warm-up: on CUDA, the first matrix multiplication allocates a cuBLAS workspace that stays allocated, and the warm-up keeps it out of the measurement.


# %%
# Counts the bytes autograd saves for backward: each storage once, leaving out the tensors in skip (parameters, inputs).
# With a budget, it raises torch.OutOfMemoryError once the bytes exceed it, as the CUDA allocator would.
class SavedTensorMeter(torch.autograd.graph.saved_tensors_hooks):
    def __init__(self, skip, budget=None):
        self.skip = {t.untyped_storage().data_ptr() for t in skip}
        self.sizes = {}  # storage address -> bytes
        self.refs = []  # weak references: they return None once the tensor is freed
        self.budget = budget
        super().__init__(self.pack, lambda t: t)

    def pack(self, t):
        address = t.untyped_storage().data_ptr()
        if address not in self.skip and address not in self.sizes:
            self.sizes[address] = t.untyped_storage().nbytes()
            self.refs.append(weakref.ref(t))
            if self.budget is not None and self.total > self.budget:
                raise torch.OutOfMemoryError(f"simulated: {self.total} bytes saved for backward > {self.budget}")
        return t.detach()  # not t itself: the packed value must not reference the input (saved_tensors_hooks)

    @property
    def total(self):
        return sum(self.sizes.values())

    def all_freed(self):
        return all(ref() is None for ref in self.refs)


marks = {}


def mark(phase):  # on CUDA: note allocated memory now and the peak since the last mark, then reset the peak
    if device.type == "cuda":
        marks[phase] = {"allocated": torch.cuda.memory_allocated(), "peak": torch.cuda.max_memory_allocated()}
        torch.cuda.reset_peak_memory_stats()


def train_step(meter):
    optimizer.zero_grad()  # sets the gradients to None, which frees their memory
    mark("start")
    with meter:
        loss = F.cross_entropy(model(x), y)
    mark("forward")
    loss.backward()
    mark("backward")
    optimizer.step()
    mark("step")


F.cross_entropy(model(x), y).backward()  # warm-up (see above)
meter = SavedTensorMeter(skip=[*model.parameters(), x, y])
train_step(meter)

saved_bytes = meter.total
grad_bytes = nbytes(p.grad for p in model.parameters())
state_bytes = nbytes(s[k] for s in optimizer.state.values() for k in ("exp_avg", "exp_avg_sq"))
for name, n in [
    ("parameters", param_bytes),
    ("saved activations", saved_bytes),
    ("gradients", grad_bytes),
    ("AdamW state", state_bytes),
]:
    print(f"{name:<18}{n:>9} bytes")
#> parameters           269352 bytes
#> saved activations   4235268 bytes
#> gradients            269352 bytes
#> AdamW state          538704 bytes
print("gradients == parameter bytes:", grad_bytes == param_bytes)
#> gradients == parameter bytes: True
print("AdamW state == 2 x parameter bytes:", state_bytes == 2 * param_bytes)
#> AdamW state == 2 x parameter bytes: True
print("saved activations freed after backward:", meter.all_freed())
#> saved activations freed after backward: True

# bytes each phase should hold at its end (the input batch aside)
expected = {
    "forward": param_bytes + saved_bytes,
    "backward": param_bytes + grad_bytes,
    "step": param_bytes + grad_bytes + state_bytes,
}
for phase, n in expected.items():
    print(f"after {phase:<9}{n / 2**20:5.2f} MiB")
#> after forward   4.30 MiB
#> after backward  0.51 MiB
#> after step      1.03 MiB

# %% [markdown]
# ## 3. On CUDA, check against the caching allocator
#
# On CUDA, PyTorch's caching allocator manages GPU memory. `torch.cuda.memory_allocated()` is the bytes held by live tensors; `torch.cuda.memory_reserved()` is everything the allocator has requested from the driver, including free cached blocks kept for the next allocation. `reset_peak_memory_stats()` with `max_memory_allocated()` gives the peak within a phase; temporary buffers show up only there.
# The cell compares the allocator numbers recorded in step 2 with the computed bytes, phase by phase (the allocator rounds sizes up to 512 bytes, so 5% tolerance). Then it checks that after `del`, allocated memory drops while reserved memory stays; and that `torch.cuda.empty_cache()` returns the unused cached blocks to the driver, so reserved memory drops (and so does the `nvidia-smi` reading; other processes can use the memory), while allocated memory stays the same: it frees nothing that a tensor still uses, and it gives this process no more memory to allocate.
# Finally it records one forward and backward pass with `torch.cuda.memory._record_memory_history()`, writes the snapshot into a temporary directory with `_dump_snapshot()`, and stops recording with `_record_memory_history(enabled=None)`. In your own runs, keep the snapshot file, open pytorch.org/memory_viz in a browser and drag the file onto the page: a timeline shows which line of code allocated each block (the page reads the file locally and uploads nothing).
# The allocator's exact byte counts depend on the GPU and the CUDA version, so the cell prints only the checks that failed: an empty list on a GPU. On CPU there is no allocator to check, the checks do not run, and the list is empty too.

# %%
cuda_checks = {}
if device.type == "cuda":

    def grew(phase, since):
        return marks[phase]["allocated"] - marks[since]["allocated"]

    def close(measured, computed):
        return abs(measured - computed) <= 0.05 * computed

    cuda_checks["forward: allocated grows by the saved activations"] = close(grew("forward", "start"), saved_bytes)
    cuda_checks["backward: activations freed, gradients kept"] = close(grew("backward", "start"), grad_bytes)
    cuda_checks["step: allocated grows by the AdamW state"] = close(grew("step", "backward"), state_bytes)
    cuda_checks["peak during backward > allocated after step"] = marks["backward"]["peak"] > marks["step"]["allocated"]
    cuda_checks["peak during step > allocated after step"] = marks["step"]["peak"] > marks["step"]["allocated"]
    cuda_checks["reserved >= allocated"] = torch.cuda.memory_reserved() >= torch.cuda.memory_allocated()

    MiB64 = 64 * 2**20
    allocated0, reserved0 = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    scratch = torch.empty(MiB64, dtype=torch.uint8, device=device)
    del scratch  # allocated memory drops; the block stays in the cache
    reserved1 = torch.cuda.memory_reserved()
    cuda_checks["del: allocated drops, reserved stays"] = (
        torch.cuda.memory_allocated() == allocated0 and reserved1 >= reserved0 + MiB64
    )
    torch.cuda.empty_cache()  # free cached blocks go back to the driver; model, gradients and optimizer state stay
    cuda_checks["empty_cache: reserved drops, allocated unchanged"] = (
        torch.cuda.memory_reserved() <= reserved1 - MiB64 and torch.cuda.memory_allocated() == allocated0
    )

    torch.cuda.memory._record_memory_history(max_entries=100_000, stacks="python")
    F.cross_entropy(model(x), y).backward()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "snapshot.pickle")  # in your own runs keep it and drop it onto pytorch.org/memory_viz
        torch.cuda.memory._dump_snapshot(path)
        with open(path, "rb") as f:
            snapshot = pickle.load(f)  # a file we just wrote; never unpickle files of unknown origin
    torch.cuda.memory._record_memory_history(enabled=None)  # stop recording
    optimizer.zero_grad()
    trace = snapshot["device_traces"][torch.cuda.current_device()]
    activation = BATCH * WIDTH * 4  # bytes of one float32 hidden activation
    cuda_checks["snapshot records the activations"] = any(e["action"] == "alloc" and e["size"] == activation for e in trace)

print("failed CUDA allocator checks:", [name for name, ok in cuda_checks.items() if not ok])
#> failed CUDA allocator checks: []

# %% [markdown]
# ## 4. Set expandable_segments before CUDA initializes
#
# When batch sizes or sequence lengths keep changing, the cache fills with free blocks of the wrong sizes that cannot be combined (fragmentation): reserved memory is far above allocated memory, and allocations still fail. The allocator option `expandable_segments:True` makes the allocator use segments that grow on demand, which reduces fragmentation.
# Allocator options are read when the allocator is first used; changing the environment variable later has no effect. Set it when you start the process, `PYTORCH_ALLOC_CONF=expandable_segments:True python train.py`, or in `os.environ` at the very top of the script, before `import torch`.
# `PYTORCH_ALLOC_CONF` is the current, device-generic name (torch 2.13's `c10/core/AllocatorConfig.h` calls it the primary variable, and the docs of `torch.cuda.get_allocator_backend()` use it). The old name `PYTORCH_CUDA_ALLOC_CONF` still works, and older releases know only the old name. Don't set both.
# CUDA is long initialized in this process, so the cell starts a new child process with the variable set: all of its memory segments are expandable. There is no CUDA allocator on CPU, so the step is skipped there.

# %%
child = """
import torch
x = torch.empty(2**20, device="cuda")
segments = torch.cuda.memory_snapshot()
print(len(segments) > 0 and all(segment["is_expandable"] for segment in segments))
"""
if device.type == "cuda":
    env = dict(os.environ, PYTORCH_ALLOC_CONF="expandable_segments:True")
    env.pop("PYTORCH_CUDA_ALLOC_CONF", None)  # drop the old name so that only one of the two is set
    out = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, check=True)
    cuda_checks["new process with expandable_segments:True"] = out.stdout.strip() == "True"

print("failed CUDA allocator checks:", [name for name, ok in cuda_checks.items() if not ok])
#> failed CUDA allocator checks: []

# %% [markdown]
# ## 5. Out of memory? Halve the batch and retry
#
# On a real GPU, the caching allocator raises `torch.OutOfMemoryError` when an allocation does not fit (`torch.cuda.OutOfMemoryError` is the same class, a subclass of `RuntimeError`). To get the same result on every device, the cell sets a budget from the activation bytes measured in step 2: pretend the GPU holds only 40% of the full batch's activations. `SavedTensorMeter` raises the same exception as soon as the forward pass goes over it.
# After catching it, free everything the failed attempt held before retrying. Don't retry inside the `except` block: there, the exception's traceback still references the local variables of the failed forward pass. `optimizer.zero_grad(set_to_none=True)` drops any half-written gradients, and `gc.collect()` collects reference cycles. On CUDA, `torch.cuda.empty_cache()` then hands that memory back to the driver; the retry does not need it, because when an allocation fails the allocator itself frees its cache and tries again.

# %%
budget = int(0.4 * saved_bytes)
batch, tried, failed = BATCH, [], []
while True:
    tried.append(batch)
    meter = SavedTensorMeter(skip=[*model.parameters(), x, y], budget=budget)
    try:
        with meter:
            loss = F.cross_entropy(model(x[:batch]), y[:batch])
        loss.backward()
        break
    except torch.OutOfMemoryError:
        failed.append(meter)  # holds weak references only: to check that the failed attempt's tensors are freed
    # clean up outside the except block, then retry
    optimizer.zero_grad(set_to_none=True)
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
    batch //= 2

print("batch sizes tried:", tried, "-> fits:", batch)
#> batch sizes tried: [1024, 512, 256] -> fits: 256
print("failed attempts' activations freed:", all(m.all_freed() for m in failed))
#> failed attempts' activations freed: True

# %% [markdown]
# ## 6. Keep the effective batch with gradient accumulation
#
# Halving the batch changes training: each update sees fewer samples. [Gradient accumulation](../gpu-memory.md#gradient-accumulation) sums the gradients of 4 micro-batches that fit and then updates once, so the effective batch is still 1024 while memory holds the activations of one micro-batch only. Divide each micro-batch loss by the number of accumulation steps so that the gradient equals the full-batch mean. For the full training loop, see [Accumulate gradients inside the training loop](../training.md#gradient-accumulation-loop).

# %%
accumulation_steps = BATCH // batch
optimizer.zero_grad()
F.cross_entropy(model(x), y).backward()  # reference: the full batch in one go (the simulated budget does not apply here)
full_batch_grads = [p.grad.clone() for p in model.parameters()]

optimizer.zero_grad()
micro_batch_saved = []
for xb, yb in zip(x.split(batch), y.split(batch)):
    meter = SavedTensorMeter(skip=[*model.parameters(), x, y], budget=budget)
    with meter:
        loss = F.cross_entropy(model(xb), yb) / accumulation_steps  # divide by the number of accumulation steps
    loss.backward()
    micro_batch_saved.append(meter.total)
same = all(torch.allclose(p.grad, g, atol=1e-6) for p, g in zip(model.parameters(), full_batch_grads))
optimizer.step()
optimizer.zero_grad()

print(accumulation_steps, "micro-batches of", batch, "-> effective batch", accumulation_steps * batch)
#> 4 micro-batches of 256 -> effective batch 1024
print("every micro-batch within the budget:", max(micro_batch_saved) <= budget)
#> every micro-batch within the budget: True
print("accumulated gradients == full-batch gradients:", same)
#> accumulated gradients == full-batch gradients: True

# %% [markdown]
# ## 7. Cut the activations with activation checkpointing and bf16 autocast
#
# [Activation checkpointing](../gpu-memory.md#activation-checkpointing) (`torch.utils.checkpoint.checkpoint`, with an explicit `use_reentrant=False`) saves only each block's input in the forward pass and recomputes the block in the backward pass: the saved bytes roughly halve, each block runs forward once more, and the gradients stay the same.
# bf16 autocast runs matrix multiplications and similar operations in bfloat16, so the activations they save take 2 bytes per element. Parameters, gradients and the AdamW state stay float32 and keep their size, and precision-sensitive operations such as cross entropy still run in float32. Measured here, the saved bytes drop to about 0.6 of float32 (this includes the bf16 copies of the weights that autocast saves for backward).

# %%
forward_calls = []
hooks = [block.register_forward_pre_hook(lambda module, args: forward_calls.append(module)) for block in model.blocks]


def measure(bf16=False):  # one forward and backward pass: bytes saved for backward, block forward calls, gradients
    optimizer.zero_grad()
    forward_calls.clear()
    meter = SavedTensorMeter(skip=[*model.parameters(), x, y])
    with meter, torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=bf16):
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    return meter.total, len(forward_calls), [p.grad.clone() for p in model.parameters()]


plain_bytes, plain_calls, plain_grads = measure()
model.checkpointing = True
ckpt_bytes, ckpt_calls, ckpt_grads = measure()
model.checkpointing = False
bf16_bytes, _, bf16_grads = measure(bf16=True)
for hook in hooks:
    hook.remove()

print("saved for backward:", plain_bytes, "bytes")
#> saved for backward: 4235268 bytes
print(f"with checkpointing: {ckpt_bytes} bytes ({ckpt_bytes / plain_bytes:.2f}x)")
#> with checkpointing: 2138116 bytes (0.50x)
print("block forward calls per step:", plain_calls, "->", ckpt_calls)
#> block forward calls per step: 4 -> 8
print("same gradients:", all(torch.allclose(a, b, atol=1e-6) for a, b in zip(plain_grads, ckpt_grads)))
#> same gradients: True
print(f"with bf16 autocast: {bf16_bytes / plain_bytes:.1f}x")
#> with bf16 autocast: 0.6x
print("gradients stay float32:", all(g.dtype == torch.float32 for g in bf16_grads))
#> gradients stay float32: True
