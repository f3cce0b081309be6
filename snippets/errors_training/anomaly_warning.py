"""Anomaly mode's warning, 'Error detected in ...': with the forward traceback of the
node that failed when the mode was on during the forward pass, without it when it was
switched on for backward only. The error that backward raised comes after it."""
import torch

torch.manual_seed(0)
w = torch.randn(4, 3, requires_grad=True)
x = torch.randn(8, 4)


def forward(x):
    h = torch.sigmoid(x @ w)
    h.mul_(2)  # in place: sigmoid's backward needs the output it saved
    return h.sum()


# --8<-- [start:backward_only]
loss = forward(x)
with torch.autograd.detect_anomaly():  # on for backward only
    try:
        loss.backward()
    except RuntimeError as err:
        print(f"RuntimeError: {err}")
# --8<-- [end:backward_only]

# --8<-- [start:traceback]
with torch.autograd.detect_anomaly():  # on for the forward pass too
    loss = forward(x)
    try:
        loss.backward()
    except RuntimeError as err:
        print(f"RuntimeError: {err}")
# --8<-- [end:traceback]


# --8<-- [start:fix]
def forward_fixed(x):
    h = torch.sigmoid(x @ w)
    h = h * 2  # a new tensor: the output sigmoid saved stays as it was
    return h.sum()


with torch.autograd.detect_anomaly():
    forward_fixed(x).backward()
print("w.grad finite:", w.grad.isfinite().all().item())
print("anomaly mode still on:", torch.is_anomaly_enabled())
# --8<-- [end:fix]
