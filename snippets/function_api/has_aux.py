"""has_aux: a transform also returns what the function computed on the way."""
import torch
from torch.func import grad, vjp

torch.manual_seed(0)
x, y = torch.randn(5, 2), torch.randn(5)
w = torch.tensor([0.5, -1.0])


# --8<-- [start:grad]
def loss_and_predictions(w):
    predictions = x @ w
    loss = ((predictions - y) ** 2).mean()
    return loss, predictions.detach()  # differentiate the first, pass the second


gradient, predictions = grad(loss_and_predictions, has_aux=True)(w)
print(gradient)
print(predictions)
# --8<-- [end:grad]

# --8<-- [start:vjp]
loss, vjp_fn, predictions = vjp(loss_and_predictions, w, has_aux=True)
(same,) = vjp_fn(torch.tensor(1.0))
print(loss, torch.equal(same, gradient))
# --8<-- [end:vjp]
