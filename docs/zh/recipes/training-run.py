# %% [markdown]
# # 一次完整的训练，断点续训逐位复现
#
# 这个程序在一个带种子的合成数据集上训练一个小型 MLP 分类器，用到混合精度、梯度累积和梯度裁剪、先预热再余弦衰减的学习率，并在一轮训练的中途保存检查点。然后证明：在检查点处停下、再从检查点恢复的训练，最后得到的参数与从不中断的训练相同（CPU 上逐位相同）。整个程序在 CPU 上运行约 5 秒。用到的条目：[自定义 `Dataset`](../data.md#map-style-dataset)、[偏置和归一化层不做权重衰减](../training.md#no-weight-decay-bias-norm)、[用 `SequentialLR` 预热学习率](../training.md#lr-warmup-linearlr)、[梯度累积](../training.md#gradient-accumulation-loop)、[梯度裁剪前先反缩放](../mixed-precision.md#amp-unscale-clip-grad)、[保存训练检查点](../saving.md#save-training-checkpoint) 和 [从检查点恢复训练](../saving.md#resume-training-checkpoint)。

# %% [markdown]
# ## 1. 选择设备和混合精度模式
#
# 在 CUDA 上，程序像 [混合精度训练](../mixed-precision.md#amp-fp16-training-loop) 那样用 float16 autocast 加 `GradScaler`。float16 只有 5 个指数位，能表示的最小正数约为 6e-8，更小的梯度会下溢成 0。所以缩放器在 `backward()` 之前把损失放大（起始倍数 65536），在更新参数之前再把梯度缩回原值。在 CPU 上，程序改用 bfloat16：它保留了 float32 的 8 个指数位，数值范围与 float32 相同，小梯度不会下溢，因此 [不需要缩放器](../mixed-precision.md#bf16-training-no-scaler)。两种情况共用同一份代码：缩放器用 `enabled=use_scaler` 创建，禁用的缩放器对损失和 `step()` 都原样放行。

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
use_scaler = device.type == "cuda"  # CUDA 上用 float16，需要 GradScaler
amp_dtype = torch.float16 if use_scaler else torch.bfloat16  # CPU 上用 bfloat16，不需要

# %% [markdown]
# ## 2. 带种子的数据集和可复现的打乱顺序
#
# `Blobs` 是一个 [映射式数据集](../data.md#map-style-dataset)：8 维空间里的三个高斯簇，由种子生成，每次运行看到的样本都相同。`DataLoader` 用自己的带种子的 `torch.Generator` 打乱顺序，而不是全局随机数生成器：每一轮的顺序只取决于这个生成器，它的状态可以保存和恢复。输出证明了这两点：种子相同，顺序就相同；创建并使用迭代器之后，全局随机数生成器的状态没有变。512 个训练样本、每个小批量 16 个，每轮共 32 个小批量；每 4 个小批量更新一次参数，一轮恰好是 8 个优化器步。512 是 16 的倍数，所以这里 `drop_last=True` 什么也不丢；它保证每个小批量大小相同，第 4 步的梯度累积算式依赖这一点。

# %%
MICRO_BATCH, ACCUM_STEPS = 16, 4
TOTAL_STEPS, WARMUP_STEPS = 40, 4  # 按优化器步计数，不是按小批量


class Blobs(Dataset):
    # 三个高斯簇：簇中心对所有种子都相同，样本随种子变化
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
again = next(iter(make_loader(torch.Generator().manual_seed(1))))[1]  # 另一个数据加载器，种子相同
print("same order with the same seed:", torch.equal(first, again))
#> same order with the same seed: True
print("global RNG untouched:", torch.equal(global_rng, torch.get_rng_state()))
#> global RNG untouched: True

# %% [markdown]
# ## 3. 模型、两个参数组和学习率调度
#
# 模型是带 `LayerNorm` 和 `Dropout` 的两层 MLP。AdamW 使用两个 [参数组](../training.md#no-weight-decay-bias-norm)：权重矩阵（2 维）做权重衰减，偏置以及 `LayerNorm` 的缩放和平移参数（1 维）不做。学习率先用 4 个优化器步从峰值 0.01 的十分之一 [线性预热](../training.md#lr-warmup-linearlr)，然后按余弦曲线下降，在 40 步中的最后一步之后恰好降到 0（步数从 0 开始计，最后一步是第 39 步）。调度器每个优化器步调用一次 `step()`，所以它的各个长度按优化器步计数，不按小批量计数。为了不训练也能看到学习率曲线，程序用一个临时优化器把整个调度走一遍。


# %%
def make_model():
    return nn.Sequential(nn.Linear(8, 64), nn.LayerNorm(64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 3))


def make_optimizer(model):
    decay = [p for p in model.parameters() if p.ndim >= 2]  # 权重矩阵
    no_decay = [p for p in model.parameters() if p.ndim < 2]  # 偏置，LayerNorm 的 weight 和 bias
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
    lrs.append(scheduler.get_last_lr()[0])  # 这一步使用的学习率
    optimizer.step()  # 没有梯度，什么也不改，只为保证调度器要求的调用顺序
    scheduler.step()
print("learning rate by step:", {step: round(lrs[step], 5) for step in (0, 1, 2, 3, 4, 10, 20, 30, 39)})
#> learning rate by step: {0: 0.001, 1: 0.00325, 2: 0.0055, 3: 0.00775, 4: 0.01, 10: 0.00933, 20: 0.00587, 30: 0.00179, 39: 2e-05}

# %% [markdown]
# ## 4. 验证梯度累积得到整批的梯度
#
# 用 4 个 16 样本的小批量代替一个 64 样本的批量。默认 `reduction="mean"` 时，一个小批量的损失是 16 个样本的平均值；`backward()` 之前再除以 `ACCUM_STEPS`，累加起来的梯度就等于 64 个样本平均损失的梯度（见 [梯度累积](../gpu-memory.md#gradient-accumulation)）。这成立的前提是 `LayerNorm` 对每个样本单独归一化；换成 `BatchNorm`，小批量和整批算出的统计量就不同了。检查在同一个模型的两个副本上进行，用 float32、不用 autocast，两者只差浮点舍入误差（容差 1e-6）。`eval()` 关掉 dropout，否则两次计算会抽到不同的掩码。

# %%
torch.manual_seed(0)
reference = make_model().to(device).eval()  # eval()：这次检查不用 dropout
x, y = train_set.x[:64].to(device), train_set.y[:64].to(device)

full = copy.deepcopy(reference)
F.cross_entropy(full(x), y).backward()

accumulated = copy.deepcopy(reference)
for x_micro, y_micro in zip(x.chunk(ACCUM_STEPS), y.chunk(ACCUM_STEPS)):
    (F.cross_entropy(accumulated(x_micro), y_micro) / ACCUM_STEPS).backward()  # 梯度在 .grad 中累加

same = all(torch.allclose(a.grad, b.grad, rtol=0, atol=1e-6) for a, b in zip(full.parameters(), accumulated.parameters()))
print("accumulated gradients == full-batch gradients:", same)
#> accumulated gradients == full-batch gradients: True

# %% [markdown]
# ## 5. 编写训练函数
#
# `build()` 带种子地创建一次训练所需的全部对象；`train(run, num_steps)` 让一次训练从当前位置继续 `num_steps` 个优化器步。每个优化器步：
#
# 1. 在 `torch.autocast` 下跑 4 个小批量，每个损失都除以 `ACCUM_STEPS`，每次 `backward()` 都经过 `scaler.scale(...)`；
# 2. 先调用 `scaler.unscale_(optimizer)`，再调用 `clip_grad_norm_`：反缩放之前，梯度乘着缩放因子，裁剪阈值比较的会是放大后的范数（见 [梯度裁剪前先反缩放](../mixed-precision.md#amp-unscale-clip-grad)）；
# 3. 调用 `scaler.step(optimizer)`：它知道梯度已经反缩放过，梯度中有 inf 或 NaN 时跳过这次更新；然后调用 `scaler.update()` 和 `zero_grad()`；
# 4. 推进学习率调度器，除非缩放器跳过了这次更新（缩放因子变小了）。跳过时仍推进调度器，学习率曲线就会错位；如果跳过的是第一步，PyTorch 还会警告 `lr_scheduler.step()` 在 `optimizer.step()` 之前调用。
#
# 数据读到哪里也是训练状态的一部分：`epoch_start` 是创建本轮迭代器之前那一刻的生成器状态（迭代器从它抽取本轮的顺序），`batch_in_epoch` 记录本轮已经用掉的小批量个数。`train()` 恢复这个状态、创建迭代器、跳过用过的小批量，所以同一段代码可以在任何位置接着训练，即使在一轮的中途。跳过的样本仍会被加载一遍，在这里不花什么时间；如果数据集读取代价高，就改在每轮结束时保存检查点。


# %%
def build():
    torch.manual_seed(0)  # 每次训练的初始权重都相同
    model = make_model().to(device)
    optimizer = make_optimizer(model)
    generator = torch.Generator().manual_seed(1)  # 只决定打乱顺序
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
    if batch is None:  # 本轮的数据用完了，开始下一轮
        run.epoch += 1
        run.batch_in_epoch = 0
        run.epoch_start = run.generator.get_state()
        run.batches = iter(run.loader)
        batch = next(run.batches)
    run.batch_in_epoch += 1
    return (t.to(device) for t in batch)


def train(run, num_steps):
    run.model.train()
    run.generator.set_state(run.epoch_start)  # 重现本轮的顺序……
    run.batches = itertools.islice(iter(run.loader), run.batch_in_epoch, None)  # ……跳过已用的小批量
    for _ in range(num_steps):
        scale = run.scaler.get_scale()  # 缩放器禁用时总是 1.0
        step_loss = 0.0
        for _ in range(ACCUM_STEPS):
            x, y = next_batch(run)
            with torch.autocast(device_type=device.type, dtype=amp_dtype):
                loss = F.cross_entropy(run.model(x), y) / ACCUM_STEPS
            run.scaler.scale(loss).backward()
            step_loss += loss.item()
        run.scaler.unscale_(run.optimizer)  # 先得到真实梯度……
        torch.nn.utils.clip_grad_norm_(run.model.parameters(), max_norm=1.0)  # ……再裁剪
        run.scaler.step(run.optimizer)
        run.scaler.update()
        run.optimizer.zero_grad()
        if run.scaler.get_scale() >= scale:  # 只有这次更新被跳过时，缩放因子才会变小
            run.scheduler.step()
        run.step += 1
        run.losses.append(step_loss)


def evaluate(model):
    model.eval()
    with torch.inference_mode():  # float32，不用 autocast
        logits = model(val_set.x.to(device))
    model.train()
    return (logits.argmax(dim=1).cpu() == val_set.y).float().mean().item()


# %% [markdown]
# ## 6. 运行 A：不中断地训练到底
#
# 运行 A 一口气训练全部 40 个优化器步（5 轮）。最后一轮的平均训练损失不到第一轮的十分之一，256 个验证样本中超过 95% 分类正确。程序打印的是这些事实，而不是具体数值：CUDA 上的 float16 和 CPU 上的 bfloat16 舍入方式不同，损失的确切值取决于设备。

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
# ## 7. 运行 B：训练 20 步后停下，保存检查点
#
# 运行 B 训练 20 步后保存检查点，内容包括：模型、优化器、调度器和缩放器的状态字典；本轮开始时数据生成器的状态，以及在本轮中的位置；步数、轮数计数器和损失记录；还有决定 dropout 掩码的全局随机数生成器状态（CPU 生成器的，以及每块 CUDA 设备的；没有 GPU 时是空列表）。计数器从 0 开始，所以输出中的 `epoch 2 batch 16 of 32` 表示第三轮刚好过半。文件放在 `TemporaryDirectory` 里。`torch.load` 用 `weights_only=True` 读回检查点；这是 PyTorch 2.6 起的默认值，这里明确写出来。检查点里只有张量、普通的 Python 值（数字、布尔值、字符串、`None`）和标准容器（dict、`OrderedDict`、list、tuple），都是这种安全加载方式接受的类型，不需要按可信的 pickle 加载（见 [`weights_only` 拒绝加载什么](../saving.md#weights-only-unpickling-error)）。

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
            "scaler": run_b.scaler.state_dict(),  # 缩放器禁用时是 {}
            "data_generator": run_b.epoch_start,  # 抽取本轮顺序时的生成器状态
            "batch_in_epoch": run_b.batch_in_epoch,
            "epoch": run_b.epoch,
            "step": run_b.step,
            "losses": run_b.losses,
            "rng_state": torch.get_rng_state(),
            "cuda_rng_state": torch.cuda.get_rng_state_all(),
        },
        path,
    )
    del run_b  # 就像进程在这里停止了一样
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)

print("top-level value types:", sorted({type(value).__name__ for value in checkpoint.values()}))
#> top-level value types: ['OrderedDict', 'Tensor', 'dict', 'int', 'list']
print("step", checkpoint["step"], "epoch", checkpoint["epoch"], "batch", checkpoint["batch_in_epoch"], "of", len(loader))
#> step 20 epoch 2 batch 16 of 32


# %% [markdown]
# ## 8. 恢复运行 B 并比较
#
# `resume()` 重新创建所有对象，再把检查点的一份深拷贝加载进去。拷贝是必要的，因为程序要从同一个检查点恢复三次：在 CPU 上，`optimizer.load_state_dict` 直接使用加载进来的状态张量本身（一阶矩、二阶矩和步数）（只有在需要换设备或换 dtype 时才复制），之后每次 `optimizer.step()` 都原地修改它们。不拷贝的话，第二次恢复会从第一次恢复训练结束时的优化器状态开始。恢复后的运行 B 训练剩下的 20 步。在 CPU 上，运行 B 的每个参数都与运行 A 的相等（`torch.equal`）：恢复是逐位精确的。在 CUDA 上，程序改用容差（1e-4）比较，因为那里能否逐位相等取决于用到的每个 CUDA 内核是否确定，这一点我们不作保证；打印的结果相同。两个错误的恢复方式说明这个比较确实会失败：一个从本轮的第一个小批量重新开始，而不是跳过已用的小批量；另一个重新设置全局种子，而不是恢复保存的随机数生成器状态，于是 dropout 掩码变了。最后一行表明检查点本身仍停在第 20 步。


# %%
def resume(checkpoint):
    checkpoint = copy.deepcopy(checkpoint)  # 训练会原地修改加载进来的优化器状态
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
restarted_epoch.batch_in_epoch = 0  # 错误：重放已经用过的 16 个小批量
train(restarted_epoch, TOTAL_STEPS - CHECKPOINT_AT)
reseeded = resume(checkpoint)
torch.manual_seed(1)  # 错误：dropout 掩码换了一套，而不是用保存的随机数生成器状态
train(reseeded, TOTAL_STEPS - CHECKPOINT_AT)
print("epoch restarted == uninterrupted:", same_parameters(run_a.model, restarted_epoch.model))
#> epoch restarted == uninterrupted: False
print("RNG reseeded == uninterrupted:", same_parameters(run_a.model, reseeded.model))
#> RNG reseeded == uninterrupted: False
print("optimizer step stored in the checkpoint:", int(checkpoint["optimizer"]["state"][0]["step"]))
#> optimizer step stored in the checkpoint: 20
