import torch
from torch.cuda.amp import GradScaler, autocast
import torch.distributed as dist

device = "cuda"
scaler = GradScaler()
dist.init_process_group(backend="nccl")
model = torch.compile(torch.nn.Linear(2, 2), mode="max-autotune", dynamic=True)
x = torch.randn(3, dtype=torch.float64).to("cuda:0")
with autocast():
    y = model(x.double())
torch.cuda.synchronize()
torch.backends.cudnn.benchmark = True
