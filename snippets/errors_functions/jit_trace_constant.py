"""torch.jit.trace of a model that uses a tensor requiring grad that is neither a
parameter nor an input."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
images = torch.randn(2, 16)


# --8<-- [start:error]
class PrototypeClassifier(nn.Module):
    """Cosine similarity to one learned prototype per class, over a learned
    temperature."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(16, 8)
        self.prototypes = nn.Parameter(torch.randn(4, 8))
        self.temperature = torch.ones((), requires_grad=True)  # a plain tensor

    def forward(self, x):
        features = F.normalize(self.encoder(x), dim=1)
        return features @ F.normalize(self.prototypes, dim=1).t() / self.temperature


model = PrototypeClassifier()
try:
    torch.jit.trace(model, images)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:not_trained]
print("temperature among the parameters:",
      any(p is model.temperature for p in model.parameters()))
# --8<-- [end:not_trained]


# --8<-- [start:cache]
class CachedClassifier(nn.Module):
    """The prototypes normalized once, after training, to save work at inference."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(16, 8)
        self.prototypes = nn.Parameter(torch.randn(4, 8))

    def cache(self):
        self.unit_prototypes = F.normalize(self.prototypes, dim=1)  # requires grad

    def forward(self, x):
        return F.normalize(self.encoder(x), dim=1) @ self.unit_prototypes.t()


cached = CachedClassifier()
cached.cache()
try:
    torch.jit.trace(cached, images)
except RuntimeError as err:
    print(f"RuntimeError: {str(err).splitlines()[0]}")
# --8<-- [end:cache]


# --8<-- [start:fix]
class FixedPrototypeClassifier(PrototypeClassifier):
    def __init__(self):
        super().__init__()
        self.temperature = nn.Parameter(torch.ones(()))  # a parameter: trained, traced


fixed = FixedPrototypeClassifier()
traced = torch.jit.trace(fixed, images)
print("temperature among the parameters:",
      any(p is fixed.temperature for p in fixed.parameters()))
print("traced gives the same logits:", torch.allclose(traced(images), fixed(images)))
# --8<-- [end:fix]

# --8<-- [start:fix_cache]
class FixedCachedClassifier(CachedClassifier):
    def cache(self):
        with torch.no_grad():  # a cache of values, outside any graph
            self.register_buffer("unit_prototypes", F.normalize(self.prototypes, dim=1))


cached = FixedCachedClassifier()
cached.cache()
traced = torch.jit.trace(cached, images)
print("traced gives the same logits:", torch.allclose(traced(images), cached(images)))
# --8<-- [end:fix_cache]
