"""The reentrant checkpoint on an input that does not require grad: a warning,
and the checkpointed blocks' parameters get no gradient."""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class TextClassifier(nn.Module):
    """A frozen pretrained embedding, two checkpointed blocks, a head."""

    def __init__(self, use_reentrant):
        super().__init__()
        self.use_reentrant = use_reentrant
        self.embedding = nn.Embedding(100, 16)
        self.embedding.requires_grad_(False)  # frozen
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(16, 16), nn.GELU()) for _ in range(2))
        self.head = nn.Linear(16, 2)

    def forward(self, tokens):
        h = self.embedding(tokens)
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=self.use_reentrant)
        return self.head(h.mean(dim=1))


def train_step(model, tokens, labels):
    loss = nn.functional.cross_entropy(model(tokens), labels)
    loss.backward()
    for name, param in model.named_parameters():
        if param.requires_grad:
            grad = None if param.grad is None else round(param.grad.norm().item(), 4)
            print(f"{name:16} grad norm: {grad}")


torch.manual_seed(0)
tokens, labels = torch.randint(0, 100, (8, 12)), torch.randint(0, 2, (8,))

# --8<-- [start:error]
torch.manual_seed(0)
train_step(TextClassifier(use_reentrant=True), tokens, labels)
# --8<-- [end:error]

# --8<-- [start:fix]
torch.manual_seed(0)
train_step(TextClassifier(use_reentrant=False), tokens, labels)
# --8<-- [end:fix]
