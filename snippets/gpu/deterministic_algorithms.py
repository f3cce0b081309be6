"""torch.use_deterministic_algorithms: what it switches, refuses and costs."""
import torch
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)

# --8<-- [start:flag]
print("enabled:", torch.are_deterministic_algorithms_enabled())
torch.use_deterministic_algorithms(True)
print("enabled:", torch.are_deterministic_algorithms_enabled())
x = torch.zeros(4)
try:
    x.put_(torch.tensor([0, 0]), torch.tensor([1.0, 2.0]))  # two writes to element 0
except RuntimeError as err:
    print(f"RuntimeError: {err}")
torch.use_deterministic_algorithms(False)
# --8<-- [end:flag]

# --8<-- [start:backward]
z = torch.randn(1, 1, 5, 5, device=device, requires_grad=True)
torch.use_deterministic_algorithms(True)
try:
    F.adaptive_avg_pool2d(z, 3).sum().backward()  # overlapping windows
    print(f"backward on {device.type}: gradient of shape {tuple(z.grad.shape)}")
except RuntimeError as err:
    print(f"RuntimeError: {err}")
torch.use_deterministic_algorithms(False)
# --8<-- [end:backward]

# --8<-- [start:same_gradient]
w = torch.randn(6, 3, device=device, requires_grad=True)
rows = torch.tensor([0, 2, 2, 5, 2], device=device)  # row 2 taken three times


def gradient_of_rows(deterministic):
    torch.use_deterministic_algorithms(deterministic)
    (grad,) = torch.autograd.grad(w[rows].sum(), w)  # backward: index_put
    torch.use_deterministic_algorithms(False)
    return grad


print(gradient_of_rows(True)[:, 0].tolist())
print("same as without the flag:", torch.equal(gradient_of_rows(True),
                                               gradient_of_rows(False)))
# --8<-- [end:same_gradient]

# --8<-- [start:fill]
torch.use_deterministic_algorithms(True)
print(torch.empty(3, device=device))  # uninitialised memory, filled under the flag
print("fill_uninitialized_memory:", torch.utils.deterministic.fill_uninitialized_memory)
torch.use_deterministic_algorithms(False)
# --8<-- [end:fill]
