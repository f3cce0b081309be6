"""ReLU and ELU side by side."""
import matplotlib.pyplot as plt
import torch
from elu import elu_forward

z = torch.linspace(-4, 3, steps=701)
fig, ax = plt.subplots(figsize=(6.4, 3.6))
ax.plot(z, torch.relu(z), label="ReLU(z)", linewidth=4, color="0.8")
ax.plot(z, elu_forward(z, alpha=1.0), label="ELU(z), α = 1")
ax.plot(z, elu_forward(z, alpha=0.5), label="ELU(z), α = 0.5", linestyle="--")
ax.axhline(-1.0, color="0.5", linewidth=0.8, linestyle=":")
ax.set_xlabel("z")
ax.grid(alpha=0.3)
ax.legend()
plt.show()
