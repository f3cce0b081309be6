"""Exercise: where Dynamo stops in a training step, and a hook on an
intermediate tensor inside the step, captured by compiled autograd."""
import torch
import torch.nn.functional as F
from elu_models import mlp


def halved_step(model, x):
    hidden = model[1](model[0](x))  # Linear, then the ELU
    hidden.register_hook(lambda grad: grad * 0.5)
    model[2](hidden).sum().backward()


torch.manual_seed(0)
model, x = mlp(F.elu), torch.randn(32, 64)

explained = torch._dynamo.explain(halved_step)(model, x)
print("graphs:", explained.graph_count, " breaks:", explained.graph_break_count)
print(explained.break_reasons[0].reason.splitlines()[0])
model.zero_grad()  # explain ran the step, backward() included

halved_step(model, x)  # eager
eager = [p.grad.clone() for p in model.parameters()]
model.zero_grad()

graphs = []


def backend(graph_module, example_inputs):
    graphs.append([getattr(node.target, "__name__", node.target)
                   for node in graph_module.graph.nodes
                   if node.op in ("call_function", "call_method")])
    return graph_module.forward


torch._dynamo.reset()
with torch._dynamo.config.patch(compiled_autograd=True):
    torch.compile(halved_step, backend=backend)(model, x)
backward = [name for name in graphs[-1] if name not in ("getitem", "validate_outputs")]
print("backward graph:", ", ".join(backward))
print("gradients as eager:",
      all(torch.equal(g, p.grad) for g, p in zip(eager, model.parameters())))
