"""model.eval() switches dropout and batch norm to evaluation; recording goes on."""
import torch
from torch import nn


def graph_size(tensor):
    """The number of autograd nodes reachable from tensor.grad_fn (0 for none)."""
    seen, todo = set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        todo.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 64), nn.BatchNorm1d(64), nn.ReLU(),
                      nn.Dropout(0.2), nn.Linear(64, 2))
val_batches = [torch.randn(32, 20) for _ in range(50)]

# --8<-- [start:error]
model.eval()
outputs = []
for x in val_batches:
    outputs.append(model(x))  # kept to compute a metric at the end
logits = torch.cat(outputs)
print("requires_grad:", logits.requires_grad, " grad_fn:", logits.grad_fn.name())
print("graph nodes kept alive:", graph_size(logits))
# --8<-- [end:error]

# --8<-- [start:fix]
model.eval()  # evaluation behaviour of dropout and batch norm ...
with torch.no_grad():  # ... and nothing recorded
    outputs = [model(x) for x in val_batches]
logits_no_grad = torch.cat(outputs)
print("requires_grad:", logits_no_grad.requires_grad,
      " grad_fn:", logits_no_grad.grad_fn)
print("graph nodes kept alive:", graph_size(logits_no_grad))
print("same logits:", torch.equal(logits_no_grad, logits))
# --8<-- [end:fix]

# --8<-- [start:inference_mode]
with torch.inference_mode():  # stricter: its results can never enter a graph later
    logits_inference = torch.cat([model(x) for x in val_batches])
print("requires_grad:", logits_inference.requires_grad,
      " inference tensor:", logits_inference.is_inference())
print("same logits:", torch.equal(logits_inference, logits))
# --8<-- [end:inference_mode]
