"""torch.func.grad over functions that update a tensor from outside in place: batch
norm's running statistics, and a running center kept by hand."""
import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
inputs = torch.randn(16, 4)
targets = torch.randn(16, 1)
params = {name: p.detach() for name, p in model.named_parameters()}

# --8<-- [start:error]
def loss_fn(params, x, y):
    return F.mse_loss(functional_call(model, params, (x,)), y)


try:
    grads = grad(loss_fn)(params, inputs, targets)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
eager = copy.deepcopy(model)  # the same model, trained step by step with backward()
buffers = {name: b.clone() for name, b in model.named_buffers()}


def fixed_loss_fn(params, buffers, x, y):
    """The buffers are an input: batch norm updates the tensors it was given."""
    return F.mse_loss(functional_call(model, (params, buffers), (x,)), y)


grads = grad(fixed_loss_fn)(params, buffers, inputs, targets)
F.mse_loss(eager(inputs), targets).backward()
print("same gradient as backward():",
      torch.allclose(grads["0.weight"], eager[0].weight.grad, atol=1e-6))
print("same running mean:",
      torch.allclose(buffers["1.running_mean"], eager[1].running_mean))
# --8<-- [end:fix]

# --8<-- [start:center]
teacher_logits = torch.randn(16, 5)
center = torch.zeros(5)  # a running average of the teacher's outputs


def distillation_loss(student_logits, teacher_logits):
    targets = F.softmax(teacher_logits - center, dim=1)
    center.mul_(0.9).add_(0.1 * teacher_logits.mean(0))  # update the running center
    return -(targets * F.log_softmax(student_logits, dim=1)).sum(1).mean()


student_logits = torch.randn(16, 5)
try:
    grad(distillation_loss)(student_logits, teacher_logits)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:center]

# --8<-- [start:fix_center]
def fixed_distillation_loss(student_logits, teacher_logits, center):
    """The center comes in and the new center goes out, as an auxiliary output."""
    targets = F.softmax(teacher_logits - center, dim=1)
    new_center = 0.9 * center + 0.1 * teacher_logits.mean(0)
    return -(targets * F.log_softmax(student_logits, dim=1)).sum(1).mean(), new_center


student_grad, center = grad(fixed_distillation_loss, has_aux=True)(
    student_logits, teacher_logits, center
)
print("center after one step:", center)
# --8<-- [end:fix_center]
