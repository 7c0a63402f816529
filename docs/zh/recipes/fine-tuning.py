# %% [markdown]
# # 微调预训练模型：迁移到只有少量数据的新任务
#
# 这个程序先在一个合成的 4 类任务上预训练一个带 BatchNorm 的小 MLP，再把它的主干加载进输出头为 3 类的新模型，用 128 个样本分三个阶段微调：先只训练输出头，再解冻主干的最后一块，最后全部解冻。
# 你会学到：用 [`strict=False`](../saving.md#load-state-dict-strict-false) 加载 [保存的权重](../saving.md#save-load-state-dict)，并检查缺失和多余的键；用 `requires_grad_(False)` [冻结主干](../modules.md#freeze-backbone)，同时让其中的 BatchNorm 保持 [评估模式](../modules.md#train-eval-mode)；用 `add_param_group` 逐步解冻，给各部分设置 [不同的学习率](../training.md#optimizer-param-groups)，并由 [同一个调度器](../training.md#lr-scheduler-step) 按同一比例调整。
# 在 CPU 上运行约 5 秒。

# %% [markdown]
# ## 1. 两个相关的任务，以及分成主干和输出头的模型
#
# 两个任务的标签由输入的同一组隐藏特征决定，所以在任务 A 上学到的特征对任务 B 也有用。任务 A 的数据很充足；任务 B 只有 128 个训练样本，类别也从 4 个变成 3 个，其中一类很少。
# 模型把可以复用的部分放在 `backbone`（主干）里，把与任务相关的部分放在 `head`（输出头）里：有了这样的划分，才能分别加载、冻结和解冻它们。

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
proj = torch.randn(IN_FEATURES, 8, generator=gen)  # 两个任务共用的隐藏特征
rule_a = torch.randn(8, 4, generator=gen)  # 任务 A：4 类
rule_b = torch.randn(8, 3, generator=gen)  # 任务 B：另外 3 类


def make_task(rule, n, seed):
    x = torch.randn(n, IN_FEATURES, generator=torch.Generator().manual_seed(seed))
    z = x @ proj
    hidden = torch.relu(z) - proj.norm(dim=0) / (2 * torch.pi) ** 0.5  # 减去 relu(z) 的均值
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


def same_state(a, b):  # 参数和缓冲区（含 BatchNorm 的统计量）都相等
    return all(torch.equal(v, b.state_dict()[k]) for k, v in a.state_dict().items())


def set_train_mode(model):
    model.train()
    for m in model.modules():  # 参数已冻结的 BatchNorm 层保持评估模式
        if isinstance(m, nn.BatchNorm1d) and not m.weight.requires_grad:
            m.eval()


def train(model, optimizer, data, steps, seed, scheduler=None, batch_size=32):
    x, y = data
    shuffle = torch.Generator().manual_seed(seed)
    set_train_mode(model)  # 不直接用 model.train()，原因见第 5 步
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
# ## 2. 在任务 A 上预训练，保存 state_dict
#
# 这一步代替下载来的预训练检查点。保存 `state_dict`，而不是整个模型对象：它包含参数和 BatchNorm 的缓冲区（`running_mean`、`running_var`、`num_batches_tracked`）。
# 加载时写上 `weights_only=True`：PyTorch 2.6 起它已是 `torch.load` 的默认值，写出来是为了表明文件里只有张量。
# 程序打印的是准确率的比较结果，而不是数值：在 CUDA 上浮点数求和的顺序不同，准确率的小数点后第二位可能不一样（CPU 上任务 A 的准确率是 0.90）。

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
# ## 3. 把主干加载进换了新输出头的模型
#
# 新模型有 3 个输出，`head.weight` 的形状与文件里的不同。这一点 `strict=False` 帮不上忙：即使 `strict=False`，形状不符也会报错。
# 先去掉旧输出头的键，再用 `strict=False` 加载其余部分，然后检查返回值：`missing_keys` 应该只列出新的输出头，`unexpected_keys` 应该为空。键名前缀写错时，什么都不会加载，也不会报错。
# 加载失败也并非什么都没改：`load_state_dict` 先复制完所有形状相符的张量，最后才报错，所以下面在副本上尝试。输出头还是随机的，这时模型在任务 B 上毫无用处。

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
# ## 4. 冻结主干，只优化输出头
#
# `requires_grad_(False)` 让主干的所有参数都不再计算梯度。只把仍需要梯度的参数交给优化器：这样它持有并为之保存状态的，正好是要训练的参数。
# 输出头之前没有任何东西需要梯度，所以自动求导根本不会记录主干的运算。

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
# ## 5. 让冻结的 BatchNorm 统计量保持不变
#
# `requires_grad_(False)` 停掉的只是梯度，管不到 BatchNorm 的统计量。在训练模式下，每次前向传播仍会用当前批量更新 `running_mean` 和 `running_var`；默认 `momentum=0.1` 时，在小的新任务上跑几十个批量，预训练的统计量就所剩无几了。
# 在评估模式下，BatchNorm 用保存的统计量做归一化，也不改动它们。所以每次 `model.train()` 之后，都要把冻结的 BatchNorm 层切回评估模式：第 1 步的 `set_train_mode` 做的就是这件事。
# 下面的检查在副本上进行，模型本身仍保留预训练的统计量。

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
# ## 6. 第 1 阶段：只训练输出头
#
# 训练 100 步之后，主干的整个 `state_dict`（权重和 BatchNorm 统计量）仍与预训练的完全相同，优化器也只为输出头的 2 个张量保存了状态。

# %%
train(model, optimizer, train_b, steps=100, seed=1)
same = same_state(model.backbone, pretrained.backbone)
print("after stage 1, backbone unchanged:", same, "| optimizer state for", len(optimizer.state), "tensors")
#> after stage 1, backbone unchanged: True | optimizer state for 2 tensors
print("task B accuracy above 0.75 after stage 1:", accuracy(model, test_b) > 0.75)
#> task B accuracy above 0.75 after stage 1: True

# %% [markdown]
# ## 7. 第 2 阶段：解冻最后一块，使用较小的学习率
#
# 解冻主干的最后一块，用 `add_param_group` 把它的参数加进现有的优化器，学习率取输出头的十分之一：预训练的权重只需要小幅调整。输出头保留原来的参数组和 Adam 状态。
# 调度器要在加入参数组之后再创建：调度器只认识创建时已有的参数组（在 torch 2.13 上，之后调用它的 `step()` 会抛出 `ValueError`）。`LambdaLR` 把每组的初始学习率乘以同一个系数，所以 10:1 的比例始终不变。
# 解冻的这一块的 BatchNorm 重新开始更新统计量，因为 `set_train_mode` 逐层检查 `requires_grad`；第一块则保持不变，统计量也不变。

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
# ## 8. 第 3 阶段：全部解冻，各层使用不同的学习率
#
# 最后训练所有层，学习率从输出头往输入方向逐层减小：第一块学到的特征最通用，所以学习率最小。这里用一个有三个参数组的新优化器替换旧的（Adam 状态从头开始）。
# 再与从零开始训练的同一个网络比较：同样在这 128 个样本上训练 300 步。在 CPU 上，微调后的模型在任务 B 上的准确率是 0.82，从零训练的是 0.71。

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
