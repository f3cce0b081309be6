"""A tiny domain-adversarial network: the domain loss's gradient on the
feature extractor, with a plain domain head and through GradientReversal."""
import torch
from grad_reverse import GradientReversal
from torch import nn
from torch.nn.functional import binary_cross_entropy_with_logits as bce
from torch.nn.functional import cross_entropy

# --8<-- [start:model]
torch.manual_seed(0)
features = nn.Sequential(nn.Linear(4, 3), nn.Tanh())  # the shared extractor
label_head = nn.Linear(3, 2)     # trained on labelled (source) data
domain_head = nn.Linear(3, 1)    # source (0) or target (1)?

x = torch.randn(6, 4)
domain = torch.tensor([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
labels = torch.tensor([0, 1, 1])  # only the three source rows have labels
# --8<-- [end:model]


# --8<-- [start:compare]
def domain_gradients(reverse: bool):
    """Gradients of the domain loss: feature extractor, then domain head."""
    f = features(x)
    if reverse:
        f = GradientReversal(lambd=1.0)(f)
    loss = bce(domain_head(f).squeeze(1), domain)
    params = [features[0].weight, domain_head.weight]
    return torch.autograd.grad(loss, params)


plain_features, plain_head = domain_gradients(reverse=False)
reversed_features, reversed_head = domain_gradients(reverse=True)
print(f"feature extractor, plain head:\n{plain_features[0]}")
print(f"feature extractor, through the reversal:\n{reversed_features[0]}")
print("flipped:", torch.equal(reversed_features, -plain_features))
print("domain head unchanged:", torch.equal(reversed_head, plain_head))
# --8<-- [end:compare]

# --8<-- [start:total]
lambd = 0.5
f = features(x)
label_loss = cross_entropy(label_head(f[:3]), labels)
domain_loss = bce(domain_head(GradientReversal(lambd)(f)).squeeze(1), domain)
(total,) = torch.autograd.grad(label_loss + domain_loss, features[0].weight,
                               retain_graph=True)
(label_part,) = torch.autograd.grad(label_loss, features[0].weight)
print("total == label part - lambda * domain part:",
      torch.allclose(total, label_part - lambd * plain_features))
# --8<-- [end:total]
