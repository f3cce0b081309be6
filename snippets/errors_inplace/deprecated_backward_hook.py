"""register_backward_hook on a module of several operations: grad_input is the
gradient of the last operation's inputs, not of the module's input."""
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(2, 3, requires_grad=True)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 3)

    def forward(self, x):
        return torch.tanh(self.linear(x))  # two operations: addmm, then tanh


seen = {}

# --8<-- [start:wrong]
torch.manual_seed(0)
block = Block()
block.register_backward_hook(
    lambda module, grad_input, grad_output: seen.update(old=grad_input[0]))
block(x).sum().backward()
print("register_backward_hook's grad_input[0]:\n", seen["old"])
# --8<-- [end:wrong]

# --8<-- [start:right]
torch.manual_seed(0)
block = Block()  # the same weights
block.register_full_backward_hook(
    lambda module, grad_input, grad_output: seen.update(full=grad_input[0]))
(true,) = torch.autograd.grad(block(x).sum(), x)  # the gradient of the input
print("register_full_backward_hook's grad_input[0]:\n", seen["full"])
print("the gradient of the input:\n", true)
# --8<-- [end:right]
