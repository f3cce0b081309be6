"""One layer, elu(x @ W + b), recorded by a scalar engine (one node per number, as in
micrograd) and by a tensor engine (one node per tensor operation): count the nodes."""
import torch

import tiny_autograd as tiny

# --8<-- [start:layer]
torch.manual_seed(0)
batch, n_in, n_out = 4, 8, 16
x = torch.randn(batch, n_in, dtype=torch.float64)
w = torch.randn(n_in, n_out, dtype=torch.float64)
b = torch.randn(n_out, dtype=torch.float64)


def count_nodes(outputs):
    """Values in the graph of `outputs`: leaves and operations."""
    # a node that only gathers the outputs
    root = tiny.Value(0.0, parents=tuple(outputs))
    return len(tiny.topological_order(root)) - 1


# Tensor engine: a Value holds a whole tensor.
X, W, B = tiny.Value(x), tiny.Value(w), tiny.Value(b)
tensor_out = tiny.elu(X @ W + B)
tensor_nodes = count_nodes([tensor_out])

# Scalar engine: the same code, with a Value per number (0-d tensors), micrograd's way.
xs = [[tiny.Value(v) for v in row] for row in x]
ws = [[tiny.Value(v) for v in row] for row in w]
bs = [tiny.Value(v) for v in b]
scalar_out = []
for i in range(batch):
    for j in range(n_out):
        s = bs[j]
        for k in range(n_in):
            s = s + xs[i][k] * ws[k][j]
        scalar_out.append(tiny.elu(s))
scalar_nodes = count_nodes(scalar_out)

same = torch.allclose(torch.stack([v.data for v in scalar_out]).reshape(batch, n_out),
                      tensor_out.data)
print(f"layer {n_in} -> {n_out}, batch of {batch}; same outputs: {same}")
print(f"tensor engine: {tensor_nodes} nodes")
print(f"scalar engine: {scalar_nodes} nodes")
# --8<-- [end:layer]

# --8<-- [start:formula]
def scalar_node_count(batch, n_in, n_out):
    leaves = batch * n_in + n_in * n_out + n_out
    operations = batch * n_out * (2 * n_in + 1)  # n_in products, n_in sums, one elu
    return leaves + operations


print("formula for this layer:", scalar_node_count(batch, n_in, n_out))
print(f"the first layer of the source MLP (512 -> 1024, batch of 10): "
      f"{scalar_node_count(10, 512, 1024):,} scalar nodes")
# --8<-- [end:formula]
