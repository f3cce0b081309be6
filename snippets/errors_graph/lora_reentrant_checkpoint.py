"""LoRA adapters in checkpointed blocks after a frozen embedding: with the reentrant
checkpoint, the loss has no graph."""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class LoRALinear(nn.Module):
    """A frozen linear layer plus a trainable low-rank update, as PEFT's LoRA adds."""

    def __init__(self, dim, rank=2):
        super().__init__()
        self.base = nn.Linear(dim, dim).requires_grad_(False)
        self.lora_a = nn.Parameter(torch.randn(rank, dim) * 0.1)
        self.lora_b = nn.Parameter(torch.zeros(dim, rank))

    def forward(self, x):
        return self.base(x) + x @ self.lora_a.T @ self.lora_b.T


class TinyLM(nn.Module):
    def __init__(self, use_reentrant):
        super().__init__()
        self.use_reentrant = use_reentrant
        self.embedding = nn.Embedding(50, 16).requires_grad_(False)  # frozen
        self.blocks = nn.ModuleList(LoRALinear(16) for _ in range(2))
        self.head = nn.Linear(16, 50).requires_grad_(False)  # frozen too

    def forward(self, tokens):
        h = self.embedding(tokens)
        for block in self.blocks:  # gradient checkpointing, to save memory
            h = checkpoint(block, h, use_reentrant=self.use_reentrant)
        return self.head(torch.tanh(h))


torch.manual_seed(0)
tokens = torch.randint(0, 50, (4, 10))
targets = torch.roll(tokens, -1, dims=1)  # predict the next token


def train(model, steps=31):
    trainable = [p for p in model.parameters() if p.requires_grad]  # the adapters
    optimizer = torch.optim.Adam(trainable, lr=1e-2)
    for step in range(steps):
        optimizer.zero_grad()
        logits = model(tokens)
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(f"step {step:2d}: loss {loss.item():.4f}")


# --8<-- [start:error]
torch.manual_seed(0)
model = TinyLM(use_reentrant=True)
try:
    train(model)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
torch.manual_seed(0)
train(TinyLM(use_reentrant=False))
# --8<-- [end:fix]


# --8<-- [start:input_grads]
def make_inputs_require_grad(module, inputs, output):  # as enable_input_require_grads
    output.requires_grad_(True)


torch.manual_seed(0)
model = TinyLM(use_reentrant=True)
model.embedding.register_forward_hook(make_inputs_require_grad)
train(model)
# --8<-- [end:input_grads]
