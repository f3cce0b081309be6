"""Exercise: a log operation for the tiny engine, and with it the cross-entropy."""
import torch
import torch.nn.functional as F

import tiny_autograd as tiny


def log(a):
    """d log(a) / da = 1 / a, elementwise: the VJP divides the adjoint by a."""
    return tiny.Value(torch.log(a.data), (a,), op="log", vjp=lambda g: (g / a.data,))


tiny.Value.log = log

torch.manual_seed(0)
logits = torch.randn(10, 4, dtype=torch.float64)
labels = torch.randint(0, 4, (10,))
targets = F.one_hot(labels, 4).double()

# The tiny engine: cross-entropy as the mean of -log(softmax) at each label.
z = tiny.Value(logits)
e = z.exp()
probabilities = e / e.sum(dim=1, keepdim=True)
loss = -(targets * probabilities.log()).sum(dim=1).mean()
tiny.backward(loss)

# PyTorch.
reference = logits.clone().requires_grad_()
torch_loss = F.cross_entropy(reference, labels)
torch_loss.backward()

print(f"cross-entropy: tiny {loss.data.item():.15f}, "
      f"F.cross_entropy {torch_loss.item():.15f}")
print("same gradient:", torch.allclose(z.grad, reference.grad, rtol=1e-12, atol=1e-15))
