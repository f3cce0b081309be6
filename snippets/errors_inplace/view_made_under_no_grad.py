"""A helper returns views of a weight made under no_grad; zeroing one of them
later, with grad mode on, is refused."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(16, 8)


# --8<-- [start:error]
def head_weights(layer, heads):
    """The rows of the layer's weight that belong to each head, as views."""
    with torch.no_grad():
        return layer.weight.chunk(heads, dim=0)


layer = nn.Linear(8, 8)  # two heads of four outputs each
head_0, head_1 = head_weights(layer, heads=2)
try:
    head_1.zero_()  # switch off the second head
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
with torch.no_grad():  # view and in-place write in the same no_grad block
    head_0, head_1 = layer.weight.chunk(2, dim=0)
    head_1.zero_()
print("second head's weights:", layer.weight[4:].abs().sum().item())
layer(inputs).pow(2).mean().backward()
print("first head's gradient norm:", round(layer.weight.grad[:4].norm().item(), 4))
# --8<-- [end:fix]
