"""The tiny engine against torch.autograd on many random expression graphs,
in float64."""
import random

import torch

from random_graphs import gradient_difference, graph_features, leaf_shapes, random_graph

rng = random.Random(0)
torch.manual_seed(0)
graphs = operations = compared = reused = broadcast = 0
worst = 0.0
for _ in range(500):
    n = rng.choice([2, 3, 4])
    values = [torch.randn(rng.choice(leaf_shapes(n)), dtype=torch.float64)
              for _ in range(rng.randint(1, 4))]
    leaves, results, losses = random_graph(rng.choice, values, n_ops=rng.randint(1, 8))
    if not torch.isfinite(losses[1]):
        continue  # exp(exp(...)) can overflow: no gradient to compare
    worst = max(worst, gradient_difference(leaves, losses))
    graphs += 1
    operations += len(results)
    compared += len(leaves)
    uses_a_value_twice, broadcasts = graph_features(results)
    reused += uses_a_value_twice
    broadcast += broadcasts
print(f"{graphs} random graphs, {operations} random operations, "
      f"{compared} leaf gradients compared")
print(f"{reused} graphs use a value twice, {broadcast} broadcast an input")
print(f"largest difference, relative to the largest gradient: {worst:.1e}")
