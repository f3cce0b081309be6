"""An input gradient through an LSTM classifier in eval() mode, as an adversarial
attack (FGSM) computes it: the CPU computes it, cuDNN refuses (gpu_only_messages.py);
two fixes."""
import torch
from torch import nn


class SequenceClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, dropout=0.3, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])  # classify from the last time step


torch.manual_seed(0)
model = SequenceClassifier()
sequences = torch.randn(4, 10, 8)
labels = torch.tensor([0, 2, 1, 0])

# --8<-- [start:cpu]
model.eval()  # a trained model, evaluated: dropout off
x = sequences.clone().requires_grad_()
loss = nn.functional.cross_entropy(model(x), labels)
loss.backward()  # with model.cuda() and x on the GPU, cuDNN raises here
print(f"on the CPU: loss {loss.item():.4f}, "
      f"input gradient norm {x.grad.norm():.3e}")
x_adv = x.detach() + 0.5 * x.grad.sign()  # FGSM: a step up the loss
with torch.no_grad():
    loss_adv = nn.functional.cross_entropy(model(x_adv), labels)
print(f"loss on the adversarial sequences: {loss_adv.item():.4f}")
# --8<-- [end:cpu]

# --8<-- [start:train_lstm]
model.eval()
model.lstm.train()        # cuDNN's backward needs the LSTM in training mode
model.lstm.dropout = 0.0  # ... where its dropout between layers would act
x2 = sequences.clone().requires_grad_()
nn.functional.cross_entropy(model(x2), labels).backward()
print("same gradient as in eval():", torch.equal(x2.grad, x.grad))
model.lstm.dropout = 0.3
model.eval()
# --8<-- [end:train_lstm]

# --8<-- [start:no_cudnn]
x3 = sequences.clone().requires_grad_()
with torch.backends.cudnn.flags(enabled=False):  # PyTorch's own LSTM kernels
    nn.functional.cross_entropy(model(x3), labels).backward()
print("same gradient as in eval():", torch.equal(x3.grad, x.grad))
# --8<-- [end:no_cudnn]
