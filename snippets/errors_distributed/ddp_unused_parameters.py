"""DistributedDataParallel with a parameter that gets no gradient: the error
at the next iteration, and the two ways to tell DDP about it."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from ranks import run_on_ranks


class TwoHeads(nn.Module):
    """A shared body with a classification head and a regression head."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.classifier = nn.Linear(8, 3)
        self.regressor = nn.Linear(8, 1)

    def forward(self, x, task="classify"):
        h = torch.relu(self.body(x))
        return self.classifier(h) if task == "classify" else self.regressor(h)


def train(rank, steps=3, tasks=("classify",), **ddp_options):
    """A few SGD steps on this rank's own batch: the losses, a weight sum that is
    the same on every rank when DDP averaged the gradients, and whether the
    regressor got a gradient. Plain values, no tensors: a tensor put on a
    Queue stays in its sender's shared memory, gone once the rank exits."""
    torch.manual_seed(0)  # the same initial weights on every rank
    model = DDP(TwoHeads(), **ddp_options)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(rank)  # each rank its own batch
    x, labels = torch.randn(16, 4), torch.randint(0, 3, (16,))
    targets = torch.randn(16, 1)
    losses = []
    for step in range(steps):
        task = tasks[step % len(tasks)]
        optimizer.zero_grad()
        output = model(x, task)
        if task == "classify":
            loss = nn.functional.cross_entropy(output, labels)
        else:
            loss = nn.functional.mse_loss(output, targets)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    return {"losses": losses,
            "body.weight sum": round(model.module.body.weight.sum().item(), 6),
            "regressor has a gradient": model.module.regressor.weight.grad is not None}


# --8<-- [start:error]
for rank, result in enumerate(run_on_ranks(train)):
    print(f"rank {rank}: {result}")
# --8<-- [end:error]

# --8<-- [start:fix]
def train_with_each_fix(rank):
    return {option: train(rank, **{option: True})
            for option in ("find_unused_parameters", "static_graph")}


for rank, result in enumerate(run_on_ranks(train_with_each_fix)):
    for option, trained in result.items():
        print(f"rank {rank}, {option}=True: {trained}")
# --8<-- [end:fix]

# --8<-- [start:changing]
def train_alternating(rank):
    """Even steps train the classifier, odd steps the regressor."""
    results = {}
    for option in ("find_unused_parameters", "static_graph"):
        try:
            results[option] = train(rank, steps=4, tasks=("classify", "regress"),
                                    **{option: True})
        except RuntimeError as err:
            results[option] = f"RuntimeError: {err}"
    return results


for rank, result in enumerate(run_on_ranks(train_alternating)):
    for option, trained in result.items():
        print(f"rank {rank}, {option}=True: {trained}")
# --8<-- [end:changing]
