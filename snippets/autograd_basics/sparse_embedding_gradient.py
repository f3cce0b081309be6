"""nn.Embedding(sparse=True): .grad is a sparse COO tensor holding only the rows
looked up; SGD and SparseAdam take it, Adam does not; it accumulates by appending."""
import torch

torch.manual_seed(0)

# --8<-- [start:grad]
embedding = torch.nn.Embedding(10, 3, sparse=True)
tokens = torch.tensor([1, 4, 4, 7])
embedding(tokens).sum().backward()
grad = embedding.weight.grad
print(grad.layout, tuple(grad.shape), tuple(embedding.weight.shape))
print(grad)
# --8<-- [end:grad]

# --8<-- [start:coalesce]
print(grad.coalesce())
# --8<-- [end:coalesce]

# --8<-- [start:accumulate]
embedding(torch.tensor([2])).sum().backward()
print(embedding.weight.grad is grad)
print(embedding.weight.grad)
# --8<-- [end:accumulate]

# --8<-- [start:optimizers]
for optimizer_class in (torch.optim.SGD, torch.optim.SparseAdam, torch.optim.Adam):
    table = torch.nn.Embedding(10, 3, sparse=True)
    optimizer = optimizer_class(table.parameters(), lr=0.1)
    table(tokens).sum().backward()
    before = table.weight.detach().clone()
    try:
        optimizer.step()
    except RuntimeError as err:
        print(f"{optimizer_class.__name__}: RuntimeError: {err}")
        continue
    changed = (table.weight.detach() != before).any(dim=1).nonzero().flatten()
    print(f"{optimizer_class.__name__}: rows changed {changed.tolist()}")
# --8<-- [end:optimizers]
