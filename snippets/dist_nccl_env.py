"""Check that every process got the NCCL debug settings before its process group starts.

Launch: NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET torchrun --standalone --nnodes=1 --nproc-per-node=2 dist_nccl_env.py
"""

import os

import torch.distributed as dist

NAMES = ("NCCL_DEBUG", "NCCL_DEBUG_SUBSYS")


def main():
    # What this process inherited from torchrun, read before the process group exists:
    # NCCL reads its settings from the environment of each process, not from rank 0.
    seen = {name: os.environ.get(name) for name in NAMES}

    # gloo, also on a GPU machine: gloo ignores NCCL_* variables, so nothing else is printed.
    # With nccl, NCCL_DEBUG=INFO would add NCCL's own log lines (per machine, per process).
    dist.init_process_group(backend="gloo")
    everyone = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, (dist.get_rank(), seen))
    if dist.get_rank() == 0:  # print once, for all ranks
        print("backend:", dist.get_backend())
        for rank, settings in everyone:
            print(f"rank {rank}: " + ", ".join(f"{name}={value}" for name, value in settings.items()))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
