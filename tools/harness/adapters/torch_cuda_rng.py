"""torch_cuda_rng.py — harness adapter for the torch-cuda-rng golden family, run on a real GPU.

What it is for: where a CUDA GPU is present, recompute each torch-cuda-rng test with torch's
own CUDA kernels (default CUDA generator set to the test's seed and offset) and return the
same expected object (bits or sha256 + samples, new_offset), so the emulation in
lib/rng/torch_cuda_rng.c is checked against the hardware.  A test whose group profile (SM count,
max threads per SM) is not this GPU's is skipped (NotImplementedError) with the reason: the
launch geometry, hence the bits, depend on it.  Without CUDA the module does not import, and
run.py reports the family's adapter as unavailable with that reason.

Each test names the op row it models ("api", lib/offsets/rng_ops.c): the call made here is that
row's API, e.g. torch.nn.functional.dropout (which rejects p = -0.25 in Python, tcId 5)
rather than aten.native_dropout (which does not check p).

How it is tested: `python tools/harness/run.py --family torch-cuda-rng` on a GPU machine.
"""

import hashlib

import torch

if not torch.cuda.is_available():
    raise ImportError("torch.cuda is not available (no GPU or a CPU-only torch build): "
                      "torch-cuda-rng needs a GPU to be cross-checked")

FAMILY = "torch-cuda-rng"
# an oracle: every rejection must be torch's own (harnesslib.invalid_outcome)
ORACLE = "torch"

_DT = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
       "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32,
       "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool}
_BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _run(test):
    dt = _DT[test["dtype"]]
    shape = tuple(int(d) for d in test["shape"])
    p = test["params"]
    op = test["op"]
    gen = torch.cuda.default_generators[torch.cuda.current_device()]
    gen.manual_seed(int(test["seed"]))
    gen.set_offset(int(test["offset"]))
    x = torch.empty(shape, dtype=dt, device="cuda")
    mask = None
    if op == "uniform":
        x.uniform_(p.get("from", 0.0), p.get("to", 1.0))
    elif op == "normal":
        x.normal_(p.get("mean", 0.0), p.get("std", 1.0))
    elif op == "exponential":
        x.exponential_(p.get("lambd", 1.0))
    elif op == "log_normal":
        x.log_normal_(p.get("mean", 1.0), p.get("std", 2.0))
    elif op == "geometric":
        x.geometric_(p["p"])
    elif op == "cauchy":
        x.cauchy_(p.get("median", 0.0), p.get("sigma", 1.0))
    elif op == "bernoulli":
        x.bernoulli_(p.get("p", 0.5))
    elif op == "random":
        if "from" in p:
            x.random_(int(p["from"]), int(p["to"]))
        else:
            x.random_()
    elif op == "dropout" and test.get("api") == "dropout":
        # torch.nn.functional.dropout: checks p in Python, then (CUDA, 0 < p < 1, numel > 0)
        # runs native_dropout; it returns no mask
        x = torch.nn.functional.dropout(torch.ones(shape, dtype=dt, device="cuda"),
                                        p.get("p", 0.5), training=True)
    elif op == "dropout":
        x, mask = torch.ops.aten.native_dropout(torch.ones(shape, dtype=dt, device="cuda"),
                                                p.get("p", 0.5), True)
    elif op in ("bernoulli_tensor", "multinomial", "randperm"):
        x = sample_call(test, "cuda")
    torch.cuda.synchronize()
    return x, mask, gen.get_offset()


def sample_call(test, device):
    """The sampling ops (lib/rng/torch_cuda_sample.c) as the case's API calls them; the
    inputs are in params.  Also used on a CPU by the harness tests for the rejections."""
    p = test["params"]
    dt = _DT[test["dtype"]]
    shape = [int(d) for d in test["shape"]]
    api = test["api"]
    if test["op"] == "bernoulli_tensor":
        pt = torch.tensor(p["p_values"], dtype=_DT[p["p_dtype"]], device=device).reshape(
            [int(d) for d in p["p_shape"]])
        if api == "bernoulli":  # torch.bernoulli(p): self = empty_like(p), p broadcast
            return torch.bernoulli(pt.expand(shape))
        return torch.empty(shape, dtype=dt, device=device).bernoulli_(pt)
    if test["op"] == "multinomial":
        w = torch.tensor(p["weights"], dtype=dt, device=device).reshape(shape)
        return torch.multinomial(w, int(p["n_sample"]), bool(p["replacement"]))
    return torch.randperm(int(p["n"]), dtype=dt, device=device)


def _bytes(t):
    t = t.contiguous().reshape(-1)
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    return t.view(_BITS[t.element_size()]).cpu().numpy().astype(
        "<u%d" % t.element_size()).tobytes()


def compute(group, test):
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    if (props.multi_processor_count, props.max_threads_per_multi_processor) != \
            (group["smCount"], group["maxThreadsPerSM"]):
        raise NotImplementedError("profile %s is not this GPU (%d SMs x %d threads)" % (
            group["gpu"], props.multi_processor_count, props.max_threads_per_multi_processor))
    x, mask, new_offset = _run(test)
    raw = _bytes(x)
    sz = x.element_size()
    n = x.numel()
    words = ["%0*x" % (2 * sz, int.from_bytes(raw[i * sz:(i + 1) * sz], "little"))
             for i in range(n)] if n <= 16 else None
    out = {"new_offset": str(new_offset)}
    if words is not None:
        out["bits"] = words
        return out
    idx = [0, 1, 2, 3, n // 3, n // 2, n - 2, n - 1]
    if n <= (64 << 20):
        out["sha256"] = hashlib.sha256(raw).hexdigest()
        if mask is not None:
            out["mask_sha256"] = hashlib.sha256(_bytes(mask)).hexdigest()
    out["samples"] = {"index": [str(i) for i in idx],
                      "bits": ["%0*x" % (2 * sz, int.from_bytes(raw[i * sz:(i + 1) * sz], "little"))
                               for i in idx]}
    return out
