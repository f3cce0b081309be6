"""Exercise: gradient reversal with a tensor hook instead of a Function."""
import torch
from grad_reverse import GradReverse


def reverse_with_hook(x, lambd):
    y = x.view_as(x)  # a new tensor: the hook leaves x's other uses alone
    y.register_hook(lambda grad: -lambd * grad)
    return y


torch.manual_seed(0)
x = torch.randn(5, requires_grad=True)
weights = torch.randn(5)
by_hook = reverse_with_hook(x, 0.3)
by_function = GradReverse.apply(x, 0.3)
(by_hook,) = torch.autograd.grad((by_hook * weights).sum(), x)
(by_function,) = torch.autograd.grad((by_function * weights).sum(), x)
print(by_hook)
print("same as GradReverse:", torch.equal(by_hook, by_function))
