"""Exercise: the backward nodes of the composite ELU in the profiler, against
ELUFunction's one node."""
import os

import torch
from elu_function import ELU
from torch import nn
from torch.profiler import ProfilerActivity, profile

os.environ["KINETO_LOG_LEVEL"] = "6"  # no log lines from the profiler on stderr
ENGINE = "autograd::engine::evaluate_function: "
LINEAR = ("AddmmBackward0", "TBackward0", "torch::autograd::AccumulateGrad",
          "MeanBackward0", "PowBackward0")


def elu_nodes(composite):
    """The backward nodes the engine ran for the ELU, and the ATen operations
    each of them called."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), ELU(composite=composite),
                          nn.Linear(16, 1))
    x = torch.randn(32, 8)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        model(x).pow(2).mean().backward()
    nodes = [e for e in prof.events() if e.name.startswith(ENGINE)]
    return [(e.name.removeprefix(ENGINE),
             [op.name for child in e.cpu_children for op in child.cpu_children])
            for e in nodes if e.name.removeprefix(ENGINE) not in LINEAR]


for composite in (False, True):
    found = elu_nodes(composite)
    print("composite:" if composite else "ELUFunction:", f"nodes {len(found)},",
          f"ATen operations {sum(len(ops) for _, ops in found)}")
    for node, ops in found:
        print(f"  {node:20} {', '.join(ops)}")
