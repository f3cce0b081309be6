"""An in-place write into a tensor that backward needs: error and fix."""
import torch

torch.manual_seed(0)
x = torch.randn(2, 3, requires_grad=True)

# --8<-- [start:error]
h = torch.tanh(x)  # TanhBackward0 saves its output h: tanh' = 1 - h**2
print("version before:", h._version)
h[:, 0] = 0.0      # "switch off the first feature", in place
print("version after: ", h._version)
try:
    h.sum().backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:anomaly]
with torch.autograd.set_detect_anomaly(True):
    h = torch.tanh(x)
    h[:, 0] = 0.0
    try:
        h.sum().backward()
    except RuntimeError:
        pass
# --8<-- [end:anomaly]

# --8<-- [start:fix]
h = torch.tanh(x).clone()  # write into a copy; the saved output stays intact
h[:, 0] = 0.0
h.sum().backward()
print(x.grad)
# --8<-- [end:fix]
