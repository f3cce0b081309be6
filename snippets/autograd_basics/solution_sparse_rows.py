"""Exercise: what a sparse embedding gradient stores after two backward passes."""
import torch

torch.manual_seed(0)
embedding = torch.nn.Embedding(6, 2, sparse=True)
optimizer = torch.optim.SGD(embedding.parameters(), lr=0.5)

embedding(torch.tensor([0, 5, 0])).sum().backward()
embedding(torch.tensor([5])).sum().backward()
grad = embedding.weight.grad
print(grad)
print(grad.coalesce())

before = embedding.weight.detach().clone()
optimizer.step()
print(embedding.weight.detach() - before)
