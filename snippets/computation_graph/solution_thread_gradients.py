"""Exercise: each thread's gradient of a shared parameter, kept apart with
torch.autograd.grad."""
import threading

import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)  # shared by the four threads
batches = [torch.randn(8, 3) for _ in range(4)]  # one batch per thread
per_thread = [None] * len(batches)


def gradient(i):
    loss = (batches[i] @ w).pow(2).mean()
    (per_thread[i],) = torch.autograd.grad(loss, w)  # returned, not added into w.grad


threads = [threading.Thread(target=gradient, args=(i,)) for i in range(len(batches))]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("w.grad:", w.grad)
for i, grad in enumerate(per_thread):
    print(f"thread {i}:", [round(g, 4) for g in grad.tolist()])
total = per_thread[0] + per_thread[1] + per_thread[2] + per_thread[3]  # a fixed order

for batch in batches:  # the same four backward passes, one after another
    (batch @ w).pow(2).mean().backward()
print("the same bits as four backward() in a row:", torch.equal(total, w.grad))
