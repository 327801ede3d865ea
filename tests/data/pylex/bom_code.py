import torch; x = torch.zeros(1)
if x:
    y = f"{x}"
