# %% [markdown]
# # A complete training run that resumes bit for bit
#
# This program trains a small MLP classifier on a seeded synthetic dataset, with mixed precision,
# gradient accumulation and clipping, a warmup-then-cosine learning rate, and a checkpoint taken in
# the middle of an epoch. It then proves that a run stopped and resumed from that checkpoint ends
# with the same parameters as a run that never stopped, bit for bit on the CPU. It runs in about
# 5 seconds on a CPU.
# Entries it combines: [custom `Dataset`](../data.md#map-style-dataset),
# [no weight decay on biases and norms](../training.md#no-weight-decay-bias-norm),
# [warmup with `SequentialLR`](../training.md#lr-warmup-linearlr),
# [gradient accumulation](../training.md#gradient-accumulation-loop),
# [unscale before clipping](../mixed-precision.md#amp-unscale-clip-grad),
# [save a training checkpoint](../saving.md#save-training-checkpoint) and
# [resume from it](../saving.md#resume-training-checkpoint).

# %% [markdown]
# ## 1. Pick the device and the mixed-precision mode
#
# On CUDA the program uses float16 autocast with a `GradScaler`, as in
# [mixed-precision training](../mixed-precision.md#amp-fp16-training-loop). float16 has only 5
# exponent bits: its smallest positive value is about 6e-8, and smaller gradients underflow to 0.
# So the scaler multiplies the loss (by 65536 at first) before `backward()` and divides the
# gradients back before the update. On the CPU the program uses bfloat16 instead. bfloat16 keeps the
# 8 exponent bits of float32, so it has the same range and small gradients do not underflow: it
# [needs no scaler](../mixed-precision.md#bf16-training-no-scaler). The same code serves both: the
# scaler is created with `enabled=use_scaler`, and a disabled scaler passes the loss and the
# `step()` through unchanged.

# %%
import copy
import itertools
import os
import tempfile
from types import SimpleNamespace

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
use_scaler = device.type == "cuda"  # float16 on CUDA needs a GradScaler
amp_dtype = torch.float16 if use_scaler else torch.bfloat16  # bfloat16 on the CPU needs none

# %% [markdown]
# ## 2. Build a seeded dataset and a reproducible shuffle
#
# `Blobs` is a [map-style dataset](../data.md#map-style-dataset): three Gaussian clusters in 8
# dimensions, generated from a seed, so every run sees the same samples. The `DataLoader` shuffles
# with its own seeded `torch.Generator`, not the global RNG: the order of every epoch then depends on
# that generator alone, and its state can be saved and restored. The output shows both: the same
# seed gives the same order, and creating and using the iterators leaves the global RNG as it was.
# 512 training samples in micro-batches of 16 make 32 micro-batches per epoch; with 4 micro-batches
# per optimizer step, an epoch is exactly 8 optimizer steps. 512 is a multiple of 16, so
# `drop_last=True` drops nothing here; it guarantees that every micro-batch has the same size, which
# the gradient-accumulation arithmetic of step 4 relies on.

# %%
MICRO_BATCH, ACCUM_STEPS = 16, 4
TOTAL_STEPS, WARMUP_STEPS = 40, 4  # optimizer steps, not micro-batches


class Blobs(Dataset):
    # three Gaussian clusters: the centers are the same for every seed, the samples are not
    def __init__(self, n, seed):
        centers = 1.5 * torch.randn(3, 8, generator=torch.Generator().manual_seed(0))
        g = torch.Generator().manual_seed(seed)
        self.y = torch.randint(0, 3, (n,), generator=g)
        self.x = centers[self.y] + torch.randn(n, 8, generator=g)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def make_loader(generator):
    return DataLoader(train_set, batch_size=MICRO_BATCH, shuffle=True, drop_last=True, generator=generator)


train_set, val_set = Blobs(512, seed=1), Blobs(256, seed=9)
loader = make_loader(torch.Generator().manual_seed(1))
print(len(train_set), "training samples,", len(val_set), "validation samples,", len(loader), "micro-batches per epoch")
#> 512 training samples, 256 validation samples, 32 micro-batches per epoch
global_rng = torch.get_rng_state()
first = next(iter(loader))[1]
again = next(iter(make_loader(torch.Generator().manual_seed(1))))[1]  # a second loader, same seed
print("same order with the same seed:", torch.equal(first, again))
#> same order with the same seed: True
print("global RNG untouched:", torch.equal(global_rng, torch.get_rng_state()))
#> global RNG untouched: True

# %% [markdown]
# ## 3. Build the model, two parameter groups and the learning-rate schedule
#
# The model is a two-layer MLP with a `LayerNorm` and a `Dropout`. AdamW gets two
# [parameter groups](../training.md#no-weight-decay-bias-norm): the weight matrices (2-D) are
# decayed, the biases and the `LayerNorm` scale and shift (1-D) are not. The learning rate
# [warms up linearly](../training.md#lr-warmup-linearlr) for 4 optimizer steps from a tenth of its
# peak of 0.01, then follows a cosine that would reach 0 right after the last of the 40 steps
# (steps count from 0, so the last one is step 39). The scheduler steps once per optimizer step, so
# its lengths count optimizer steps, not micro-batches. To show the shape without training, a
# throwaway optimizer walks through the whole schedule.


# %%
def make_model():
    return nn.Sequential(nn.Linear(8, 64), nn.LayerNorm(64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 3))


def make_optimizer(model):
    decay = [p for p in model.parameters() if p.ndim >= 2]  # weight matrices
    no_decay = [p for p in model.parameters() if p.ndim < 2]  # biases, LayerNorm weight and bias
    return torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": 0.05},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=1e-2,
    )


def make_scheduler(optimizer):
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=WARMUP_STEPS)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=TOTAL_STEPS - WARMUP_STEPS)
    return torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, cosine], milestones=[WARMUP_STEPS])


for group in make_optimizer(make_model()).param_groups:
    values = sum(p.numel() for p in group["params"])
    print(f"weight_decay={group['weight_decay']}: {len(group['params'])} tensors, {values} values")
#> weight_decay=0.05: 2 tensors, 704 values
#> weight_decay=0.0: 4 tensors, 195 values

optimizer = make_optimizer(make_model())
scheduler = make_scheduler(optimizer)
lrs = []
for _ in range(TOTAL_STEPS):
    lrs.append(scheduler.get_last_lr()[0])  # the learning rate this step uses
    optimizer.step()  # no gradients: changes nothing, but keeps the scheduler's call order right
    scheduler.step()
print("learning rate by step:", {step: round(lrs[step], 5) for step in (0, 1, 2, 3, 4, 10, 20, 30, 39)})
#> learning rate by step: {0: 0.001, 1: 0.00325, 2: 0.0055, 3: 0.00775, 4: 0.01, 10: 0.00933, 20: 0.00587, 30: 0.00179, 39: 2e-05}

# %% [markdown]
# ## 4. Check that gradient accumulation gives the full-batch gradient
#
# Four micro-batches of 16 stand in for one batch of 64. With the default `reduction="mean"`, the
# loss of a micro-batch is the mean over 16 samples; dividing it by `ACCUM_STEPS` before
# `backward()` makes the summed gradients equal the gradient of the mean loss over all 64 samples
# ([gradient accumulation](../gpu-memory.md#gradient-accumulation)). This holds because
# `LayerNorm` normalizes each sample on its own; a `BatchNorm` layer would compute different
# statistics for a micro-batch than for the whole batch. The check runs on two copies of one model in
# float32 without autocast, so the only difference is float rounding (tolerance 1e-6). `eval()`
# switches off the dropout, which would otherwise draw different masks in the two computations.

# %%
torch.manual_seed(0)
reference = make_model().to(device).eval()  # eval(): no dropout in this check
x, y = train_set.x[:64].to(device), train_set.y[:64].to(device)

full = copy.deepcopy(reference)
F.cross_entropy(full(x), y).backward()

accumulated = copy.deepcopy(reference)
for x_micro, y_micro in zip(x.chunk(ACCUM_STEPS), y.chunk(ACCUM_STEPS)):
    (F.cross_entropy(accumulated(x_micro), y_micro) / ACCUM_STEPS).backward()  # gradients add up in .grad

same = all(torch.allclose(a.grad, b.grad, rtol=0, atol=1e-6) for a, b in zip(full.parameters(), accumulated.parameters()))
print("accumulated gradients == full-batch gradients:", same)
#> accumulated gradients == full-batch gradients: True

# %% [markdown]
# ## 5. Write the training function
#
# `build()` creates everything a run needs, seeded; `train(run, num_steps)` continues a run for
# `num_steps` optimizer steps from wherever it stands. Each optimizer step:
#
# 1. runs 4 micro-batches under `torch.autocast`, each loss divided by `ACCUM_STEPS`, each
#    `backward()` through `scaler.scale(...)`;
# 2. calls `scaler.unscale_(optimizer)` and only then `clip_grad_norm_`: until then the gradients are
#    multiplied by the scale factor, and the clipping threshold would be compared with the scaled
#    norm ([unscale before clipping](../mixed-precision.md#amp-unscale-clip-grad));
# 3. calls `scaler.step(optimizer)`, which knows the gradients are already unscaled and skips the
#    update if they hold inf or NaN, then `scaler.update()` and `zero_grad()`;
# 4. steps the scheduler, unless the scaler skipped the update (its scale went down). Stepping it
#    anyway would shift the schedule, and on the very first step PyTorch would warn that
#    `lr_scheduler.step()` ran before `optimizer.step()`.
#
# The data position is part of the run: `epoch_start` is the generator state from just before the
# current epoch's iterator was created (the iterator draws the epoch's order from it), and
# `batch_in_epoch` counts the micro-batches used so far. `train()` restores that state, creates the
# iterator, and skips the used micro-batches, so the same code continues a run at any point, even in
# the middle of an epoch. Skipping still loads those samples; that costs nothing here. For a dataset
# that is expensive to read, save checkpoints at epoch boundaries instead.


# %%
def build():
    torch.manual_seed(0)  # the same initial weights in every run
    model = make_model().to(device)
    optimizer = make_optimizer(model)
    generator = torch.Generator().manual_seed(1)  # the shuffle order, and nothing else
    return SimpleNamespace(
        model=model,
        optimizer=optimizer,
        scheduler=make_scheduler(optimizer),
        scaler=torch.amp.GradScaler(device.type, enabled=use_scaler),
        generator=generator,
        loader=make_loader(generator),
        epoch_start=generator.get_state(),
        epoch=0,
        batch_in_epoch=0,
        step=0,
        losses=[],
    )


def next_batch(run):
    batch = next(run.batches, None)
    if batch is None:  # the epoch is used up: start the next one
        run.epoch += 1
        run.batch_in_epoch = 0
        run.epoch_start = run.generator.get_state()
        run.batches = iter(run.loader)
        batch = next(run.batches)
    run.batch_in_epoch += 1
    return (t.to(device) for t in batch)


def train(run, num_steps):
    run.model.train()
    run.generator.set_state(run.epoch_start)  # replay the current epoch's order ...
    run.batches = itertools.islice(iter(run.loader), run.batch_in_epoch, None)  # ... minus the used batches
    for _ in range(num_steps):
        scale = run.scaler.get_scale()  # always 1.0 when the scaler is disabled
        step_loss = 0.0
        for _ in range(ACCUM_STEPS):
            x, y = next_batch(run)
            with torch.autocast(device_type=device.type, dtype=amp_dtype):
                loss = F.cross_entropy(run.model(x), y) / ACCUM_STEPS
            run.scaler.scale(loss).backward()
            step_loss += loss.item()
        run.scaler.unscale_(run.optimizer)  # true gradients first ...
        torch.nn.utils.clip_grad_norm_(run.model.parameters(), max_norm=1.0)  # ... then clip them
        run.scaler.step(run.optimizer)
        run.scaler.update()
        run.optimizer.zero_grad()
        if run.scaler.get_scale() >= scale:  # the scale went down only if this update was skipped
            run.scheduler.step()
        run.step += 1
        run.losses.append(step_loss)


def evaluate(model):
    model.eval()
    with torch.inference_mode():  # float32, no autocast
        logits = model(val_set.x.to(device))
    model.train()
    return (logits.argmax(dim=1).cpu() == val_set.y).float().mean().item()


# %% [markdown]
# ## 6. Train run A without interruption
#
# Run A trains all 40 optimizer steps (5 epochs) in one go. The mean training loss of the last epoch
# is less than a tenth of the first epoch's, and more than 95% of the 256 validation samples are
# classified correctly. The program prints these facts rather than the numbers themselves: float16
# on CUDA and bfloat16 on the CPU round differently, so the exact losses depend on the device.

# %%
run_a = build()
train(run_a, TOTAL_STEPS)
steps_per_epoch = len(run_a.loader) // ACCUM_STEPS
epoch_losses = [sum(run_a.losses[i : i + steps_per_epoch]) / steps_per_epoch for i in range(0, TOTAL_STEPS, steps_per_epoch)]
accuracy_a = evaluate(run_a.model)
print("epochs:", len(epoch_losses))
#> epochs: 5
print("mean loss, last epoch < first epoch / 10:", epoch_losses[-1] < epoch_losses[0] / 10)
#> mean loss, last epoch < first epoch / 10: True
print("validation accuracy > 0.95:", accuracy_a > 0.95)
#> validation accuracy > 0.95: True

# %% [markdown]
# ## 7. Stop run B after 20 steps and save a checkpoint
#
# Run B trains 20 steps and saves a checkpoint: the state dicts of the model, the optimizer, the
# scheduler and the scaler; the data generator's state at the start of the current epoch and the
# position in it; the step and epoch counters and the loss history; and the global RNG states, which
# drive the dropout masks (the CPU generator, and each CUDA device's, an empty list without a GPU).
# The counters start at 0, so the output `epoch 2 batch 16 of 32` means halfway through the third
# epoch. The file lives in a `TemporaryDirectory`. `torch.load` reads it back with
# `weights_only=True`, the default since PyTorch 2.6, spelled out here. The checkpoint holds only
# tensors, plain Python values (numbers, booleans, strings, `None`) and the standard containers
# (dict, `OrderedDict`, list, tuple), which that safe loader accepts, so no trusted-pickle loading
# is needed ([what `weights_only` refuses](../saving.md#weights-only-unpickling-error)).

# %%
CHECKPOINT_AT = TOTAL_STEPS // 2
run_b = build()
train(run_b, CHECKPOINT_AT)

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "checkpoint.pt")
    torch.save(
        {
            "model": run_b.model.state_dict(),
            "optimizer": run_b.optimizer.state_dict(),
            "scheduler": run_b.scheduler.state_dict(),
            "scaler": run_b.scaler.state_dict(),  # {} when the scaler is disabled
            "data_generator": run_b.epoch_start,  # the state this epoch's order was drawn from
            "batch_in_epoch": run_b.batch_in_epoch,
            "epoch": run_b.epoch,
            "step": run_b.step,
            "losses": run_b.losses,
            "rng_state": torch.get_rng_state(),
            "cuda_rng_state": torch.cuda.get_rng_state_all(),
        },
        path,
    )
    del run_b  # as if the process had stopped here
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)

print("top-level value types:", sorted({type(value).__name__ for value in checkpoint.values()}))
#> top-level value types: ['OrderedDict', 'Tensor', 'dict', 'int', 'list']
print("step", checkpoint["step"], "epoch", checkpoint["epoch"], "batch", checkpoint["batch_in_epoch"], "of", len(loader))
#> step 20 epoch 2 batch 16 of 32


# %% [markdown]
# ## 8. Resume run B and compare
#
# `resume()` builds everything fresh and loads a deep copy of the checkpoint into it. The copy
# matters because the program resumes from the same checkpoint three times: on the CPU,
# `optimizer.load_state_dict` keeps the loaded state tensors themselves (the moments and the step
# count; it copies them only to move them to another device or dtype), and every `optimizer.step()`
# then updates them in place. Without the copy, the second resume would start from the optimizer
# state at the end of the first. The resumed run trains the remaining 20 steps. On the CPU, every
# parameter of run B is then equal to run A's (`torch.equal`): the resume is exact, bit for bit. On
# CUDA the program compares with a tolerance instead (1e-4), because bitwise equality there depends
# on every CUDA kernel it uses being deterministic, which we do not promise; the printed line is the
# same. Two broken resumes show that the comparison can fail: one restarts the epoch from its first
# micro-batch instead of skipping the used ones, the other reseeds the global RNG instead of
# restoring it, so the dropout masks change. The last line shows that the checkpoint itself still
# holds step 20.


# %%
def resume(checkpoint):
    checkpoint = copy.deepcopy(checkpoint)  # training changes the loaded optimizer state in place
    run = build()
    run.model.load_state_dict(checkpoint["model"])
    run.optimizer.load_state_dict(checkpoint["optimizer"])
    run.scheduler.load_state_dict(checkpoint["scheduler"])
    run.scaler.load_state_dict(checkpoint["scaler"])
    run.epoch_start = checkpoint["data_generator"]
    run.batch_in_epoch = checkpoint["batch_in_epoch"]
    run.epoch, run.step = checkpoint["epoch"], checkpoint["step"]
    run.losses = checkpoint["losses"]
    torch.set_rng_state(checkpoint["rng_state"])
    torch.cuda.set_rng_state_all(checkpoint["cuda_rng_state"])
    return run


def same_parameters(model_a, model_b):
    if device.type == "cpu":
        return all(torch.equal(a, b) for a, b in zip(model_a.parameters(), model_b.parameters()))
    return all(torch.allclose(a, b, rtol=0, atol=1e-4) for a, b in zip(model_a.parameters(), model_b.parameters()))


run_b = resume(checkpoint)
train(run_b, TOTAL_STEPS - CHECKPOINT_AT)
print("resumed == uninterrupted:", same_parameters(run_a.model, run_b.model))
#> resumed == uninterrupted: True
print("validation accuracy, resumed == uninterrupted:", evaluate(run_b.model) == accuracy_a)
#> validation accuracy, resumed == uninterrupted: True

restarted_epoch = resume(checkpoint)
restarted_epoch.batch_in_epoch = 0  # wrong: replays the 16 micro-batches already used
train(restarted_epoch, TOTAL_STEPS - CHECKPOINT_AT)
reseeded = resume(checkpoint)
torch.manual_seed(1)  # wrong: new dropout masks instead of the saved RNG state
train(reseeded, TOTAL_STEPS - CHECKPOINT_AT)
print("epoch restarted == uninterrupted:", same_parameters(run_a.model, restarted_epoch.model))
#> epoch restarted == uninterrupted: False
print("RNG reseeded == uninterrupted:", same_parameters(run_a.model, reseeded.model))
#> RNG reseeded == uninterrupted: False
print("optimizer step stored in the checkpoint:", int(checkpoint["optimizer"]["state"][0]["step"]))
#> optimizer step stored in the checkpoint: 20
