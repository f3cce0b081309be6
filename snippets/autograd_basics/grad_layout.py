"""The layout of .grad follows the parameter's: a transposed parameter and a
channels_last convolution weight get gradients with the parameter's strides."""
import torch

torch.manual_seed(0)

# --8<-- [start:transposed]
w = torch.randn(3, 4).t().detach().requires_grad_()  # shape (4, 3), a transposed view
c = torch.randn(4, 3)                                 # row-major
w.register_hook(lambda grad: print("gradient computed:", grad.stride()))
(w * c).sum().backward()
print("w:     ", w.stride(), w.is_contiguous())
print("w.grad:", w.grad.stride(), w.grad.is_contiguous())
# --8<-- [end:transposed]

# --8<-- [start:channels_last]
conv = torch.nn.Conv2d(3, 8, kernel_size=3).to(memory_format=torch.channels_last)
conv(torch.randn(2, 3, 8, 8)).sum().backward()
channels_last = torch.channels_last
weight, grad = conv.weight, conv.weight.grad
print("weight:", weight.stride(), weight.is_contiguous(memory_format=channels_last))
print("grad:  ", grad.stride(), grad.is_contiguous(memory_format=channels_last))
# --8<-- [end:channels_last]
