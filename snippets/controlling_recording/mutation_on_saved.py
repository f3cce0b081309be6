"""allow_mutation_on_saved_tensors: change a saved tensor, keep the gradient right."""
import torch

# --8<-- [start:allow]
w = torch.tensor([1.0, 2.0], requires_grad=True)
s = torch.tensor([3.0, 4.0])
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    y = (w * s).sum()  # saves s
    s.mul_(10)         # autograd keeps a copy of the s it saved first
    y.backward()
print(s, w.grad)
# --8<-- [end:allow]
