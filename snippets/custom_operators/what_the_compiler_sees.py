"""torch.compile of the small model with each ELU: graph breaks, and the
operations in the forward and backward graphs that the compiler receives."""
import textwrap
from collections import Counter

import torch
from elu_models import ELUS, mlp
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

# --8<-- [start:explain]
torch.manual_seed(0)
x = torch.randn(32, 64)
print(f"{'ELU':12}{'graphs':>7}{'breaks':>7}")
for name, elu in ELUS.items():
    torch._dynamo.reset()
    explained = torch._dynamo.explain(mlp(elu))(x)
    print(f"{name:12}{explained.graph_count:7}{explained.graph_break_count:7}")
# --8<-- [end:explain]


# --8<-- [start:backend]
def recording_backend(graphs):
    """A backend that keeps the ATen operations of each graph it gets,
    then runs the graph as it is."""
    def keep(kind):
        def compiler(graph_module, example_inputs):
            graphs[kind] = Counter(
                str(node.target) for node in graph_module.graph.nodes
                if node.op == "call_function")
            return make_boxed_func(graph_module.forward)
        return compiler
    return aot_autograd(fw_compiler=keep("forward"),
                        bw_compiler=keep("backward"))
# --8<-- [end:backend]


def elementwise(ops):
    """The operations of the ELU: leave out the Linear layers' matmuls and views."""
    linear = ("aten.addmm", "aten.mm", "aten.t.", "aten.view", "aten.sum",
              "aten.detach", "aten.expand")
    return sorted(op for op in ops if not op.startswith(linear))


# --8<-- [start:graphs]
for name, elu in ELUS.items():
    torch._dynamo.reset()
    graphs = {}
    model = torch.compile(mlp(elu), fullgraph=True,
                          backend=recording_backend(graphs))
    model(x).sum().backward()
    print(name)
    for kind in ("forward", "backward"):
        print(textwrap.fill(", ".join(elementwise(graphs[kind])), 72,
                            initial_indent=f"  {kind:9} ", subsequent_indent=" " * 12))
# --8<-- [end:graphs]
