"""Exercise: for y = A x, backward(v) leaves A^T v in x.grad."""
import torch

torch.manual_seed(0)
A = torch.randn(3, 2)
x = torch.randn(2, requires_grad=True)
v = torch.randn(3)
(A @ x).backward(v)
print(x.grad)
print(A.T @ v)
print(torch.allclose(x.grad, A.T @ v))
