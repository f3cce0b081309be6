"""A real loss of complex numbers: what z.grad holds, checked by finite differences."""
import torch

torch.manual_seed(0)

# --8<-- [start:grad]
z = torch.randn(3, dtype=torch.complex128, requires_grad=True)


def loss(z):
    """A real number computed from complex operations."""
    return (z * torch.exp(z)).abs().pow(2).sum()


loss(z).backward()
print(z.grad)
# --8<-- [end:grad]

# --8<-- [start:finite_differences]
h = 1e-6
with torch.no_grad():
    along_x = torch.stack([(loss(z + h * e) - loss(z - h * e)) / (2 * h)
                           for e in torch.eye(3, dtype=z.dtype)])
    along_y = torch.stack([(loss(z + 1j * h * e) - loss(z - 1j * h * e)) / (2 * h)
                           for e in torch.eye(3, dtype=z.dtype)])
numerical = along_x + 1j * along_y
print(numerical)
print(f"largest difference: {(z.grad - numerical).abs().max():.1e}")
# --8<-- [end:finite_differences]

# --8<-- [start:real_pairs]
xy = torch.view_as_real(z.detach()).clone().requires_grad_()  # (x, y) per row
loss(torch.view_as_complex(xy)).backward()
print(torch.equal(xy.grad, torch.view_as_real(z.grad)))
# --8<-- [end:real_pairs]

# --8<-- [start:vjp]
c = torch.tensor(2 + 3j, dtype=torch.complex128)
(grad_of_real_part,) = torch.autograd.grad((c * z).real.sum(), z)
print(grad_of_real_part)

w = torch.exp(z)
v = torch.randn(3, dtype=torch.complex128)
(vjp,) = torch.autograd.grad(w, z, grad_outputs=v)
print(torch.allclose(vjp, v * torch.exp(z).conj()))
# --8<-- [end:vjp]

# --8<-- [start:descent]
step = 1e-6
with torch.no_grad():
    decrease = loss(z) - loss(z - step * z.grad)
    first_order = step * z.grad.abs().pow(2).sum()
print(f"loss decrease: {decrease:.6e}")
print(f"step * |grad|^2: {first_order:.6e}")
# --8<-- [end:descent]
