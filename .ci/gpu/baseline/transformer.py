#!/usr/bin/env python3
"""There (the GPU machine): time PyTorch's own kernels for the operations of
Part V (the kernels of a transformer), the baselines its chapters are
measured against, and write results/baselines/torch-<op>-<gpu>.json.

    python3 .ci/gpu/baseline/transformer.py [OP ...]     (default: every one below)

Each operation runs at the sizes of its chapter's benchmarks, in FP32, timed
like `runner bench` times a kernel: warm-up calls, then CUDA events around
each of 50 calls, the median. Its inputs are the runner's bench inputs of the
puzzle it is compared with, at that size (`runner inputs`, through
common.runner_inputs): the same bytes the book's kernel is timed on, so a
page puts the two side by side. Its output is checked against the same
operation in FP64 on the same inputs; the error recorded is the largest
difference over the largest output.

  softmax        torch.softmax(x, dim=1), rows x cols   (p28_softmax_registers)
  layernorm      F.layer_norm(x, (cols,), gamma, beta)           (p29_layernorm)
  add_layernorm  F.layer_norm(x + r, ...), eager: two kernels
                                                       (p29_add_layernorm_fused)
  rmsnorm        F.rms_norm(x, (cols,), gamma)                     (p29_rmsnorm)
  bias_gelu_scale  F.gelu(x + b, approximate="tanh") * s, eager
                                                               (p30_chain_fused)
  embedding      F.embedding(ids, table), the spec's random ids
                                                           (p32_embedding_quads)
  attention      F.scaled_dot_product_attention, FP32 (its memory-efficient
                 backend: flash takes no FP32; p31_attention_fused), and BF16
                 restricted to each of its backends alone: flash, cuDNN and
                 memory-efficient, one file each, the targets of a
                 tensor-core kernel (p36_attention_pingpong, whose q, k and v
                 every step of Puzzle 36 shares); the one PyTorch picks by
                 default says so
  attention_causal  the same in BF16, causal, flash and cuDNN
                                                          (p36_attention_causal)

The inputs are uniform in [-4, 4) with full mantissas (BF16 ones rounded to
BF16), but for the softmax's: logits near 100 (uniform in [96, 104)), as in
the chapter, so that a softmax that did not subtract each row's maximum
would return NaN here. Where several puzzles are compared with one case,
the one named takes its inputs in the same places as the others, or is the
chapter's headline step where they differ.
"""
import sys

import common

torch = common.require_torch("time its kernels")

SAMPLES, WARMUP = 50, 5
# (rows, cols): the `bench` sizes of Puzzle 28's specs.
SOFTMAX_SIZES = [(8192, 4096), (32768, 1024), (61440, 128)]
# The `bench` size of Puzzle 29's and Puzzle 30's specs.
LAYER_NORM_SIZES = [(8192, 4096)]
CHAIN_SIZES = [(8192, 4096)]
# (tokens, vocab, dim): Puzzle 32's `bench` size.
EMBEDDING_SIZES = [(16384, 4096, 4096)]
# (batch, heads, seq, dim): Puzzle 31's `bench` sizes, its 64 heads a batch of 4 x 16.
ATTENTION_SIZES = [(4, 16, 4096, 128), (1, 16, 4096, 128)]


def timed(call):
    return common.timed(call, SAMPLES, WARMUP)


def softmax_case(rows, cols):
    # Puzzle 28's four steps take their one input, `a`, in the same place.
    inp = common.runner_inputs(torch, "p28_softmax_registers", ROWS=rows, COLS=cols)
    x = inp["a"]
    # The operation alone, as a model calls it (it allocates its output; the
    # caching allocator makes that free after the first call).
    timing = timed(lambda: torch.softmax(x, dim=1))
    y = torch.softmax(x, dim=1)
    error = common.relative_error(y, torch.softmax(x.double(), dim=1))
    return {
        "name": "softmax",
        "constants": {"ROWS": rows, "COLS": cols},
        "bytes": 2 * 4 * rows * cols,
        "timing": timing,
        "max_relative_error": error,
        **inp.stamp(),
    }


def layer_norm_case(rows, cols, residual):
    if residual:
        # The fused step's inputs; the unfused one's (its scratch `h` comes
        # first) are others, so it is not compared.
        inp = common.runner_inputs(torch, "p29_add_layernorm_fused", ROWS=rows, COLS=cols)
        x, r = inp["x"], inp["r"]
    else:
        inp = common.runner_inputs(torch, "p29_layernorm", ROWS=rows, COLS=cols)
        x = inp["a"]
    gamma, beta = inp["gamma"], inp["beta"]
    norm = torch.nn.functional.layer_norm
    if residual:
        call = lambda: norm(x + r, (cols,), gamma, beta, eps=1e-5)
        exact = norm((x + r).double(), (cols,), gamma.double(), beta.double(), eps=1e-5)
        # The fewest bytes (read x and r, write the output), as the book's
        # kernels are counted, so the rates compare; eager mode moves 5/3 of it.
        moved = 3 * 4 * rows * cols
    else:
        call = lambda: norm(x, (cols,), gamma, beta, eps=1e-5)
        exact = norm(x.double(), (cols,), gamma.double(), beta.double(), eps=1e-5)
        moved = 2 * 4 * rows * cols
    timing = timed(call)
    return {
        "name": "add_layernorm" if residual else "layernorm",
        "constants": {"ROWS": rows, "COLS": cols},
        "bytes": moved,
        "timing": timing,
        "max_relative_error": common.relative_error(call(), exact),
        **inp.stamp(),
    }


def rms_norm_case(rows, cols):
    inp = common.runner_inputs(torch, "p29_rmsnorm", ROWS=rows, COLS=cols)
    x, gamma = inp["a"], inp["gamma"]
    norm = torch.nn.functional.rms_norm
    call = lambda: norm(x, (cols,), gamma, eps=1e-5)
    exact = norm(x.double(), (cols,), gamma.double(), eps=1e-5)
    return {
        "name": "rmsnorm",
        "constants": {"ROWS": rows, "COLS": cols},
        "bytes": 2 * 4 * rows * cols,
        "timing": timed(call),
        "max_relative_error": common.relative_error(call(), exact),
        **inp.stamp(),
    }


def chain_case(rows, cols):
    # The fused step's inputs; the unfused one's (its scratch `t1` and `t2`
    # come first) are others, so it is not compared.
    inp = common.runner_inputs(torch, "p30_chain_fused", ROWS=rows, COLS=cols)
    x, b, s = inp["x"], inp["bias"], inp["scale"]
    gelu = torch.nn.functional.gelu
    call = lambda: gelu(x + b, approximate="tanh") * s
    exact = gelu(x.double() + b.double(), approximate="tanh") * s.double()
    return {
        "name": "bias_gelu_scale",
        "constants": {"ROWS": rows, "COLS": cols},
        # The fewest bytes (read x, write the output), as the book counts them.
        "bytes": 2 * 4 * rows * cols,
        "timing": timed(call),
        "max_relative_error": common.relative_error(call(), exact),
        **inp.stamp(),
    }


def embedding_case(tokens, vocab, dim):
    # Both of Puzzle 32's steps take [out, table, ids, tokens]: one set of
    # inputs, the last step's.
    inp = common.runner_inputs(torch, "p32_embedding_quads", TOKENS=tokens, VOCAB=vocab, DIM=dim)
    table = inp["table"]
    # The spec's ids are u32, which F.embedding does not take; they are all
    # below VOCAB, so read as int32 (a view, no copy) they are the same ids.
    ids = inp["ids"].view(torch.int32)
    call = lambda: torch.nn.functional.embedding(ids, table)
    exact = table.double()[ids.long()]
    return {
        "name": "embedding",
        "constants": {"TOKENS": tokens, "VOCAB": vocab, "DIM": dim},
        # The fewest bytes as the book counts them: the table once, the
        # ids (as the kernels' 4-byte ids), the output once.
        "bytes": 4 * (vocab * dim + tokens + tokens * dim),
        "timing": timed(call),
        "max_relative_error": common.relative_error(call(), exact),
        **inp.stamp(),
    }


def attention_case(batch, heads, seq, dim, puzzle, backend, name, causal=False):
    """SDPA on `puzzle`'s bench inputs (in its spec's type), restricted to
    `backend` (SDPBackend's member name), recorded as the case `name`;
    `causal`, each query sees the keys up to its own."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    inp = common.runner_inputs(torch, puzzle, HEADS=batch * heads, SEQ=seq, DIM=dim)
    # The spec's q, k and v are [HEADS, SEQ, DIM], row-major: the same bytes
    # as SDPA's [batch, heads, SEQ, DIM] with HEADS = batch x heads (a view).
    q, k, v = (inp[n].view(batch, heads, seq, dim) for n in ("q", "k", "v"))
    sdpa = torch.nn.functional.scaled_dot_product_attention
    with sdpa_kernel([getattr(SDPBackend, backend)]):
        call = lambda: sdpa(q, k, v, is_causal=causal)
        timing = timed(call)
        got = call()
    # The FP64 answer a head group at a time: its score matrices are 128 MiB each.
    error = 0.0
    scale = 0.0
    for b in range(batch):
        exact = sdpa(q[b].double(), k[b].double(), v[b].double(), is_causal=causal)
        error = max(error, (got[b].double() - exact).abs().max().item())
        scale = max(scale, exact.abs().max().item())
    return {
        "name": name,
        "constants": {"HEADS": batch * heads, "SEQ": seq, "DIM": dim},
        # Causal attention does half the products (the book's specs count it so).
        "flops": (2 if causal else 4) * batch * heads * seq * seq * dim,
        "timing": timing,
        "max_relative_error": error / scale,
        **inp.stamp(),
    }


def bf16_shaped(batch, heads, seq, dim):
    """Zeros shaped as the BF16 inputs: the backend SDPA picks depends on
    the shape and type, not the values."""
    return torch.zeros(batch, heads, seq, dim, device="cuda", dtype=torch.bfloat16)


def attention():
    # Puzzle 31's fused step, the last; its three kernels (`s` comes before
    # q, k and v) take other inputs, and are not compared.
    write(
        "sdpa",
        "SDPA, FP32 (memory-efficient backend)",
        [
            attention_case(*size, "p31_attention_fused", "EFFICIENT_ATTENTION", "attention")
            for size in ATTENTION_SIZES
        ],
    )
    # The backend PyTorch picks for the BF16 inputs at the headline size,
    # without gradients (a forward's own choice): a page compares against
    # each backend, and should know which one a model gets by default.
    x = bf16_shaped(*ATTENTION_SIZES[0])
    default = common.default_sdpa_backend(x, x, x)
    print(f"SDPA's default backend for BF16 on {torch.cuda.get_device_name()}: {default}")
    # Flash's case keeps its first name, `attention_bf16`, which older pages name.
    for backend, op, label, name in [
        ("FLASH_ATTENTION", "sdpa-flash-bf16", "flash", "attention_bf16"),
        ("CUDNN_ATTENTION", "sdpa-cudnn-bf16", "cuDNN", "attention_bf16_cudnn"),
        ("EFFICIENT_ATTENTION", "sdpa-efficient-bf16", "memory-efficient", "attention_bf16_efficient"),
    ]:
        # BF16 rounds q, k and v to 8 bits of mantissa: judged against FP64
        # of the same rounded inputs, within BF16's own precision.
        write(
            op,
            f"SDPA, BF16 ({label} backend"
            + ("; PyTorch's default on this GPU)" if backend == default else ")"),
            [
                attention_case(*size, "p36_attention_pingpong", backend, name)
                for size in ATTENTION_SIZES
            ],
            tolerance=1e-2,
        )


def attention_causal():
    """The causal forms in BF16, on the backends that have one fast: flash
    and cuDNN (the memory-efficient backend is slower than both already)."""
    x = bf16_shaped(*ATTENTION_SIZES[0])
    default = common.default_sdpa_backend(x, x, x, is_causal=True)
    print(f"SDPA's default causal backend for BF16 on {torch.cuda.get_device_name()}: {default}")
    for backend, op, label, name in [
        ("FLASH_ATTENTION", "sdpa-flash-bf16-causal", "flash", "attention_causal_bf16"),
        ("CUDNN_ATTENTION", "sdpa-cudnn-bf16-causal", "cuDNN", "attention_causal_bf16_cudnn"),
    ]:
        write(
            op,
            f"SDPA, BF16, causal ({label} backend"
            + ("; PyTorch's default on this GPU)" if backend == default else ")"),
            [
                attention_case(*size, "p36_attention_causal", backend, name, causal=True)
                for size in ATTENTION_SIZES
            ],
            tolerance=1e-2,
        )


def write(op, library, cases, tolerance=1e-5):
    common.write_cases(torch, op, library, cases, tolerance)
    # The cases' tensors are gone; their memory goes back before the next op.
    torch.cuda.empty_cache()


OPS = {
    "softmax": lambda: write(
        "softmax", "torch.softmax (FP32)", [softmax_case(r, c) for r, c in SOFTMAX_SIZES]
    ),
    "layernorm": lambda: write(
        "layernorm",
        "torch.nn.functional.layer_norm (FP32)",
        [layer_norm_case(r, c, False) for r, c in LAYER_NORM_SIZES],
    ),
    "add_layernorm": lambda: write(
        "add-layernorm",
        "x + r, then layer_norm, eager (FP32)",
        [layer_norm_case(r, c, True) for r, c in LAYER_NORM_SIZES],
    ),
    "rmsnorm": lambda: write(
        "rmsnorm",
        "torch.nn.functional.rms_norm (FP32)",
        [rms_norm_case(r, c) for r, c in LAYER_NORM_SIZES],
    ),
    "bias_gelu_scale": lambda: write(
        "bias-gelu-scale",
        "gelu(x + b, approximate=tanh) * s, eager (FP32)",
        [chain_case(r, c) for r, c in CHAIN_SIZES],
    ),
    "embedding": lambda: write(
        "embedding",
        "torch.nn.functional.embedding (FP32)",
        [embedding_case(*size) for size in EMBEDDING_SIZES],
    ),
    "attention": attention,
    "attention_causal": attention_causal,
}
wanted = sys.argv[1:] or list(OPS)
unknown = [op for op in wanted if op not in OPS]
if unknown:
    sys.exit(f"no such operation: {', '.join(unknown)} (known: {', '.join(OPS)})")
for op in wanted:
    OPS[op]()
