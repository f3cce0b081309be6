"""Real models for the recorder's and the viewer's tests: a small Vision Transformer as timm
writes one (its attention by hand, pre-norm blocks in a ModuleList), about 700 nodes; a 6-layer
MLP with sigmoids or ReLUs, the same weights either way."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = (q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5).softmax(-1)
        return self.proj((a @ v).transpose(1, 2).reshape(b, n, d))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1, self.attn = nn.LayerNorm(dim), Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class ViT(nn.Module):
    def __init__(self, dim=32, depth=12, heads=4, classes=10):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 4, stride=4)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, 17, dim) * 0.02)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(depth))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, images):
        x = self.patch(images).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(len(x), -1, -1), x], 1) + self.pos
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])


def mlp(activation):
    """A 6-layer MLP, its activations `activation`, and its input: the same weights and input for each."""
    torch.manual_seed(0)
    return nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(8, 8), activation())], nn.Linear(8, 1)), \
        torch.randn(16, 8)


# The debugger's test set: models a practitioner brings, most with a bug planted in them. Each
# case is (model, its input, the loss of its output); the test and the benchmark run them in
# notebooks and scripts of their own, with this file beside them, as a reader's models.py.

class SqrtFeatures(nn.Module):
    """Bug: the square root of features that can be negative (NaN in the forward pass)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16))
        self.head = nn.Linear(16, 1)

    def forward(self, x):
        return self.head(self.body(x).sqrt())


class EmbeddingPenalty(nn.Module):
    """Bug: the embeddings' lengths, written as a square root, added to the output: the padding
    row is all zeros, and the square root's gradient at 0 is inf (NaN in the backward pass)."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 8, padding_idx=0)
        self.head = nn.Linear(8, 1)

    def forward(self, tokens):
        e = self.embed(tokens)
        return self.head(e) + e.pow(2).sum(-1, keepdim=True).sqrt()


class RNN(nn.Module):
    """A ReLU RNN from a zero initial state whose recurrent weight is `gain` times the identity, its
    inputs positive so that every unit stays active: its gradient is multiplied by `gain` at each
    step back in time. The loss reads every step's output."""

    def __init__(self, gain, steps=30):
        super().__init__()
        self.inp, self.rec, self.out, self.steps = nn.Linear(4, 8), nn.Linear(8, 8, bias=False), nn.Linear(8, 1), steps
        with torch.no_grad():
            self.rec.weight.copy_(gain * torch.eye(8))
            self.inp.weight.abs_()
            self.inp.bias.abs_()

    def forward(self, xs):
        h, outs = torch.zeros(xs.shape[1], 8), []
        for x in xs[:self.steps]:
            h = torch.relu(self.inp(x) + self.rec(h))
            outs.append(self.out(h))
        return torch.stack(outs)


class LayerScaleBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm, self.mlp = nn.LayerNorm(dim), nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.gamma = nn.Parameter(torch.full((dim,), 1e-5))

    def forward(self, x):
        return x + self.gamma * self.mlp(self.norm(x))


class CountedBlock(nn.Module):
    """Linear, tanh, Linear; it counts the runs of its forward."""

    def __init__(self, dim=16):
        super().__init__()
        self.net, self.runs = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, dim)), 0

    def forward(self, x):
        self.runs += 1
        return self.net(x)


class Checkpointed(nn.Module):
    def __init__(self, reentrant, dim=16):
        super().__init__()
        self.blocks, self.reentrant = nn.ModuleList(CountedBlock(dim) for _ in range(4)), reentrant

    def forward(self, x):
        for block in self.blocks:
            x = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=self.reentrant)
        return x


class Seq2Seq(nn.Module):
    """Bug: the encoder's output detached: the encoder never gets a gradient."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8))
        self.decoder = nn.Linear(8, 2)

    def forward(self, x):
        return self.decoder(self.encoder(x).detach())  # left over from training with a frozen encoder


def mse(out):
    return out.pow(2).mean()


def dead_relu(bias):
    """A 3-layer ReLU MLP, its first layer's bias `bias` (-10: every unit dead)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1))
    with torch.no_grad():
        model[0].bias.fill_(bias)
    return model, (torch.randn(32, 8),), mse


CASES = {
    "forward NaN": lambda: (SqrtFeatures(), (torch.randn(16, 8),), mse),
    "backward NaN": lambda: (EmbeddingPenalty(), (torch.tensor([[0, 3, 4], [5, 0, 2]]),), mse),
    "sigmoid stack": lambda: (nn.Sequential(*[m for _ in range(8) for m in (nn.Linear(16, 16), nn.Sigmoid())],
                                            nn.Linear(16, 1)), (torch.randn(32, 16),), mse),
    "RNN gain 1.6": lambda: (RNN(1.6), (torch.rand(30, 8, 4),), mse),
    "RNN gain 0.9": lambda: (RNN(0.9), (torch.rand(30, 8, 4),), mse),
    "LayerScale": lambda: (nn.Sequential(*[LayerScaleBlock(16) for _ in range(6)], nn.Linear(16, 1)),
                           (torch.randn(4, 16),), mse),
    "600-layer tanh MLP": lambda: (nn.Sequential(*[m for _ in range(600) for m in (nn.Linear(8, 8), nn.Tanh())]),
                                   (torch.randn(4, 8),), mse),
    "fp16, large gradients": lambda: (nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 64)).half(),
                                 (torch.randn(32, 64).half(),), lambda out: out.float().sum() * 1000),
    "fp32 tiny loss": lambda: (nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1)), (torch.randn(4, 8),),
                               lambda out: out.pow(2).mean() * 1e-30),
    "checkpointed": lambda: (Checkpointed(reentrant=False), (torch.randn(8, 16, requires_grad=True),), mse),
    "reentrant checkpoint": lambda: (Checkpointed(reentrant=True), (torch.randn(8, 16, requires_grad=True),), mse),
    "detached encoder": lambda: (Seq2Seq(), (torch.randn(5, 4),), mse),
    "12-block ViT": lambda: (ViT(), (torch.randn(4, 3, 16, 16),),
                             lambda out: nn.functional.cross_entropy(out, torch.tensor([1, 2, 3, 4]))),
    "dead ReLUs": lambda: dead_relu(-10.0),
    "dead ReLUs, fixed": lambda: dead_relu(0.0),
}
