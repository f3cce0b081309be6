"""backward(inputs=...) fills only the named tensors;
retain_grad() keeps a non-leaf's gradient."""
import torch

# --8<-- [start:inputs]
w1 = torch.tensor(2.0, requires_grad=True)
w2 = torch.tensor(3.0, requires_grad=True)
h = w1 * 4
loss = h * w2

loss.backward(inputs=[w2])
print(w1.grad, w2.grad)
# --8<-- [end:inputs]

# --8<-- [start:non_leaf]
w2.grad = None
h = w1 * 4
loss = h * w2
loss.backward(inputs=[h])
print(w1.grad, w2.grad, h.grad)
# --8<-- [end:non_leaf]

# --8<-- [start:retain_grad]
h = w1 * 4
h.retain_grad()
loss = h * w2
loss.backward()
print(w1.grad, w2.grad, h.grad)
# --8<-- [end:retain_grad]
