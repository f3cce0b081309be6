"""A recurrent step over sequences of different lengths:
each iteration records a graph of its own."""
import torch
from graph_nodes import node_counts

# --8<-- [start:loop]
torch.manual_seed(0)
w = torch.tensor(0.5, requires_grad=True)
sequences = [torch.randn(n) for n in (3, 1, 5)]

for step, sequence in enumerate(sequences):
    h = torch.tensor(0.0)
    for item in sequence:               # as many steps as the sequence is long
        h = torch.tanh(w * h + item)
    loss = h**2
    print(f"step {step}: length {len(sequence)}, graph {node_counts(loss)}")
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad = None
# --8<-- [end:loop]
