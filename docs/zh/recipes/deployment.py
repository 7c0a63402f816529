# %% [markdown]
# # 从训练好的模型到可部署的文件，逐一核对数值
#
# 这个程序先把一个很小的分类模型训练几步，再把它变成三种部署产物：导出程序（`.pt2`）、权重文件（`state_dict`）和 ONNX 文件，并按给定的容差逐一与 eager 模型的输出核对。你会看到：为什么导出前要先调用 [`eval()`](../modules.md#train-eval-mode)，怎样导出时指定 [动态的批量维度](../export.md#export-dynamic-shapes)，怎样 [保存和加载](../export.md#export-save-load) 导出的程序，为什么 [保存 `state_dict`](../saving.md#save-load-state-dict) 而不是 [整个模型对象](../saving.md#save-whole-model)，以及没有 ONNX Runtime 时怎样核对 [ONNX 导出](../export.md#onnx-export) 的结果。在 CPU 上运行约 10 秒，大部分时间花在 ONNX 导出上。

# %% [markdown]
# ## 1. 在带种子的合成任务上训练一个小模型
#
# 任务：8 个特征、3 个类别，标签由一个固定的随机线性“教师”给出。设好种子，所有数据都由 CPU 上同一个带种子的生成器产生，每次运行看到的数据都一样。模型里特意放了 `BatchNorm1d` 和 `Dropout`：这两种层在训练和推理时行为不同。有 GPU 时在 GPU 上训练，得到的权重与 CPU 上略有差别，所以程序只打印两种设备上都成立的事实。

# %%
import copy
import io
import os
import pickle
import tempfile
import warnings

import onnx
import torch
from onnx.reference import ReferenceEvaluator
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
gen = torch.Generator().manual_seed(0)

teacher = torch.randn(8, 3, generator=gen)
train_x = torch.randn(1024, 8, generator=gen)
train_y = (train_x @ teacher).argmax(dim=1)
test_x = torch.randn(256, 8, generator=gen)
test_y = (test_x @ teacher).argmax(dim=1)


def make_model():
    return nn.Sequential(
        nn.Linear(8, 32),
        nn.BatchNorm1d(32),
        nn.ReLU(),
        nn.Dropout(p=0.2),
        nn.Linear(32, 3),
    )


model = make_model().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
model.train()
losses = []
for _ in range(40):
    idx = torch.randint(0, len(train_x), (64,), generator=gen)
    x, y = train_x[idx].to(device), train_y[idx].to(device)
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print("loss more than halved:", sum(losses[-5:]) < sum(losses[:5]) / 2)
#> loss more than halved: True

# %% [markdown]
# ## 2. 切换到 eval()，记下参考输出
#
# `torch.inference_mode()` 只关闭自动求导的记录，不改变层的行为。训练模式下，`Dropout` 随机把激活值置零，同一个输入两次得到的输出不同；`BatchNorm` 用当前批量的统计量做归一化，一个样本的输出取决于同一批量里的其他样本，而且即使在 `inference_mode` 里也会继续更新 running 统计量。下面的演示在一份副本上进行，不动训练好的模型。调用 `model.eval()` 之后，Dropout 不再起作用，BatchNorm 改用保存下来的统计量：输出可以重复，每个样本的结果也与批量无关。导出会把模型当时的模式固定下来，所以先调用 `eval()`。然后把模型移到 CPU（下面所有产物都面向 CPU），记下参考输出，每种产物都要复现它。

# %%
probe = test_x[:4].to(device)
trial = copy.deepcopy(model)  # 仍处于训练模式
stats_before = trial[1].running_mean.clone()
with torch.inference_mode():
    a, b = trial(probe), trial(probe)
print("train mode, same output twice:", torch.equal(a, b))
#> train mode, same output twice: False
print("train mode, BatchNorm stats changed:", not torch.equal(trial[1].running_mean, stats_before))
#> train mode, BatchNorm stats changed: True

model.eval()
with torch.inference_mode():
    a, b = model(probe), model(probe)
    alone = model(probe[:1])
print("eval mode, same output twice:", torch.equal(a, b))
#> eval mode, same output twice: True
print("eval mode, one sample alone == in a batch:", torch.allclose(alone, a[:1], atol=1e-5))
#> eval mode, one sample alone == in a batch: True

model = model.cpu()
with torch.inference_mode():
    reference = model(test_x)
accuracy = (reference.argmax(dim=1) == test_y).float().mean().item()
print(reference.shape, reference.requires_grad, "test accuracy above 80%:", accuracy > 0.8)
#> torch.Size([256, 3]) False test accuracy above 80%: True

TOL = 1e-4  # float32：换一种等价的算法，最后几位可能不同

# %% [markdown]
# ## 3. 用 torch.export 导出，批量维度设为动态
#
# `torch.export.export` 用示例输入追踪一次模型，捕获由 `aten` 算子组成的完整计算图，连同参数和缓冲区一起保存。默认每个维度都固定为示例输入的大小；用 `torch.export.Dim` 把批量维度声明为动态，这里允许 1 到 1024。计算图签名列出程序的输入：用户输入，以及现在归程序所有的参数和缓冲区（BatchNorm 的统计量）。Dropout 节点记下了 `train=False`：导出的程序从此固定在评估模式。示例输入只有 4 行，核对时用全部 256 行测试数据。

# %%
example = test_x[:4]
batch = torch.export.Dim("batch", min=1, max=1024)
exported = torch.export.export(model, (example,), dynamic_shapes=({0: batch},))

signature = exported.graph_signature
print(signature.user_inputs, signature.user_outputs)
#> ('input',) ('linear_1',)
print(signature.parameters)
#> ('0.weight', '0.bias', '1.weight', '1.bias', '4.weight', '4.bias')
print(signature.buffers)
#> ('1.running_mean', '1.running_var', '1.num_batches_tracked')
print([str(node.target) for node in exported.graph.nodes if node.op == "call_function"])
#> ['aten.linear.default', 'aten.batch_norm.default', 'aten.relu.default', 'aten.dropout.default', 'aten.linear.default']
print("batch range:", [(int(r.lower), int(r.upper)) for r in exported.range_constraints.values()])
#> batch range: [(1, 1024)]
dropout = next(node for node in exported.graph.nodes if node.target == torch.ops.aten.dropout.default)
print("dropout (p, train):", dropout.args[1:])
#> dropout (p, train): (0.2, False)

with torch.inference_mode():
    out_exported = exported.module()(test_x)  # 批量大小 256，而不是 4
diff = (out_exported - reference).abs().max().item()
print("exported == eager:", diff < TOL, f"(max abs diff {diff:.4f})")
#> exported == eager: True (max abs diff 0.0000)

# %% [markdown]
# ## 4. 把导出的程序存成 .pt2 文件，再加载回来
#
# `torch.export.save` 把计算图、参数和缓冲区写进一个文件。`torch.export.load` 不需要模型的 Python 代码：这里没有调用 `make_model`。和 `torch.load` 一样，只加载可信来源的文件。加载回来的程序必须与保存前的输出完全相同。

# %%
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.pt2")
    torch.export.save(exported, path)
    print(os.listdir(tmp))
    loaded = torch.export.load(path)
#> ['model.pt2']

with torch.inference_mode():
    out_loaded = loaded.module()(test_x)
print("loaded .pt2 == exported:", torch.equal(out_loaded, out_exported))
#> loaded .pt2 == exported: True

# %% [markdown]
# ## 5. 保存权重：state_dict，以及 torch.load 的 weights_only=True
#
# 如果推理服务的代码自己构建模型，就只交付权重：`model.state_dict()` 是由张量组成的字典，参数和缓冲区都在里面。PyTorch 2.6 起 `torch.load` 默认 `weights_only=True`：只加载张量和基本容器，拒绝任意 Python 对象；这里仍然显式写出，让意图一目了然。`state_dict` 不记录模式：新建的模型处于训练模式，加载后要调用 `eval()`。把整个模块 pickle 下来（`torch.save(model)`）很脆弱：文件里只记下模型类的导入路径，类改名或挪动后就加载不了；默认的 `torch.load` 也拒绝加载它，而 `weights_only=False` 会执行文件里的任意代码。

# %%
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "weights.pt")
    torch.save(model.state_dict(), path)
    state = torch.load(path, map_location="cpu", weights_only=True)  # 2.6 起的默认值

restored = make_model()
print(restored.load_state_dict(state))
#> <All keys matched successfully>
print("training mode after loading:", restored.training)
#> training mode after loading: True
restored.eval()
with torch.inference_mode():
    print("restored == eager:", torch.equal(restored(test_x), reference))
#> restored == eager: True

buffer = io.BytesIO()
torch.save(model, buffer)  # 整个模块：这里只为演示它被拒绝
buffer.seek(0)
try:
    torch.load(buffer)  # 默认 weights_only=True
except pickle.UnpicklingError as error:
    print(type(error).__name__, "Sequential" in str(error))
#> UnpicklingError True

# %% [markdown]
# ## 6. 导出为 ONNX，批量维度设为动态
#
# 在 PyTorch 2.13 中，`torch.onnx.export` 默认 `dynamo=True`（从 2.9 起是默认值）：先用 `torch.export` 捕获计算图，再转换成 ONNX。这里仍然显式传入 `dynamo=True`，让代码写明用的是哪个导出器。`dynamic_shapes` 的写法与 `torch.export` 相同；`input_names` 和 `output_names` 给计算图的输入和输出命名。关于 2.13 有三点要知道：
#
# - 不加 `verbose=False` 时，导出器会向标准输出打印 `[torch.onnx] ...` 进度行；`verbose=False` 关掉它们。
# - 没装 torchvision 时，它还会向标准错误写一条“torchvision is not installed”日志。这条日志无害，也不会出现在标准输出里。
# - PyTorch 自己在分解计算图时（`ExportedProgram.run_decompositions` 里）会发出一条关于 `LeafSpec` 的 `FutureWarning`。它不是你的代码引起的，也无法避免，所以程序只在这次调用周围、只忽略这一条警告。PyTorch 2.14 不再发出它，这个过滤在 2.14 上什么也不做。
#
# 权重写在单独的 `model.onnx.data` 文件里（默认 `external_data=True`），两个文件要一起交付。文档也建议不传路径，改为调用 `onnx_program.save(path)`。导出器会优化计算图：在评估模式下，它把 BatchNorm 合并进第一个 `Gemm`，并去掉 Dropout。

# %%
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.onnx")
    with warnings.catch_warnings():
        # 由 torch 2.13 的导出器内部发出（2.14 不再发出），不是这段代码引起的：只忽略这一条警告
        warnings.filterwarnings("ignore", message=r"`isinstance\(treespec, LeafSpec\)` is deprecated", category=FutureWarning)
        onnx_program = torch.onnx.export(
            model,
            (example,),
            path,
            dynamo=True,
            verbose=False,
            input_names=["features"],
            output_names=["logits"],
            dynamic_shapes=({0: batch},),
        )
    print(type(onnx_program).__name__, sorted(os.listdir(tmp)))
    proto = onnx.load(path)  # 同时从 model.onnx.data 读入权重
#> ONNXProgram ['model.onnx', 'model.onnx.data']

onnx.checker.check_model(proto)
print("opset:", [(opset.domain or "ai.onnx", opset.version) for opset in proto.opset_import])
#> opset: [('ai.onnx', 20)]
print([node.op_type for node in proto.graph.node])
#> ['Gemm', 'Relu', 'Gemm']
for value in [*proto.graph.input, *proto.graph.output]:
    print(value.name, [dim.dim_param or dim.dim_value for dim in value.type.tensor_type.shape.dim])
#> features ['batch', 8]
#> logits ['batch', 3]

# %% [markdown]
# ## 7. 运行 ONNX 计算图，与 eager 的结果比较
#
# 这里没有安装 ONNX Runtime。`onnx.reference.ReferenceEvaluator` 是 `onnx` 包自带的、用纯 Python（NumPy）实现的 ONNX 算子参考实现：速度慢，但足够核对数值。生产环境中用 `onnxruntime`（`InferenceSession`）或其他推理引擎运行 ONNX 文件。用两种批量大小运行，检验动态维度。合并后的 BatchNorm 计算的是同一个函数，只是运算顺序不同，所以按容差比较，而不是逐位比较。

# %%
session = ReferenceEvaluator(proto)
for n in (1, 256):
    (logits,) = session.run(None, {"features": test_x[:n].numpy()})
    diff = (torch.from_numpy(logits) - reference[:n]).abs().max().item()
    print(f"batch {n}: shape {logits.shape}, within {TOL}: {diff < TOL} (max abs diff {diff:.4f})")
#> batch 1: shape (1, 3), within 0.0001: True (max abs diff 0.0000)
#> batch 256: shape (256, 3), within 0.0001: True (max abs diff 0.0000)

# %% [markdown]
# ## 交付哪些文件
#
# - `model.pt2`：计算图和权重在一个文件里，不需要模型代码；在 Python 里用 `torch.export.load` 加载，或者用 AOTInductor 提前编译。
# - `weights.pt`（`state_dict`）：最小的产物，适合自己构建模型的推理代码；用 `weights_only=True` 加载，再调用 `eval()`。
# - `model.onnx` 加 `model.onnx.data`：交给 ONNX Runtime、TensorRT 等推理引擎。
#
# 在 CPU 上，每种产物在与导出示例不同的批量大小下都在 1e-4 以内复现了 eager 的参考输出。
