"""Compiled autograd: with torch._dynamo.config.compiled_autograd on, a backward()
called inside a compiled function is captured whole, as one graph of the
engine's nodes, hooks included."""
import torch
import torch.nn.functional as F
from elu_models import mlp
from torch._dynamo.utils import counters


# --8<-- [start:backend]
def naming_backend(graphs):
    """A backend that keeps the names of each graph's calls, then runs the
    graph as it is (no code generation: it compiles in no time)."""
    def compiler(graph_module, example_inputs):
        names = [getattr(node.target, "__name__", node.target)
                 for node in graph_module.graph.nodes
                 if node.op in ("call_function", "call_method")]
        graphs.append([name for name in names
                       if name not in ("getitem", "validate_outputs")])
        return graph_module.forward
    return compiler


def train_step(model, x):
    loss = model(x).sum()
    loss.backward()
# --8<-- [end:backend]


# --8<-- [start:enable]
torch.manual_seed(0)
model, x = mlp(F.elu), torch.randn(32, 64)
train_step(model, x)  # eager, for comparison
eager = [p.grad.clone() for p in model.parameters()]
model.zero_grad()

graphs = []
with torch._dynamo.config.patch(compiled_autograd=True):
    torch.compile(train_step, backend=naming_backend(graphs))(model, x)
for number, graph in enumerate(graphs, 1):
    print(f"graph {number}:", ", ".join(graph))
print("captured by compiled autograd:", counters["compiled_autograd"]["captures"])
print("gradients as eager:",
      all(torch.equal(g, p.grad) for g, p in zip(eager, model.parameters())))
# --8<-- [end:enable]

# --8<-- [start:outside]
torch._dynamo.reset()
counters.clear()
graphs = []
with torch._dynamo.config.patch(compiled_autograd=True):
    compiled_model = torch.compile(model, backend=naming_backend(graphs))
    compiled_model(x).sum().backward()  # backward() outside the compiled function
print("graphs:", len(graphs))
print("captured by compiled autograd:", counters["compiled_autograd"]["captures"])
# --8<-- [end:outside]

# --8<-- [start:hook]
torch._dynamo.reset()
counters.clear()
model[0].weight.register_hook(lambda grad: grad.clamp(-0.01, 0.01))
model.zero_grad()
train_step(model, x)  # eager, with the hook
eager = [p.grad.clone() for p in model.parameters()]
model.zero_grad()
graphs = []
with torch._dynamo.config.patch(compiled_autograd=True):
    torch.compile(train_step, backend=naming_backend(graphs))(model, x)
print("backward graph:", ", ".join(graphs[-1]))
print("gradients as eager:",
      all(torch.equal(g, p.grad) for g, p in zip(eager, model.parameters())))
# --8<-- [end:hook]
