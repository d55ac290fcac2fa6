"""The RMSNorm benchmarks' shape lists: "M,N,DTYPE;..." with DTYPE one of
f32, f16, bf16, read the same way from an environment variable
(rmsnorm_torch_compare.py) or a flag (host_overhead.py)."""
import torch

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def parse_rmsnorm_shapes(text, source):
    """[(M, N, dtype name)] from `text`; a malformed item is a ValueError
    naming `source` (the variable or flag it came from) and the item."""
    shapes = []
    for item in filter(None, (s.strip() for s in text.split(";"))):
        parts = [p.strip() for p in item.split(",")]
        if (len(parts) != 3 or not parts[0].isdigit() or
                not parts[1].isdigit() or int(parts[0]) < 1 or
                int(parts[1]) < 1):
            raise ValueError(f"{source}: {item!r} is not M,N,DTYPE with M "
                             "and N positive")
        if parts[2] not in DTYPES:
            raise ValueError(f"{source}: unknown dtype {parts[2]!r} in "
                             f"{item!r}")
        shapes.append((int(parts[0]), int(parts[1]), parts[2]))
    return shapes
