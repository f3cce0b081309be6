"""Scaling the query in place after unbind(): an output of a function that
returns several views may not be modified in place."""
import torch
from torch import nn

torch.manual_seed(0)
tokens = torch.randn(2, 5, 8)  # batch, sequence, embedding


# --8<-- [start:error]
class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        batch, length, dim = x.shape
        qkv = self.qkv(x).reshape(batch, length, 3, self.heads, dim // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        q *= self.scale  # in place on a view that unbind returned
        weights = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        out = (weights @ v).transpose(1, 2).reshape(batch, length, dim)
        return self.proj(out)


attention = Attention(dim=8, heads=2)
try:
    attention(tokens)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:chunk]
gates = nn.Linear(8, 4 * 8)(tokens[:, 0])
input_gate, forget_gate, cell_gate, output_gate = gates.chunk(4, dim=1)
try:
    input_gate.sigmoid_()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:chunk]


# --8<-- [start:fix]
class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        batch, length, dim = x.shape
        qkv = self.qkv(x).reshape(batch, length, 3, self.heads, dim // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        q = q * self.scale  # out of place: a new tensor
        weights = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        out = (weights @ v).transpose(1, 2).reshape(batch, length, dim)
        return self.proj(out)


torch.manual_seed(0)
attention = Attention(dim=8, heads=2)
attention(tokens).pow(2).mean().backward()
print("grad norm of qkv:", round(attention.qkv.weight.grad.norm().item(), 4))
# --8<-- [end:fix]
