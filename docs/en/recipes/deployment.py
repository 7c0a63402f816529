# %% [markdown]
# # From a trained model to deployable files, each one checked
#
# This program trains a tiny classifier for a few steps and then turns it into three deployment
# artifacts: an exported program (`.pt2`), a weights file (`state_dict`) and an ONNX file. It
# checks each artifact against the eager model's output, with a stated tolerance. You learn why
# [`eval()`](../modules.md#train-eval-mode) comes before export, how to export with a
# [dynamic batch dimension](../export.md#export-dynamic-shapes), how to
# [save and load](../export.md#export-save-load) the exported program, why you
# [save the `state_dict`](../saving.md#save-load-state-dict) rather than
# [the whole model](../saving.md#save-whole-model), and how to check an
# [ONNX export](../export.md#onnx-export) without ONNX Runtime. It runs in about 10 seconds on a
# CPU, mostly in the ONNX exporter.

# %% [markdown]
# ## 1. Train a tiny model on a seeded synthetic task
#
# The task: 8 features, 3 classes, and the label comes from a fixed random linear "teacher".
# Seed everything and draw all data from one seeded generator on the CPU, so every run sees the
# same data. The model has a `BatchNorm1d` and a `Dropout` layer on purpose: both behave
# differently in training and in inference. Training runs on the GPU if there is one. Its weights
# then differ slightly from a CPU run, so the program prints only facts that hold on both.

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
# ## 2. Switch to eval() and record a reference output
#
# `torch.inference_mode()` turns off autograd recording, but it does not change how layers behave.
# In training mode, `Dropout` zeroes random activations, so the same input gives different
# outputs. `BatchNorm` normalizes with the statistics of the current batch, so a sample's output
# depends on the other samples in its batch. It also keeps updating its running statistics, even
# inside `inference_mode`. The demo below runs on a copy, to keep the trained model untouched.
# After `model.eval()`, Dropout does nothing and BatchNorm uses its saved statistics: the output
# is repeatable, and each sample's result is independent of its batch. Export captures the mode
# the model is in, so call `eval()` first. Then move the model to the CPU, the target of every
# artifact below, and record the reference output that each artifact must reproduce.

# %%
probe = test_x[:4].to(device)
trial = copy.deepcopy(model)  # still in training mode
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

TOL = 1e-4  # float32: a different but equivalent computation may change the last bits

# %% [markdown]
# ## 3. Export with torch.export and a dynamic batch dimension
#
# `torch.export.export` traces the model once with an example input and captures a complete graph
# of `aten` operators, with the weights and buffers. By default every dimension is fixed to the
# example's size. `torch.export.Dim` declares the batch dimension dynamic, here from 1 to 1024.
# The graph signature lists what the program takes: the user input, and the parameters and
# buffers (the BatchNorm statistics) that now belong to the program. The Dropout node records
# `train=False`: the program stays in eval mode for good. The example has 4 rows; the check runs
# all 256 test rows.

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
    out_exported = exported.module()(test_x)  # batch 256, not 4
diff = (out_exported - reference).abs().max().item()
print("exported == eager:", diff < TOL, f"(max abs diff {diff:.4f})")
#> exported == eager: True (max abs diff 0.0000)

# %% [markdown]
# ## 4. Save the exported program to a .pt2 file and load it back
#
# `torch.export.save` writes the graph, the weights and the buffers into one file.
# `torch.export.load` needs no Python code for the model: `make_model` is not called here. Load
# such files only from sources you trust, as with `torch.load`. The loaded program must give
# exactly the same output as the program before saving.

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
# ## 5. Save the weights: state_dict, and torch.load with weights_only=True
#
# When the serving code builds the model itself, ship only the weights: `model.state_dict()`, a
# dict of tensors, parameters and buffers alike. `torch.load` has defaulted to `weights_only=True`
# since PyTorch 2.6: it loads tensors and plain containers and refuses arbitrary Python objects.
# Write it out anyway, to make the intent clear. The `state_dict` does not record the mode: a
# freshly built model is in training mode, so call `eval()` after loading. Pickling the whole
# module (`torch.save(model)`) is fragile: the file stores only the import path of the model's
# class, so renaming or moving the class breaks loading. The default `torch.load` also refuses it,
# and `weights_only=False` would run whatever code the file contains.

# %%
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "weights.pt")
    torch.save(model.state_dict(), path)
    state = torch.load(path, map_location="cpu", weights_only=True)  # the default since 2.6

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
torch.save(model, buffer)  # the whole module: shown here only to be refused
buffer.seek(0)
try:
    torch.load(buffer)  # weights_only=True by default
except pickle.UnpicklingError as error:
    print(type(error).__name__, "Sequential" in str(error))
#> UnpicklingError True

# %% [markdown]
# ## 6. Export to ONNX with a dynamic batch dimension
#
# In PyTorch 2.13, `torch.onnx.export` defaults to `dynamo=True` (the default since 2.9): it
# captures the graph with `torch.export` and converts it to ONNX. Pass `dynamo=True` anyway, so
# the code says which exporter it uses. `dynamic_shapes` is written as for `torch.export`;
# `input_names` and `output_names` name the graph's inputs and outputs. Three things to know
# about 2.13:
#
# - Without `verbose=False`, the exporter prints `[torch.onnx] ...` progress lines to stdout.
#   `verbose=False` turns them off.
# - It also logs "torchvision is not installed" to stderr when torchvision is absent. That line is
#   harmless and does not appear in stdout.
# - PyTorch itself raises a `FutureWarning` about `LeafSpec` while it decomposes the graph (in
#   `ExportedProgram.run_decompositions`). Your code does not cause it and cannot avoid it, so the
#   program ignores exactly that warning, only around this call. PyTorch 2.14 no longer raises it;
#   there the filter does nothing.
#
# The weights go to a separate `model.onnx.data` file (`external_data=True` is the default), so
# ship both files. The docs also suggest leaving the path out and calling
# `onnx_program.save(path)`. The exporter optimizes the graph: in eval mode it folds BatchNorm
# into the first `Gemm` and removes Dropout.

# %%
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.onnx")
    with warnings.catch_warnings():
        # raised inside torch 2.13's exporter (not 2.14's), not by this code: ignore this one warning only
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
    proto = onnx.load(path)  # also reads the weights from model.onnx.data
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
# ## 7. Run the ONNX graph and compare it with eager
#
# ONNX Runtime is not installed here. `onnx.reference.ReferenceEvaluator` is the `onnx` package's
# own pure-Python (NumPy) implementation of the ONNX operators: slow, but enough to check the
# numbers. In production, run the file with `onnxruntime` (`InferenceSession`) or another engine.
# Run two batch sizes to check the dynamic dimension. The folded BatchNorm computes the same
# function in a different order, so compare within the tolerance, not bit for bit.

# %%
session = ReferenceEvaluator(proto)
for n in (1, 256):
    (logits,) = session.run(None, {"features": test_x[:n].numpy()})
    diff = (torch.from_numpy(logits) - reference[:n]).abs().max().item()
    print(f"batch {n}: shape {logits.shape}, within {TOL}: {diff < TOL} (max abs diff {diff:.4f})")
#> batch 1: shape (1, 3), within 0.0001: True (max abs diff 0.0000)
#> batch 256: shape (256, 3), within 0.0001: True (max abs diff 0.0000)

# %% [markdown]
# ## What to ship
#
# - `model.pt2`: graph and weights in one file, no model code needed; load it with
#   `torch.export.load` in Python, or compile it ahead of time with AOTInductor.
# - `weights.pt` (`state_dict`): the smallest artifact, for serving code that builds the model
#   itself; load it with `weights_only=True` and call `eval()`.
# - `model.onnx` + `model.onnx.data`: for ONNX Runtime, TensorRT and other engines.
#
# Each one reproduced the eager reference output within 1e-4 on the CPU, at batch sizes other
# than the export example's.
