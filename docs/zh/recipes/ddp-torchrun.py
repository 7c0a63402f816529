# %% [markdown]
# # 单机数据并行：用 torchrun 启动 DDP 脚本
#
# 这个程序写出一个完整的 DistributedDataParallel（DDP）训练脚本，用 [`torchrun --standalone`](../distributed.md#torchrun-standalone) 启动 2 个进程运行它，再检查这些进程留下的结果：两个 rank 训练完的权重完全相同，每个 rank 只用自己那一半数据训练，只有 rank 0 写了检查点，而且结果与批量大一倍的普通单进程训练相同。
# 脚本用到了 [分布式训练](../distributed.md) 页上的这些条目：[进程组和通信后端](../distributed.md#init-process-group-backend)、[环境变量](../distributed.md#dist-env-vars)、[用 DDP 包装模型](../distributed.md#ddp-device-ids)、[用 `DistributedSampler` 切分数据并调用 `set_epoch`](../distributed.md#distributed-sampler-set-epoch)、[用 `all_reduce` 汇总指标](../distributed.md#all-reduce-metrics)、[只在 rank 0 上保存](../distributed.md#save-on-rank-zero)、[`barrier`](../distributed.md#dist-barrier)、[梯度累积时用 `no_sync`](../distributed.md#ddp-no-sync-accumulation) 和 [`destroy_process_group`](../distributed.md#destroy-process-group)。
# 程序在 CPU 上用 gloo 后端运行，在 2 核 CPU 上约需 10 到 15 秒，大部分时间花在启动进程上。

# %% [markdown]
# ## 1. 脚本第 1 部分：加入 torchrun 准备好的进程组
#
# 第 1 到第 5 步把训练脚本逐段拼成一个字符串，第 6 步把它写进临时目录里的文件并启动。脚本就是一个普通的 Python 文件，`torchrun` 在每个进程里各运行一遍。
# `torchrun` 本身不会让代码并行：它只负责启动进程，并给每个进程设置环境变量：`RANK`（全局编号）、`LOCAL_RANK`（本机内的编号，用来选 GPU）、`WORLD_SIZE`（进程总数），以及集合点（rendezvous）的地址和端口。`init_process_group()` 读取这些变量，等所有进程都加入后才返回。
# 通信后端按硬件选择：只有本机的 GPU 够每个进程一块（这里至少 2 块）时才用 nccl，否则在 CPU 上用 gloo。nccl 只处理 CUDA 张量，两个进程也不能共用一块 GPU。
# 脚本接收一个参数：每个 rank 写结果的目录，本程序之后从那里读取结果来核对。

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
SCRIPT = []  # 训练脚本，逐段拼接

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
# ## 2. 脚本第 2 部分：各处数据相同，每个 rank 各取一半
#
# 每个 rank 用同一个种子运行同样的几行代码，所以都得到同样的 64 个样本和同样的初始权重。对数据来说这一点很重要：`DistributedSampler` 分发的是样本**下标**，只有每个 rank 持有同一个数据集，两半才能拼成完整的数据集。
# 对权重来说，让各副本保持一致的却不是种子：DDP 在创建时把 rank 0 的参数和缓冲区广播给所有 rank，所以即使某个 rank 的随机状态不同（种子不同、忘了设种子、先为别的用途抽过随机数），它也从 rank 0 的权重开始。此后每个 rank 都用同一个平均梯度更新参数，各副本就一直相同。
# 采样器把下标打乱，rank `r` 从第 `r` 个开始每隔一个取一个，每个 rank 各 32 个样本。每个样本都带着自己的下标，脚本因此能准确记下每个 rank 用哪些样本训练。
# 先把模型移到它的设备上再包装；只有 GPU 上才传 `device_ids`。

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
# ## 3. 脚本第 3 部分：训练循环，损失在各 rank 间求和
#
# 训练循环看起来和单进程的一样，区别在 `backward()` 里面：DDP 对梯度做 all-reduce 并除以进程总数，所以每个 rank 都用 2 × 8 = 16 个样本的平均梯度更新参数。
# `sampler.set_epoch(epoch)` 把轮数加进打乱顺序的种子；不调用它，每一轮都重复第 0 轮的顺序。
# 每个 rank 只看得到自己的损失。要记录整步的损失，把总和（损失 × 样本数、样本数）放进一个张量，用 `SUM` 做 `all_reduce`，再相除：每个 rank 得到同样的结果，只由 rank 0 打印。

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
# ## 4. 脚本第 4 部分：用 `no_sync` 做梯度累积
#
# 做梯度累积时，梯度只需要在 `optimizer.step()` 之前在各 rank 间平均一次，每个小批量之后都做 all-reduce 是白白通信。在 `ddp.no_sync()` 里，`backward()` 只累加到本地的 `.grad`；块外的下一次 `backward()` 对累加的总和只做一次 all-reduce。前向传播也必须放在块里，每个小批量的损失要除以累积步数。
# 为了让程序保持简短，这一部分只计算一次累积的梯度（rank 0 用样本 0–15，rank 1 用样本 16–31，各分成 2 个 8 个样本的小批量），记下每个小批量之后的梯度，不调用 `optimizer.step()`。

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
# ## 5. 脚本第 5 部分：在 rank 0 上保存，在 barrier 处等待，然后退出
#
# 所有副本的权重相同，保存一份就够了。如果每个 rank 都往同一路径写，写操作会互相竞争，可能损坏文件。保存 `ddp.module.state_dict()`：它的键没有 `module.` 前缀，可以直接加载到普通模型中。`dist.barrier()` 让其他 rank 等到 rank 0 写完文件；之后每个 rank 用指向自己设备的 `map_location` 加载这个文件，与自己的权重比较。从 PyTorch 2.6 起，`torch.load` 默认 `weights_only=True`，加载状态字典用它就够了。
# 然后每个 rank 把结果写进自己的文件：几个进程往同一个管道打印时，输出的先后顺序不固定，文件则不会交错。最后删除 DDP 对象（`gc.collect()` 让它现在就释放，而不是等到退出时），并在每个 rank 上调用 `destroy_process_group()`。

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
# ## 6. 用 torchrun 启动 2 个进程
#
# `python -m torch.distributed.run` 就是 `torchrun` 命令；用 `sys.executable` 启动它，能保证用的是与本程序相同的 Python 和 PyTorch。`--nproc-per-node` 和 `--nproc_per_node` 两种写法都可以，帮助信息里先列出带连字符的写法。`--standalone` 在本机的一个空闲端口上启动集合点，不用自己选地址和端口，同时运行的两个任务也不会冲突。
# `OMP_NUM_THREADS=1`：否则每个进程都会启动和 CPU 核数一样多的线程，2 个进程会互相争抢。没有设置这个变量且进程数大于 1 时，`torchrun` 会自己把它设为 1，并往 stderr 打印一段提示；自己设置，选择就写在明处，stderr 也保持干净。
# `check=True` 让任何一个 rank 失败时都抛出异常。`except` 把 `torchrun` 的 stderr 放进错误信息里，因为出错 rank 的调用栈就在那里，每行以 `[rank1]:`（对 rank 1 而言）开头。只有 rank 0 打印，所以下面 stdout 的顺序是固定的。这一步占了大部分运行时间：`torchrun` 和 2 个进程各自都要启动 Python 并导入 `torch`，创建 DDP 对象时还会导入 `torch._dynamo`，每个进程又要多花几秒。

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
# ## 7. 检查每个 rank 报告的结果
#
# 按 rank 的顺序读回结果。它们表明：2 个进程用预期的通信后端加入了进程组；在不同的数据上做了 12 次优化器更新之后，两个 rank 的参数逐位相同（起点相同，每次用的平均梯度也相同）；每一轮中两半数据互不重叠，合起来正好是全部 64 个样本，而且每轮的顺序都不同（`set_epoch`）；all-reduce 得到的损失在两个 rank 上相同；检查点只有一个，键没有 `module.` 前缀，与两个 rank 的权重都一致。

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
# ## 8. 与批量大一倍的单进程训练比较
#
# DDP 在各 rank 间平均梯度，所以 2 个 rank 各用批量 8，算出的是批量 16 的梯度。一个进程按同样的打乱顺序每次读 16 个样本，应该得到相同的权重。在 PyTorch 2.13 中，`DistributedSampler` 用种子为 `seed + epoch` 的 `torch.randperm` 打乱，rank `r` 取第 `r, r + 2, r + 4, ...` 个位置；所以 2 个 rank 的第 `k` 步正好覆盖第 `16k` 到 `16k + 15` 个位置。第一项检查用各 rank 记下的下标验证这一点（这是实现细节，文档没有保证）。
# 结果不会逐位相同：DDP 把两个半批量的梯度相加，单进程则一次把 16 项加起来，float32 加法的顺序不同，最后几位就不同。这里权重的差别小于 1e-7，而真正的错误（换一种打乱顺序，或者批量用 8 而不是 16）会让权重相差 0.05 到 0.1；比较时用 `atol=1e-5`，介于两者之间。
# 第 4 部分那次累积的梯度，也应该等于用检查点里的权重、把全部 32 个样本作为一个批量算出的梯度；而在 `no_sync` 的那个小批量之后，两个 rank 的梯度还不相同。

# %%
torch.manual_seed(0)  # 与脚本第 2 部分相同的几行
x = torch.randn(64, 8)
y = x @ torch.randn(8, 1) + 0.1 * torch.randn(64, 1)
reference = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
same_order, reference_losses = True, []
for epoch in range(3):
    order = torch.randperm(64, generator=torch.Generator().manual_seed(0 + epoch))  # 与 DistributedSampler 相同：种子为 0 + 轮数
    same_order &= order[0::2].tolist() == r0["seen"][epoch] and order[1::2].tolist() == r1["seen"][epoch]
    total = 0.0
    for idx in order.split(16):  # 两个 rank 的一步：2 × 8 个样本
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
F.mse_loss(reference(x[:32]), y[:32]).backward()  # 样本 0–31 作为一个批量
after_no_sync, after_last = (all(torch.equal(a, b) for a, b in zip(r0["grads"][i], r1["grads"][i])) for i in (0, 1))
print("after the no_sync backward, gradients equal on both ranks:", after_no_sync)
#> after the no_sync backward, gradients equal on both ranks: False
print("after the last backward, gradients equal on both ranks:", after_last)
#> after the last backward, gradients equal on both ranks: True
matches = all(torch.allclose(g, p.grad, rtol=0, atol=1e-5) for g, p in zip(r0["grads"][1], reference.parameters()))
print("accumulated gradient == gradient of one batch of 32:", matches)
#> accumulated gradient == gradient of one batch of 32: True
tmp.cleanup()
