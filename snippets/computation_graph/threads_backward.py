"""backward() from several Python threads: independent graphs, a shared leaf, a
shared graph."""
import threading

import torch


def run_in_threads(target, *args_per_thread):
    """Start one thread per argument tuple, then wait for all of them."""
    threads = [threading.Thread(target=target, args=args) for args in args_per_thread]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


# --8<-- [start:independent]
grads = {}


def train(i):
    x = torch.full((3,), float(i), requires_grad=True)  # this thread's own leaf
    (x * x).sum().backward()  # and its own graph
    grads[i] = x.grad


run_in_threads(train, (1,), (2,), (3,), (4,))
for i in sorted(grads):
    right = torch.equal(grads[i], torch.full((3,), 2.0 * i))  # d(x*x)/dx = 2x
    print(f"thread {i}: x.grad = {grads[i].tolist()}, equal to 2x: {right}")
# --8<-- [end:independent]

# --8<-- [start:calling_thread]
ran_on = {}


def note_thread(grad):
    ran_on["hook"] = threading.get_ident()  # the thread that runs this step of backward


def backward_here():
    v = torch.ones(2, requires_grad=True)
    out = v * 3
    out.register_hook(note_thread)
    out.sum().backward()
    ran_on["caller"] = threading.get_ident()


run_in_threads(backward_here, ())
print("CPU backward ran on the thread that called it:",
      ran_on["hook"] == ran_on["caller"])
print("not on the main thread:", ran_on["hook"] != threading.get_ident())
# --8<-- [end:calling_thread]

# --8<-- [start:shared_leaf]
w = torch.ones(3, requires_grad=True)  # one parameter, shared by four threads


def step(scale):
    (w * scale).sum().backward()  # each thread: its own graph, ending in w


run_in_threads(step, (1.0,), (2.0,), (3.0,), (4.0,))
print("w.grad:", w.grad.tolist())
# --8<-- [end:shared_leaf]

# --8<-- [start:shared_graph]
w = torch.ones(3, requires_grad=True)
h = (w * 0.5).exp()  # computed once: the part of the graph the threads share
errors = []


def branch(k, retain_graph=False):
    try:
        (h * k).sum().backward(retain_graph=retain_graph)
    except RuntimeError as err:
        errors.append(f"RuntimeError: {err}")


run_in_threads(branch, (1.0,))  # the first thread ends before the second starts
run_in_threads(branch, (2.0,))
print(*errors, sep="\n")
# --8<-- [end:shared_graph]

# --8<-- [start:retain_graph]
w.grad = None
errors.clear()
h = (w * 0.5).exp()
run_in_threads(branch, (1.0, True), (2.0, True))  # at the same time, graph retained
print("errors:", len(errors))
print("w.grad:", [round(g, 4) for g in w.grad.tolist()])
print("(1 + 2) * 0.5 * exp(0.5) =", round(3 * 0.5 * torch.tensor(0.5).exp().item(), 4))
# --8<-- [end:retain_graph]
