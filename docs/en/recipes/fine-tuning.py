# %% [markdown]
# # Fine-tune a pretrained model on a new small task
#
# This program pretrains a small MLP with BatchNorm on a synthetic 4-class task, loads its backbone into
# a new model with a 3-class head, and fine-tunes it on 128 examples in three stages: the head only, then
# the last backbone block, then everything. You learn to load [saved weights](../saving.md#save-load-state-dict)
# with [`strict=False`](../saving.md#load-state-dict-strict-false) and read the missing and unexpected keys,
# to [freeze the backbone](../modules.md#freeze-backbone) with `requires_grad_(False)` while its BatchNorm
# layers stay in [eval mode](../modules.md#train-eval-mode), and to unfreeze layers with `add_param_group`
# and [per-group learning rates](../training.md#optimizer-param-groups) that
# [one scheduler](../training.md#lr-scheduler-step) scales together. It runs in about 5 seconds on CPU.

# %% [markdown]
# ## 1. Two related tasks and a model with a backbone and a head
#
# Both tasks label the same hidden features of the input, so features learned on task A help on
# task B. Task A has plenty of data; task B has only 128 training examples and 3 classes instead of 4,
# one of them rare.
# The model keeps the reusable part in `backbone` and the task-specific part in `head`: that split is
# what lets you load, freeze and unfreeze them separately.

# %%
import copy
import os
import tempfile

import torch
import torch.nn.functional as F
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
IN_FEATURES = 16
gen = torch.Generator().manual_seed(0)
proj = torch.randn(IN_FEATURES, 8, generator=gen)  # the hidden features both tasks use
rule_a = torch.randn(8, 4, generator=gen)  # task A: 4 classes
rule_b = torch.randn(8, 3, generator=gen)  # task B: 3 other classes


def make_task(rule, n, seed):
    x = torch.randn(n, IN_FEATURES, generator=torch.Generator().manual_seed(seed))
    z = x @ proj
    hidden = torch.relu(z) - proj.norm(dim=0) / (2 * torch.pi) ** 0.5  # minus the mean of relu(z)
    y = (hidden @ rule).argmax(dim=1)
    return x.to(device), y.to(device)


train_a, test_a = make_task(rule_a, 4096, seed=1), make_task(rule_a, 2000, seed=2)
train_b, test_b = make_task(rule_b, 128, seed=3), make_task(rule_b, 2000, seed=4)
print("training examples: task A", len(train_a[0]), "| task B", len(train_b[0]))
#> training examples: task A 4096 | task B 128
print("task B examples per class:", torch.bincount(train_b[1]).tolist())
#> task B examples per class: [58, 55, 15]


def block(n_in, n_out):
    return nn.Sequential(nn.Linear(n_in, n_out), nn.BatchNorm1d(n_out), nn.ReLU())


class Net(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.backbone = nn.Sequential(block(IN_FEATURES, 64), block(64, 64))
        self.head = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def same_state(a, b):  # equal parameters and buffers (BatchNorm statistics included)
    return all(torch.equal(v, b.state_dict()[k]) for k, v in a.state_dict().items())


def set_train_mode(model):
    model.train()
    for m in model.modules():  # BatchNorm layers whose parameters are frozen stay in eval mode
        if isinstance(m, nn.BatchNorm1d) and not m.weight.requires_grad:
            m.eval()


def train(model, optimizer, data, steps, seed, scheduler=None, batch_size=32):
    x, y = data
    shuffle = torch.Generator().manual_seed(seed)
    set_train_mode(model)  # not model.train(): see step 5
    done = 0
    while done < steps:
        for idx in torch.randperm(len(x), generator=shuffle).split(batch_size):
            loss = F.cross_entropy(model(x[idx.to(device)]), y[idx.to(device)])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            done += 1
            if done == steps:
                break


def accuracy(model, data):
    x, y = data
    model.eval()
    with torch.inference_mode():
        return (model(x).argmax(dim=1) == y).float().mean().item()


# %% [markdown]
# ## 2. Pretrain on task A and save the state_dict
#
# This stands in for a downloaded checkpoint. Save the `state_dict`, not the model object: it holds
# the parameters and the BatchNorm buffers (`running_mean`, `running_var`, `num_batches_tracked`).
# Load it with `weights_only=True`, which has been the default of `torch.load` since PyTorch 2.6;
# writing it out documents that the file is only tensors. The program prints accuracies as comparisons,
# not values: on CUDA, floating-point sums run in a different order, so the exact accuracies can differ
# in the second decimal (on CPU, task A reaches 0.90).

# %%
torch.manual_seed(0)
pretrained = Net(num_classes=4).to(device)
optimizer = torch.optim.AdamW(pretrained.parameters(), lr=1e-2)
train(pretrained, optimizer, train_a, steps=300, seed=0, batch_size=128)
print("task A accuracy above 0.85:", accuracy(pretrained, test_a) > 0.85)
#> task A accuracy above 0.85: True

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "pretrained.pt")
    torch.save(pretrained.state_dict(), path)
    state = torch.load(path, map_location="cpu", weights_only=True)
print("first BatchNorm in the file:", [key for key in state if key.startswith("backbone.0.1.")])
#> first BatchNorm in the file: ['backbone.0.1.weight', 'backbone.0.1.bias', 'backbone.0.1.running_mean', 'backbone.0.1.running_var', 'backbone.0.1.num_batches_tracked']

# %% [markdown]
# ## 3. Load the backbone into a model with a new head
#
# The new model has 3 outputs, so `head.weight` has a different shape than in the file. `strict=False`
# does not help with that: a shape mismatch is an error even then. Drop the old head's keys, load the
# rest with `strict=False`, and read the result: `missing_keys` must list only the new head, and
# `unexpected_keys` must be empty. A wrong prefix would load nothing without raising an error.
# A failed `load_state_dict` is not a no-op either: it raises only after copying every tensor that fits,
# so the attempt below runs on a copy. With its random head, the model is still useless on task B.

# %%
torch.manual_seed(1)
model = Net(num_classes=3).to(device)
attempt = copy.deepcopy(model)
try:
    attempt.load_state_dict(state, strict=False)
except RuntimeError as error:
    print("strict=False still raises:", str(error).splitlines()[1].strip())
#> strict=False still raises: size mismatch for head.weight: copying a param with shape torch.Size([4, 64]) from checkpoint, the shape in current model is torch.Size([3, 64]).
print("the failed load still copied the backbone:", same_state(attempt.backbone, pretrained.backbone))
#> the failed load still copied the backbone: True

backbone_state = {k: v for k, v in state.items() if not k.startswith("head.")}
result = model.load_state_dict(backbone_state, strict=False)
print("missing keys:", result.missing_keys)
#> missing keys: ['head.weight', 'head.bias']
print("unexpected keys:", result.unexpected_keys)
#> unexpected keys: []
print("backbone loaded, BatchNorm statistics included:", same_state(model.backbone, pretrained.backbone))
#> backbone loaded, BatchNorm statistics included: True
print("task B accuracy with the new random head below 0.5:", accuracy(model, test_b) < 0.5)
#> task B accuracy with the new random head below 0.5: True

# %% [markdown]
# ## 4. Freeze the backbone and optimize only the head
#
# `requires_grad_(False)` stops gradients for every parameter of the backbone. Give the optimizer only
# the parameters that still require gradients: it then holds, and keeps state for, exactly what it
# trains. Since nothing before the head requires gradients, autograd does not even record the
# backbone's operations.

# %%
model.backbone.requires_grad_(False)
total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"trainable {trainable:,} of {total:,} parameters")
#> trainable 195 of 5,699 parameters
print("autograd records the backbone:", model.backbone(train_b[0]).requires_grad)
#> autograd records the backbone: False

optimizer = torch.optim.AdamW((p for p in model.parameters() if p.requires_grad), lr=1e-2)
print("parameter groups:", len(optimizer.param_groups), "| tensors in the optimizer:", len(optimizer.param_groups[0]["params"]))
#> parameter groups: 1 | tensors in the optimizer: 2

# %% [markdown]
# ## 5. Keep the frozen BatchNorm statistics fixed
#
# `requires_grad_(False)` stops gradients, not BatchNorm's statistics. In training mode, every forward
# pass still updates `running_mean` and `running_var` from the batch; with the default `momentum=0.1`,
# little of the pretrained statistics is left after a few dozen batches of the small new task. In eval
# mode, BatchNorm normalizes with the stored statistics and leaves them alone. So put the frozen
# BatchNorm layers back in eval mode after every `model.train()`: that is what `set_train_mode` from
# step 1 does. The check below runs on a copy, so the model keeps its pretrained statistics.

# %%
probe = copy.deepcopy(model)
bn = probe.backbone[0][1]
before = bn.running_mean.clone()
probe.train()
probe(train_b[0])
changed = not torch.equal(before, bn.running_mean)
print("model.train(): BatchNorm requires_grad", bn.weight.requires_grad, "| running_mean changed:", changed)
#> model.train(): BatchNorm requires_grad False | running_mean changed: True

before = bn.running_mean.clone()
set_train_mode(probe)
probe(train_b[0])
changed = not torch.equal(before, bn.running_mean)
print("set_train_mode(): head in training mode", probe.head.training, "| running_mean changed:", changed)
#> set_train_mode(): head in training mode True | running_mean changed: False

# %% [markdown]
# ## 6. Stage 1: train the head only
#
# After 100 steps the backbone's whole `state_dict` (weights and BatchNorm statistics) is still
# identical to the pretrained one, and the optimizer keeps state only for the head's 2 tensors.

# %%
train(model, optimizer, train_b, steps=100, seed=1)
same = same_state(model.backbone, pretrained.backbone)
print("after stage 1, backbone unchanged:", same, "| optimizer state for", len(optimizer.state), "tensors")
#> after stage 1, backbone unchanged: True | optimizer state for 2 tensors
print("task B accuracy above 0.75 after stage 1:", accuracy(model, test_b) > 0.75)
#> task B accuracy above 0.75 after stage 1: True

# %% [markdown]
# ## 7. Stage 2: unfreeze the last block with a smaller learning rate
#
# Unfreeze the last backbone block and add its parameters to the existing optimizer with
# `add_param_group`, at a tenth of the head's learning rate: pretrained weights need only small
# changes. The head keeps its group and its Adam state. Create the scheduler after adding the group:
# a scheduler only knows the groups that existed when it was made (on torch 2.13 its `step()` then
# raises a `ValueError`). `LambdaLR` multiplies each group's initial learning rate by the same factor,
# so the 10:1 ratio holds throughout. The unfrozen block's BatchNorm updates its statistics again,
# since `set_train_mode` checks `requires_grad` layer by layer; the first block stays fixed, statistics
# included.

# %%
model.backbone[-1].requires_grad_(True)
optimizer.add_param_group({"params": list(model.backbone[-1].parameters()), "lr": 1e-3})
print("Adam state kept for", len(optimizer.state), "head tensors")
#> Adam state kept for 2 head tensors
steps = 100
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1 - 0.9 * step / steps)
for i, group in enumerate(optimizer.param_groups):
    print(f"group {i}: lr={group['lr']}, {len(group['params'])} tensors, {sum(p.numel() for p in group['params']):,} values")
#> group 0: lr=0.01, 2 tensors, 195 values
#> group 1: lr=0.001, 4 tensors, 4,288 values

train(model, optimizer, train_b, steps=steps, seed=2, scheduler=scheduler)
print("learning rates after stage 2:", [round(lr, 6) for lr in scheduler.get_last_lr()])
#> learning rates after stage 2: [0.001, 0.0001]
print("frozen first block unchanged, BatchNorm statistics included:", same_state(model.backbone[0], pretrained.backbone[0]))
#> frozen first block unchanged, BatchNorm statistics included: True
updated = not torch.equal(model.backbone[1][1].running_mean, pretrained.backbone[1][1].running_mean)
print("unfrozen last block, BatchNorm statistics updated:", updated)
#> unfrozen last block, BatchNorm statistics updated: True
print("task B accuracy above 0.75 after stage 2:", accuracy(model, test_b) > 0.75)
#> task B accuracy above 0.75 after stage 2: True

# %% [markdown]
# ## 8. Stage 3: unfreeze everything with discriminative learning rates
#
# Finally train all layers, with learning rates that shrink toward the input: the first block holds
# the most general features, so it gets the smallest rate. Here a new optimizer with three groups
# replaces the old one (the Adam state starts again). Compare the result with the same network trained
# from scratch on the 128 examples for the same 300 steps: on CPU, the fine-tuned model reaches 0.82 on
# task B, the one trained from scratch 0.71.

# %%
model.requires_grad_(True)
groups = [
    {"params": model.head.parameters(), "lr": 3e-3},
    {"params": model.backbone[1].parameters(), "lr": 1e-3},
    {"params": model.backbone[0].parameters(), "lr": 3e-4},
]
optimizer = torch.optim.AdamW(groups)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1 - 0.9 * step / steps)
train(model, optimizer, train_b, steps=steps, seed=3, scheduler=scheduler)
print("learning rates after stage 3:", [round(lr, 6) for lr in scheduler.get_last_lr()])
#> learning rates after stage 3: [0.0003, 0.0001, 3e-05]
fine_tuned = accuracy(model, test_b)
print("task B accuracy above 0.75 after stage 3:", fine_tuned > 0.75)
#> task B accuracy above 0.75 after stage 3: True

torch.manual_seed(1)
scratch = Net(num_classes=3).to(device)
optimizer = torch.optim.AdamW(scratch.parameters(), lr=1e-2)
train(scratch, optimizer, train_b, steps=300, seed=1)
from_scratch = accuracy(scratch, test_b)
print("fine-tuned model beats the model trained from scratch:", fine_tuned > from_scratch)
#> fine-tuned model beats the model trained from scratch: True
