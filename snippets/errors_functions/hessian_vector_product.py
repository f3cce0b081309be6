"""A Hessian-vector product: the second grad needs a graph of the first."""
import torch
from torch.func import grad, jvp

torch.manual_seed(0)
inputs = torch.randn(16, 3)
targets = torch.randn(16)
weight = torch.randn(3, requires_grad=True)
vector = torch.tensor([1.0, 0.0, -1.0])


def loss_fn(w):
    """A small regression loss, with a tanh so that the Hessian is not constant."""
    return ((torch.tanh(inputs @ w) - targets) ** 2).mean()


# --8<-- [start:error]
(grad_w,) = torch.autograd.grad(loss_fn(weight), weight)
try:
    (hvp,) = torch.autograd.grad(grad_w @ vector, weight)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:create_graph]
(grad_w,) = torch.autograd.grad(loss_fn(weight), weight, create_graph=True)
(hvp_double_backward,) = torch.autograd.grad(grad_w @ vector, weight)
print("double backward:       ", hvp_double_backward)
# --8<-- [end:create_graph]

# --8<-- [start:func]
_, hvp_forward_over_reverse = jvp(grad(loss_fn), (weight.detach(),), (vector,))
print("jvp of grad:           ", hvp_forward_over_reverse)
# --8<-- [end:func]

# --8<-- [start:functional]
_, hvp_functional = torch.autograd.functional.hvp(loss_fn, weight.detach(), vector)
print("autograd.functional:   ", hvp_functional)
# --8<-- [end:functional]
