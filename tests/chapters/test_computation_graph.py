"""Claims of the chapter 'Backpropagation and the computation graph' (docs/computation_graph.md)."""

import math

import pytest
import torch
from conftest import graphs

WALK = "walk_grad_fn.py"
MODES = "forward_vs_reverse.py"


def test_reverse_mode_takes_one_pass_and_forward_mode_one_per_parameter(chapter):
    ns = chapter.run(MODES)
    assert ns["n"] == 256 == ns["passes"] == ns["reverse_grad"].numel()
    assert torch.allclose(ns["forward_grad"], ns["reverse_grad"], rtol=1e-4, atol=1e-5)
    assert ns["reverse_grad"].abs().max() > 1e-2, "a gradient of zeros would agree trivially"


def test_the_page_shows_the_pass_counts(chapter):
    stdout = chapter.shown(MODES)
    assert "reverse mode: 1 backward pass -> 256 derivatives" in stdout
    assert "forward mode: 256 forward passes -> 256 derivatives" in stdout
    assert "same gradient: True" in stdout


def test_next_functions_have_none_for_x_and_target_and_accumulate_grad_for_w_and_b(chapter):
    ns = chapter.run(WALK)
    w, b = ns["w"], ns["b"]
    sub = ns["loss"].grad_fn.next_functions[0][0].next_functions[0][0]
    assert sub.name() == "SubBackward0"
    assert sub.next_functions[1][0] is None, "target, the second input of the subtraction"
    add = sub.next_functions[0][0].next_functions[0][0]
    mm, accumulate_b = (node for node, _ in add.next_functions)
    assert (mm.name(), accumulate_b.variable) == ("MmBackward0", b)
    assert mm.next_functions[0][0] is None, "x, the first input of the matrix product"
    assert mm.next_functions[1][0].variable is w
    assert mm.next_functions[1][0].name() == "torch::autograd::AccumulateGrad"


def test_the_walk_prints_the_nodes_that_torchviz_draws(chapter):
    walked = chapter.shown(WALK).split("SumBackward0\n", 1)[1].split("tensor(")[0]
    names = [line.strip() for line in ("SumBackward0\n" + walked).splitlines()]
    assert names == [
        "SumBackward0", "PowBackward0", "SubBackward0", "TanhBackward0", "AddBackward0", "MmBackward0",
        "None (an input that needs no gradient)", "torch::autograd::AccumulateGrad -> w",
        "torch::autograd::AccumulateGrad -> b", "None (an input that needs no gradient)",
    ]
    (graph,) = graphs(chapter.outputs(WALK))
    drawn_nodes = [n for n in graph["nodes"] if "(" not in n]  # without the tensor boxes
    printed_nodes = [n.replace("torch::autograd::", "").split(" -> ")[0] for n in names if not n.startswith("None")]
    assert sorted(drawn_nodes) == sorted(printed_nodes)
    assert sorted(n for n in graph["nodes"] if "(" in n) == ["()", "b (1)", "w (3, 1)"], "no box for x or target"
    # Arrows run the way of the forward pass: from the parameters to the loss.
    for edge in (["w (3, 1)", "AccumulateGrad"], ["b (1)", "AccumulateGrad"], ["MmBackward0", "AddBackward0"],
                 ["SumBackward0", "()"]):
        assert edge in graph["edges"]


def test_the_chain_rule_by_hand_gives_what_backward_gives(chapter):
    ns = chapter.run(WALK)
    assert ns["w"].grad.shape == ns["grad_w"].shape == (3, 1)
    assert torch.allclose(ns["w"].grad, ns["grad_w"])
    assert torch.allclose(ns["b"].grad, ns["grad_b"])
    assert ns["grad_w"].abs().min() > 0.1


# Exercises


def test_solution_backward_walker_gives_what_backward_gives(chapter):
    ns = chapter.run("solution_backward_walker.py")
    w, b, v = ns["w"], ns["b"], ns["v"]
    assert torch.equal(ns["x"], chapter.run(WALK)["x"]), "the regression loss of this chapter"
    walker = ns["my_backward"]
    assert walker.__module__ == "backward_walker"
    lines = chapter.shown("solution_backward_walker.py").splitlines()
    assert lines[1].strip() == lines[2].strip() and lines[1].strip().startswith("tensor([")
    first, second = lines[3].removeprefix("b: ").split(") ")
    assert first + ")" == second
    twice, reference = lines[4].removeprefix("used twice: ").split(") ")
    assert twice + ")" == reference
    assert torch.allclose(ns["mine"][v], v.grad)
    # the walk gives the same numbers on the chapter's own tensors, not just the same printout
    walk = chapter.run(WALK)
    w2, b2 = walk["w"].detach().requires_grad_(), walk["b"].detach().requires_grad_()
    loss = ((torch.tanh(walk["x"] @ w2 + b2) - walk["target"]) ** 2).sum()
    mine = walker(loss)
    loss.backward()
    assert torch.allclose(mine[w2], w2.grad) and torch.allclose(mine[b2], b2.grad)
    assert torch.allclose(mine[w2], walk["w"].grad), "the gradient printed in the chapter"
    assert w.grad is not None and b.grad.shape == (1,)


def test_a_node_returns_the_broadcast_shape_and_needs_its_saved_tensors(chapter):
    ns = chapter.run("solution_backward_walker.py")
    add = ns["loss"].grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].next_functions[0][0]
    assert add.name() == "AddBackward0"
    _, for_b = add(torch.ones(4, 1))
    assert for_b.shape == (4, 1) and ns["b"].shape == (1,)
    x = torch.randn(3, requires_grad=True)
    y = (x.exp() * 2).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        ns["my_backward"](y)


def test_solution_breadth_first_loses_the_exp_path(chapter):
    ns = chapter.run("solution_breadth_first.py")
    lines = chapter.shown("solution_breadth_first.py").splitlines()
    assert lines[0].split(None, 1)[1] == "SumBackward0, MulBackward0, MulBackward0, ExpBackward0, AccumulateGrad"
    assert lines[1].split(None, 1)[1] == "SumBackward0, MulBackward0, ExpBackward0, MulBackward0, AccumulateGrad"
    a = ns["a"].detach()
    wrong = ns["my_backward"](ns["shared"], ns["breadth_first"])[ns["v"]]
    right = ns["my_backward"](ns["shared"])[ns["v"]]
    assert torch.allclose(wrong, 2 * a.exp()), "only the product's term"
    assert torch.allclose(right, 2 * (a.exp() + a * a.exp()))
    assert not torch.allclose(wrong, right)
    # on the regression loss every node receives gradients from one node only: breadth first works
    walk = chapter.run(WALK)
    w2, b2 = walk["w"].detach().requires_grad_(), walk["b"].detach().requires_grad_()
    loss = ((torch.tanh(walk["x"] @ w2 + b2) - walk["target"]) ** 2).sum()
    nodes = ns["reverse_topological"](loss.grad_fn)
    assert all(sum(nxt is node for other in nodes for nxt, _ in other.next_functions) == 1 for node in nodes[1:])
    mine = ns["my_backward"](loss, ns["breadth_first"])
    assert torch.allclose(mine[w2], walk["w"].grad) and torch.allclose(mine[b2], walk["b"].grad)


# Backward from several threads

THREADS = "threads_backward.py"


def test_each_thread_with_its_own_graph_gets_its_own_right_gradient(chapter):
    lines = chapter.shown(THREADS, "independent").splitlines()
    assert lines == [f"thread {i}: x.grad = {[2.0 * i] * 3}, equal to 2x: True" for i in (1, 2, 3, 4)]
    grads = chapter.run(THREADS)["grads"]
    assert sorted(grads) == [1, 2, 3, 4] and all(torch.equal(g, torch.full((3,), 2.0 * i)) for i, g in grads.items())


def test_cpu_backward_runs_on_the_thread_that_called_it(chapter):
    assert chapter.shown(THREADS, "calling_thread") == (
        "CPU backward ran on the thread that called it: True\nnot on the main thread: True\n")
    import threading

    seen = {}

    def work():
        x = torch.ones(2, requires_grad=True)
        y = x.exp()
        y.register_hook(lambda grad: seen.__setitem__("hook", threading.get_ident()))
        y.sum().backward()
        seen["caller"] = threading.get_ident()

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen["hook"] == seen["caller"] != threading.get_ident()


def test_backward_calls_from_two_threads_are_not_queued_behind_one_another():
    """Thread a's backward waits, inside a node, for thread b's backward to run a node: were the
    calls queued one behind the other, a would wait for ever (here: 20 s, then fail)."""
    import threading

    b_ran = threading.Event()
    waited = {}

    class WaitForB(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            waited["a"] = b_ran.wait(timeout=20)
            return grad

    class SignalB(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            b_ran.set()
            return grad

    xa, xb = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    a = threading.Thread(target=lambda: WaitForB.apply(xa).sum().backward())
    b = threading.Thread(target=lambda: SignalB.apply(xb).sum().backward())
    a.start()
    b.start()
    a.join()
    b.join()
    assert waited == {"a": True}
    assert torch.equal(xa.grad, torch.ones(2)) and torch.equal(xb.grad, torch.ones(2))


def test_threads_sharing_a_leaf_add_every_gradient_into_one_accumulate_grad(chapter):
    assert chapter.shown(THREADS, "shared_leaf") == f"w.grad: {[1.0 + 2.0 + 3.0 + 4.0] * 3}\n"
    w = torch.ones(3, requires_grad=True)
    one, two = w * 1.0, w * 2.0
    assert one.grad_fn.next_functions[0][0] is two.grad_fn.next_functions[0][0], "the leaf's one node"
    # none of 8 x 50 additions made at once is lost
    import threading

    def steps():
        for _ in range(50):
            (w * 1.0).sum().backward()

    threads = [threading.Thread(target=steps) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert torch.equal(w.grad, torch.full((3,), 400.0))


def test_a_shared_graph_fails_in_the_second_thread_unless_retained(chapter):
    shown = chapter.shown(THREADS, "shared_graph")
    assert shown.startswith("RuntimeError: Trying to backward through the graph a second time")
    assert len(shown.splitlines()) == 1 and "retain_graph=True" in shown
    lines = chapter.shown(THREADS, "retain_graph").splitlines()
    expected = round(3 * 0.5 * math.exp(0.5), 4)
    assert lines == ["errors: 0", f"w.grad: {[expected] * 3}", f"(1 + 2) * 0.5 * exp(0.5) = {expected}"]
    ns = chapter.run(THREADS)
    assert ns["h"].grad_fn.name() == "ExpBackward0", "the shared node"
    assert torch.allclose(ns["w"].grad, torch.full((3,), 3 * 0.5 * math.exp(0.5)))


def test_the_stream_semantics_are_the_ones_torch_documents():
    for function in (torch.autograd.backward, torch.autograd.grad, torch.Tensor.backward):
        assert "Stream semantics of backward passes" in function.__doc__


@pytest.mark.cuda
def test_on_cuda_backward_runs_on_the_forward_stream_and_a_device_thread():
    import threading

    seen = {}

    class Spy(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            seen["stream"], seen["thread"] = torch.cuda.current_stream(), threading.get_ident()
            return grad * 2

    side = torch.cuda.Stream()
    x = torch.ones(4, device="cuda", requires_grad=True)
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = Spy.apply(x)
    torch.cuda.current_stream().wait_stream(side)
    y.sum().backward()
    torch.cuda.synchronize()
    assert seen["stream"] == side, "backward ran on its forward's stream"
    assert seen["thread"] != threading.get_ident(), "on the engine's worker thread for the GPU"
    assert torch.equal(x.grad, torch.full((4,), 2.0, device="cuda"))


def test_solution_thread_gradients(chapter):
    lines = chapter.shown("solution_thread_gradients.py").splitlines()
    assert lines[0] == "w.grad: None"
    assert [line.split(":")[0] for line in lines[1:5]] == [f"thread {i}" for i in range(4)]
    assert lines[5] == "the same bits as four backward() in a row: True"
    ns = chapter.run("solution_thread_gradients.py")
    w = ns["w"].detach().requires_grad_()
    for batch, grad in zip(ns["batches"], ns["per_thread"]):
        (expected,) = torch.autograd.grad((batch @ w).pow(2).mean(), w)
        assert torch.equal(grad, expected)
    assert len({tuple(g.tolist()) for g in ns["per_thread"]}) == 4, "four different gradients"
