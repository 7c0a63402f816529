# %% [markdown]
# # 一步训练的显存都去哪儿了：参数、梯度、优化器状态和激活值
#
# 这个程序用一个小 MLP 跑一步训练，按阶段（前向、反向、优化器更新）拆解内存：参数、梯度和 AdamW 状态的字节数直接由张量算出，为反向传播保存的激活值用 `saved_tensors_hooks` 实测；有 GPU 时，再用缓存分配器的统计逐阶段核对（[已分配和已预留](../gpu-memory.md#cuda-memory-allocated-reserved)、[峰值](../gpu-memory.md#cuda-peak-memory)、[显存快照](../gpu-memory.md#cuda-memory-snapshot)、[`empty_cache`](../gpu-memory.md#cuda-empty-cache)、[`expandable_segments`](../gpu-memory.md#cuda-expandable-segments)）。
# 接着模拟 [显存不足时减半批量重试](../gpu-memory.md#catch-cuda-oom)，用 [梯度累积](../gpu-memory.md#gradient-accumulation) 保持有效批量，最后用 [激活检查点](../gpu-memory.md#activation-checkpointing) 和 [bf16 autocast](../mixed-precision.md#bf16-training-no-scaler) 减少激活值。
# 在 CPU 上运行约 5 秒；所有打印的内容在 CPU 和 GPU 上都一样。

# %% [markdown]
# ## 1. 模型、批量，以及训练时内存里的五类东西
#
# 训练时占内存的有五类：**参数**；**梯度**（反向传播后每个参数一份，大小相同）；**优化器状态**（AdamW 为每个参数保存一阶矩 `exp_avg` 和二阶矩 `exp_avg_sq` 两份，第一次 `step()` 时才创建）；**为反向传播保存的激活值**（与批量大小成正比，反向传播后释放）；**临时缓冲区**（算子运行时的中间结果，用完即释放，只在峰值里看得到）。
# 一个张量占多少字节，由 `numel() * element_size()` 算出，在任何设备上都一样。数据先在 CPU 上按种子生成，再搬到设备上，所以 CPU 和 GPU 上的数据完全相同。

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
        self.checkpointing = False  # 第 7 步打开

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False) if self.checkpointing else block(x)
        return self.head(x)


model = MLP().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(BATCH, WIDTH).to(device)
y = torch.randint(0, CLASSES, (BATCH,)).to(device)


def nbytes(tensors):  # 张量元素占用的字节数之和：numel * element_size
    return sum(t.numel() * t.element_size() for t in tensors)


param_bytes = nbytes(model.parameters())
print("parameters:", sum(p.numel() for p in model.parameters()), "->", param_bytes, "bytes")
#> parameters: 67338 -> 269352 bytes
print("batch:", tuple(x.shape), x.dtype, "->", nbytes([x]), "bytes")
#> batch: (1024, 128) torch.float32 -> 524288 bytes

# %% [markdown]
# ## 2. 跑一步训练，逐阶段记账
#
# `torch.autograd.graph.saved_tensors_hooks` 让我们看到自动求导为反向传播保存的每个张量：下面的 `SavedTensorMeter` 按存储去重，去掉参数和输入批量（它们本来就在内存里），剩下的就是激活值占用的字节数。这是真实的测量，在任何设备上都能用。它还给每个张量留一个弱引用，反向传播之后检查这些张量是否真的释放了。
# 给它一个 `budget` 时，保存的字节数一超过预算就抛出 `torch.OutOfMemoryError`，第 5 步用它模拟显存不足。
# `mark()` 在 CUDA 上记下每个阶段结束时的已分配量和这一阶段的峰值，第 3 步再用；CPU 上它什么也不做。
# 先做一次前向和反向预热：在 CUDA 上，第一次矩阵乘会分配 cuBLAS 工作区并一直保留，预热之后它就不会混进测量。


# %%
# 统计自动求导为反向传播保存的字节数：每个存储只算一次，跳过 skip 中的张量（参数、输入）。
# 给了 budget 时，超出预算就像 CUDA 分配器那样抛出 torch.OutOfMemoryError。
class SavedTensorMeter(torch.autograd.graph.saved_tensors_hooks):
    def __init__(self, skip, budget=None):
        self.skip = {t.untyped_storage().data_ptr() for t in skip}
        self.sizes = {}  # 存储地址 -> 字节数
        self.refs = []  # 弱引用：张量释放后变成 None
        self.budget = budget
        super().__init__(self.pack, lambda t: t)

    def pack(self, t):
        address = t.untyped_storage().data_ptr()
        if address not in self.skip and address not in self.sizes:
            self.sizes[address] = t.untyped_storage().nbytes()
            self.refs.append(weakref.ref(t))
            if self.budget is not None and self.total > self.budget:
                raise torch.OutOfMemoryError(f"simulated: {self.total} bytes saved for backward > {self.budget}")
        return t.detach()  # 不是 t 本身：返回值不能引用输入（saved_tensors_hooks 的要求）

    @property
    def total(self):
        return sum(self.sizes.values())

    def all_freed(self):
        return all(ref() is None for ref in self.refs)


marks = {}


def mark(phase):  # CUDA 上：记下此刻的已分配量和上次 mark 以来的峰值，然后重置峰值统计
    if device.type == "cuda":
        marks[phase] = {"allocated": torch.cuda.memory_allocated(), "peak": torch.cuda.max_memory_allocated()}
        torch.cuda.reset_peak_memory_stats()


def train_step(meter):
    optimizer.zero_grad()  # 梯度设为 None，它们占的内存随即释放
    mark("start")
    with meter:
        loss = F.cross_entropy(model(x), y)
    mark("forward")
    loss.backward()
    mark("backward")
    optimizer.step()
    mark("step")


F.cross_entropy(model(x), y).backward()  # 预热（见上文）
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

# 每个阶段结束时应当占用的字节数（不算输入批量）
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
# ## 3. 在 CUDA 上用缓存分配器核对
#
# CUDA 上，PyTorch 的缓存分配器管理显存：`torch.cuda.memory_allocated()` 是活着的张量占用的字节数，`torch.cuda.memory_reserved()` 是分配器向驱动申请下来的总量，多出来的部分是空闲的缓存块，留给下一次分配复用。`reset_peak_memory_stats()` 加 `max_memory_allocated()` 给出一个阶段内的峰值，临时缓冲区只在峰值里看得到。
# 下面把第 2 步记下的分配器数值和算出的字节数逐阶段比较（分配器按 512 字节取整，所以允许 5% 的差），再验证：`del` 之后已分配量回落、已预留量不变；`torch.cuda.empty_cache()` 把没有张量使用的缓存块还给驱动，已预留量下降（`nvidia-smi` 的读数随之下降，其他进程可以用），但它不释放仍被张量引用的显存，也不会让本进程能用的显存变多，已分配量不变。
# 然后用 `torch.cuda.memory._record_memory_history()` 录制一次前向和反向，`_dump_snapshot()` 写到临时目录里，再用 `_record_memory_history(enabled=None)` 停止录制。平时把快照文件保存下来，在浏览器里打开 pytorch.org/memory_viz，把文件拖进页面，就能按时间线看到每块显存是哪行代码分配的（文件在本地解析，不会上传）。
# 分配器的具体字节数取决于显卡和 CUDA 版本，所以这里只打印没通过的检查项：在 GPU 上它应当是空列表；在 CPU 上没有分配器可查，这些检查不运行，列表同样为空。

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
    del scratch  # 已分配量回落；这块显存留在缓存里
    reserved1 = torch.cuda.memory_reserved()
    cuda_checks["del: allocated drops, reserved stays"] = (
        torch.cuda.memory_allocated() == allocated0 and reserved1 >= reserved0 + MiB64
    )
    torch.cuda.empty_cache()  # 空闲的缓存块还给驱动；模型、梯度和优化器状态都还在
    cuda_checks["empty_cache: reserved drops, allocated unchanged"] = (
        torch.cuda.memory_reserved() <= reserved1 - MiB64 and torch.cuda.memory_allocated() == allocated0
    )

    torch.cuda.memory._record_memory_history(max_entries=100_000, stacks="python")
    F.cross_entropy(model(x), y).backward()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "snapshot.pickle")  # 平时保存下来，拖进 pytorch.org/memory_viz 查看
        torch.cuda.memory._dump_snapshot(path)
        with open(path, "rb") as f:
            snapshot = pickle.load(f)  # 自己刚写的文件；不要 unpickle 来历不明的文件
    torch.cuda.memory._record_memory_history(enabled=None)  # 停止录制
    optimizer.zero_grad()
    trace = snapshot["device_traces"][torch.cuda.current_device()]
    activation = BATCH * WIDTH * 4  # 一个 float32 隐藏层激活值的字节数
    cuda_checks["snapshot records the activations"] = any(e["action"] == "alloc" and e["size"] == activation for e in trace)

print("failed CUDA allocator checks:", [name for name, ok in cuda_checks.items() if not ok])
#> failed CUDA allocator checks: []

# %% [markdown]
# ## 4. expandable_segments 要在 CUDA 初始化之前设置
#
# 批量大小或序列长度经常变化时，缓存里会留下大小不合适、拼不起来的空闲块（碎片）：已预留量远大于已分配量，却仍然报显存不足。分配器选项 `expandable_segments:True` 让分配器使用可以按需增长的段，减少碎片。
# 分配器选项在分配器第一次使用时读取，之后再改环境变量不起作用，所以要在启动进程时设置：`PYTORCH_ALLOC_CONF=expandable_segments:True python train.py`，或者在脚本最开头、`import torch` 之前写进 `os.environ`。
# `PYTORCH_ALLOC_CONF` 是现在通用的名字（torch 2.13 的 `c10/core/AllocatorConfig.h` 称它为主环境变量，`torch.cuda.get_allocator_backend()` 的文档也用它）；旧名 `PYTORCH_CUDA_ALLOC_CONF` 仍然有效，旧版本只认旧名。两个名字不要同时设置。
# 本进程的 CUDA 早已初始化，所以下面在一个新的子进程里演示：子进程启动前设好环境变量，它的显存段就都是可扩展的。CPU 上没有 CUDA 分配器，这一步跳过。

# %%
child = """
import torch
x = torch.empty(2**20, device="cuda")
segments = torch.cuda.memory_snapshot()
print(len(segments) > 0 and all(segment["is_expandable"] for segment in segments))
"""
if device.type == "cuda":
    env = dict(os.environ, PYTORCH_ALLOC_CONF="expandable_segments:True")
    env.pop("PYTORCH_CUDA_ALLOC_CONF", None)  # 去掉旧名，以免两个名字同时出现
    out = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, check=True)
    cuda_checks["new process with expandable_segments:True"] = out.stdout.strip() == "True"

print("failed CUDA allocator checks:", [name for name, ok in cuda_checks.items() if not ok])
#> failed CUDA allocator checks: []

# %% [markdown]
# ## 5. 显存不足时减半批量重试
#
# 真实的 GPU 上，放不下时由缓存分配器抛出 `torch.OutOfMemoryError`（`torch.cuda.OutOfMemoryError` 是同一个类，它是 `RuntimeError` 的子类）。为了在任何设备上得到同样的结果，这里用第 2 步实测的激活值字节数定一个预算：假装显存只放得下整批激活值的 40%，`SavedTensorMeter` 在前向传播中途超出预算时抛出同一个异常。
# 捕获之后，先释放失败那次占用的一切再重试：不要在 `except` 块里重试，那里异常的回溯还引用着失败那次前向的局部变量；`optimizer.zero_grad(set_to_none=True)` 去掉可能已经写了一半的梯度；`gc.collect()` 回收循环引用。CUDA 上再调用 `torch.cuda.empty_cache()`，把这些显存还给驱动；它不是重试的前提，因为分配失败时分配器自己会先释放缓存再试一次。

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
        failed.append(meter)  # 它只持有弱引用，用来检查失败那次的张量是否已经释放
    # 在 except 块之外清理，再重试
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
# ## 6. 用梯度累积保持有效批量
#
# 批量减半会改变训练：每次更新看到的样本少了。用 [梯度累积](../gpu-memory.md#gradient-accumulation) 把 4 个放得下的小批量的梯度加起来再更新一次，有效批量仍是 1024，显存只需容纳一个小批量的激活值。每个小批量的损失要除以累积步数，梯度才等于整批的平均梯度。放进完整的训练循环时，见 [在训练循环里做梯度累积](../training.md#gradient-accumulation-loop)。

# %%
accumulation_steps = BATCH // batch
optimizer.zero_grad()
F.cross_entropy(model(x), y).backward()  # 参照：整批一次算完（模拟的预算不限制这里）
full_batch_grads = [p.grad.clone() for p in model.parameters()]

optimizer.zero_grad()
micro_batch_saved = []
for xb, yb in zip(x.split(batch), y.split(batch)):
    meter = SavedTensorMeter(skip=[*model.parameters(), x, y], budget=budget)
    with meter:
        loss = F.cross_entropy(model(xb), yb) / accumulation_steps  # 除以累积步数
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
# ## 7. 用激活检查点和 bf16 autocast 减少激活值
#
# [激活检查点](../gpu-memory.md#activation-checkpointing)（`torch.utils.checkpoint.checkpoint`，显式写 `use_reentrant=False`）在前向时只保存每个块的输入，反向时把块重算一遍：保存的字节数大约减半，代价是每个块多跑一次前向，梯度不变。
# bf16 autocast 让矩阵乘等算子以 bfloat16 计算，它们保存的激活值每个元素只占 2 字节；参数、梯度和 AdamW 状态仍是 float32，大小不变，交叉熵这类对精度敏感的算子也仍用 float32。这里实测保存的字节数约为 float32 的 0.6 倍（其中包括 autocast 为反向传播保存的 bf16 权重副本）。

# %%
forward_calls = []
hooks = [block.register_forward_pre_hook(lambda module, args: forward_calls.append(module)) for block in model.blocks]


def measure(bf16=False):  # 一次前向和反向：返回为反向传播保存的字节数、块的前向次数和梯度
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
