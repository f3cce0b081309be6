"""Exercise: z.grad of the squared modulus, by backward() and by central differences."""
import torch


def loss(z):
    return z.abs().pow(2).sum()


torch.manual_seed(0)
z = torch.randn(3, dtype=torch.complex128, requires_grad=True)
loss(z).backward()
print(z.grad)
print(torch.allclose(z.grad, 2 * z.detach()))

h = 1e-6
with torch.no_grad():
    for k, e in enumerate(torch.eye(3, dtype=z.dtype)):
        along_x = (loss(z + h * e) - loss(z - h * e)) / (2 * h)
        along_y = (loss(z + 1j * h * e) - loss(z - 1j * h * e)) / (2 * h)
        print(f"z[{k}]: central differences {along_x:.6f} {along_y:+.6f}i, "
              f"2 z = {2 * z[k]:.6f}")
