"""An LSTM's state carried from one batch to the next (truncated BPTT)."""
import math

import torch
from torch import nn

torch.manual_seed(0)
wave = torch.sin(torch.arange(401) * 2 * math.pi / 50)  # one long sequence
inputs, targets = wave[:-1].view(1, -1, 1), wave[1:].view(1, -1, 1)
chunks = list(zip(inputs.split(40, dim=1), targets.split(40, dim=1)))


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(1, 16, batch_first=True)
        self.head = nn.Linear(16, 1)

    def forward(self, x, hidden=None):
        out, hidden = self.lstm(x, hidden)
        return self.head(out), hidden


criterion = nn.MSELoss()

# --8<-- [start:error]
torch.manual_seed(0)
model = Forecaster()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

hidden = None
for batch, (x, y) in enumerate(chunks):
    optimizer.zero_grad()
    prediction, hidden = model(x, hidden)  # hidden still holds batch 0's graph
    loss = criterion(prediction, y)
    try:
        loss.backward()
    except RuntimeError as err:
        print(f"batch {batch}: RuntimeError: {err}")
        break
    optimizer.step()
    print(f"batch {batch}: loss {loss.item():.4f}")
# --8<-- [end:error]

# --8<-- [start:fix]
torch.manual_seed(0)
model = Forecaster()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

for epoch in range(8):
    hidden, total = None, 0.0
    for x, y in chunks:
        optimizer.zero_grad()
        prediction, hidden = model(x, hidden)
        loss = criterion(prediction, y)
        loss.backward()
        optimizer.step()
        h, c = hidden
        hidden = (h.detach(), c.detach())  # keep the values, cut the graph
        total += loss.item()
    if epoch % 2 == 1:
        print(f"epoch {epoch:2d}: mean loss over {len(chunks)} batches "
              f"{total / len(chunks):.2e}")
# --8<-- [end:fix]
