"""Exercise: raise lambda from 0 to 1 during training, as in DANN."""
import math

from grad_reverse import GradientReversal


def dann_lambda(progress: float, gamma: float = 10.0) -> float:
    """2 / (1 + exp(-gamma * p)) - 1 for training progress p in [0, 1]."""
    return 2.0 / (1.0 + math.exp(-gamma * progress)) - 1.0


reversal = GradientReversal()
steps = 1000
for step in (0, 100, 250, 500, 999):
    reversal.lambd = dann_lambda(step / (steps - 1))
    print(f"step {step:4}: lambda = {reversal.lambd:.4f}")
