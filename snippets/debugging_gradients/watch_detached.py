"""A gradient that never arrives: an encoder detached by mistake."""
import torch
from torch import nn


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.decoder = nn.Linear(8, 2)

    def forward(self, x):
        memory = self.encoder(x).detach()  # left over from training the decoder alone
        return self.decoder(memory)


torch.manual_seed(0)
model = Seq2Seq()
loss = model(torch.randn(5, 4)).pow(2).mean()
loss.backward()
print(model.encoder[0].weight.grad)
print(model.decoder.weight.grad.shape)
