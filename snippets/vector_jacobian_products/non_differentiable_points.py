"""The gradients PyTorch returns where a function has no derivative:
relu and abs at 0, ties in max and min, norm and sqrt at 0."""
import torch


def gradient(f, values):
    """The gradient of f(x).sum() at x = values."""
    x = torch.tensor(values, requires_grad=True)
    f(x).sum().backward()
    return x.grad


# --8<-- [start:kinks]
points = [-1.0, 0.0, 1.0]
print("relu:", gradient(torch.relu, points))
print("abs: ", gradient(torch.abs, points))
# --8<-- [end:kinks]

# --8<-- [start:ties]
scores = [1.0, 3.0, 3.0, 2.0]
print("max:     ", gradient(torch.max, scores))
print("amax:    ", gradient(torch.amax, scores))
print("min:     ", gradient(torch.min, [1.0, 1.0, 3.0, 1.0]))
print("amin:    ", gradient(torch.amin, [1.0, 1.0, 3.0, 1.0]))
print("maximum: ", gradient(lambda x: torch.maximum(x[0], x[1]), [3.0, 3.0]))
# --8<-- [end:ties]

# --8<-- [start:max_dim]
values, indices = torch.max(torch.tensor(scores), dim=0)
print(values, indices)
print("max(dim):", gradient(lambda x: torch.max(x, dim=0).values, scores))
# --8<-- [end:max_dim]

# --8<-- [start:norm_sqrt]
print("norm:", gradient(torch.linalg.vector_norm, [0.0, 0.0, 0.0]))
print("sqrt:", gradient(torch.sqrt, [0.0, 4.0]))
# --8<-- [end:norm_sqrt]

# --8<-- [start:clamp]
print("relu:      ", gradient(torch.relu, points))
print("clamp(min):", gradient(lambda x: x.clamp(min=0.0), points))
# --8<-- [end:clamp]
