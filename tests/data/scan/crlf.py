import torch
x = torch.ones(1)
y = torch.zeros(2)
