"""Exercise: a loop that squares until the value reaches 100;
predict y and dy/dx by hand."""
import torch


# --8<-- [start:function]
def square_until_large(x):
    y = x
    while y < 100:
        y = y * y
    return y
# --8<-- [end:function]


for value in (3.0, 20.0):
    x = torch.tensor(value, requires_grad=True)
    y = square_until_large(x)
    y.backward()
    print(f"x={value}  y={y.item()}  dy/dx={x.grad.item()}")
