"""A whole Jacobian from one torch.autograd.grad call with is_grads_batched=True,
checked against torch.func.vmap of a VJP function and torch.func.jacrev."""
import torch

torch.manual_seed(0)
A = torch.randn(3, 4)


def f(x):
    return torch.tanh(A @ x)


x = torch.randn(4, requires_grad=True)

# --8<-- [start:batched]
y = f(x)
rows = torch.eye(3)  # one unit vector per output: a batch of three VJPs
(J,) = torch.autograd.grad(y, x, grad_outputs=rows, is_grads_batched=True)
print(J.shape)
print(J)
# --8<-- [end:batched]

# --8<-- [start:func]
_, vjp_fn = torch.func.vjp(f, x.detach())
(J_vmap,) = torch.func.vmap(vjp_fn)(rows)
J_jacrev = torch.func.jacrev(f)(x.detach())
print(torch.equal(J, J_vmap))
print(torch.equal(J, J_jacrev))
# --8<-- [end:func]
