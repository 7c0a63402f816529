"""The devices an example runs on. CPU always; CUDA (NVIDIA, or ROCm through torch.cuda) where present."""

DEVICES = ("cpu", "cuda")
