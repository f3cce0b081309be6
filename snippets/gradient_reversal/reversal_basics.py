"""GradReverse leaves the values alone and flips and scales the gradient."""
import torch
from grad_reverse import GradReverse
from torch.autograd import gradcheck

# --8<-- [start:basics]
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
weights = torch.tensor([0.5, 1.0, 2.0])

y = GradReverse.apply(x, 0.3)
print(y)
print("same values:", torch.equal(y, x))
(plain,) = torch.autograd.grad((x * weights).sum(), x)
(reversed_,) = torch.autograd.grad((y * weights).sum(), x)
print("plain gradient:     ", plain)
print("through GradReverse:", reversed_)
# --8<-- [end:basics]

# --8<-- [start:gradcheck]
x64 = x.detach().double().requires_grad_()
passed = gradcheck(GradReverse.apply, (x64, 0.3), raise_exception=False)
print("gradcheck:", passed)
# --8<-- [end:gradcheck]
