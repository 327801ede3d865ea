import torch
# café
été = torch.ones(1); résumé = torch.zeros(été.shape)
