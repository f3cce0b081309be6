"""set_materialize_grads(False): backward gets None for an output nothing used."""
import torch


# --8<-- [start:zeros]
class DoubleAndTriple(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return 2 * x, 3 * x

    @staticmethod
    def backward(ctx, grad_double, grad_triple):
        print("backward got:", grad_double, grad_triple)
        grad = 2 * grad_double
        if grad_triple is not None:  # None only with set_materialize_grads(False)
            grad = grad + 3 * grad_triple
        return grad


x = torch.ones(3, requires_grad=True)
double, triple = DoubleAndTriple.apply(x)
double.sum().backward()  # triple is not used
# --8<-- [end:zeros]


# --8<-- [start:none]
class DoubleAndTripleLazy(DoubleAndTriple):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return 2 * x, 3 * x


x = torch.ones(3, requires_grad=True)
double, triple = DoubleAndTripleLazy.apply(x)
double.sum().backward()
print(x.grad)
# --8<-- [end:none]
