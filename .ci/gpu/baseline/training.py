#!/usr/bin/env python3
"""There (the GPU machine): time PyTorch's own kernels for the operations of
Part VIII (training), the baselines its chapters are measured against, and
write results/baselines/torch-<op>-<gpu>.json.

    python3 .ci/gpu/baseline/training.py [OP ...]     (default: every one below)

Each operation runs at the sizes of its chapter's benchmarks, in FP32, timed
as `runner bench` times a kernel (common.timed: warm-up calls, then CUDA
events around each of 50 calls, the median). Its output is checked against
the same operation in FP64 on the same inputs.

  softmax_backward    torch._softmax_backward_data, what autograd runs
                      for torch.softmax                          (Puzzle 41)
  layernorm_backward  aten.native_layer_norm_backward with the forward's
                      saved mean and rstd: dx, dgamma and dbeta  (Puzzle 42)
  cross_entropy       F.cross_entropy(reduction="sum") forward and its
                      gradient in the logits, through autograd   (Puzzle 43)
  *_compiled          the first three through torch.compile (Inductor's
                      generated kernels), one file each: the fastest
                      PyTorch has may be either
  adamw               torch.optim.AdamW(fused=True).step() on one tensor
                                                                 (Puzzle 44)
  attention_backward  SDPA's backward in BF16 (autograd.grad of its output),
                      each of its backends alone: flash, cuDNN and
                      memory-efficient, one file each; the one PyTorch
                      picks by default says so             (Puzzle 45)

Each is timed on the runner's bench inputs of the puzzle it is compared
with, at that size (`runner inputs`, through common.runner_inputs): uniform
in [-4, 4) with full mantissas, scaled or moved as the spec says (the
cross-entropy's logits in [96, 104), AdamW's second moment in [0, 8),
attention's queries and keys in [-2, 2)), rounded to the spec's type, and
integer targets as the spec draws them: the same bytes the book's kernel is
timed on, so a page puts the two side by side. Where the library takes
something the kernel does not (LayerNorm's beta), that is drawn here, and
said so where it is.

The bytes recorded are the fewest each operation must move, counted as the
book counts its kernels' (each input read once, each output written once),
so that the rates compare.
"""
import sys

import common

torch = common.require_torch("time its kernels")
F = torch.nn.functional

SAMPLES, WARMUP = 50, 5
# (rows, cols): the `bench` sizes of Puzzle 41's and 42's specs.
SOFTMAX_SIZES = [(8192, 4096), (32768, 1024)]
LAYER_NORM_SIZES = [(8192, 4096)]
# (rows, vocab): Puzzle 43's `bench` size.
CROSS_ENTROPY_SIZES = [(4096, 32768)]
# Parameters: Puzzle 44's `bench` size.
ADAMW_SIZES = [1 << 26]
# (batch, heads, seq, dim): Puzzle 45's `bench` size, its 64 heads a batch of 4 x 16.
ATTENTION_SIZES = [(4, 16, 4096, 128)]
# AdamW's settings in Puzzle 44's spec (PyTorch's defaults, weight decay 0.01).
LR, BETAS, EPS, WEIGHT_DECAY = 1e-3, (0.9, 0.999), 1e-8, 1e-2


def timed(call):
    return common.timed(call, SAMPLES, WARMUP)


def uniform(gen, *shape):
    return torch.rand(*shape, device="cuda", generator=gen) * 8 - 4


def maybe_compiled(fn, compiled):
    """`fn` as it is (eager: one library kernel a call) or through
    torch.compile (Inductor's generated kernels), compiled on its first call,
    which `timed` makes among its warm-up calls."""
    return torch.compile(fn, dynamic=False) if compiled else fn


def named(name, compiled):
    return f"{name}_compiled" if compiled else name


def softmax_backward_case(rows, cols, compiled=False):
    # Both of Puzzle 41's steps take [out, y, dy, cols]: the second's inputs.
    # Its y is uniform, not a softmax's output: the backward's formula,
    # y * (dy - sum(y * dy)), is the same work on any y.
    inp = common.runner_inputs(torch, "p41_softmax_backward_registers", ROWS=rows, COLS=cols)
    y, dy = inp["y"], inp["dy"]
    backward = maybe_compiled(
        lambda dy, y: torch._softmax_backward_data(dy, y, 1, torch.float32), compiled
    )
    call = lambda: backward(dy, y)
    yd, dyd = y.double(), dy.double()
    exact = yd * (dyd - (yd * dyd).sum(dim=1, keepdim=True))
    return {
        "name": named("softmax_backward", compiled),
        "constants": {"ROWS": rows, "COLS": cols},
        "bytes": 3 * 4 * rows * cols,
        "timing": timed(call),
        "max_relative_error": common.relative_error(call(), exact),
        **inp.stamp(),
    }


def layer_norm_backward_case(rows, cols, compiled=False):
    inp = common.runner_inputs(torch, "p42_layernorm_backward", ROWS=rows, COLS=cols)
    x, dy, gamma = inp["x"], inp["dy"], inp["gamma"]
    # The kernel takes no beta (no gradient depends on it), but PyTorch's
    # forward and backward take one: drawn here, uniform in [-4, 4) as before.
    gen = torch.Generator(device="cuda").manual_seed(rows * cols + 42)
    beta = uniform(gen, cols)
    # The forward's saved mean and rstd, made outside the timed call (the
    # kernel works them out itself, from x).
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, (cols,), gamma, beta, 1e-5)
    mask = [True, True, True]
    backward = maybe_compiled(
        lambda dy, x, mean, rstd, gamma, beta: torch.ops.aten.native_layer_norm_backward(
            dy, x, (cols,), mean, rstd, gamma, beta, mask
        ),
        compiled,
    )
    call = lambda: backward(dy, x, mean, rstd, gamma, beta)
    # The three gradients in FP64, through autograd on FP64 copies.
    xd = x.double().requires_grad_()
    gd, bd = gamma.double().requires_grad_(), beta.double().requires_grad_()
    F.layer_norm(xd, (cols,), gd, bd, eps=1e-5).backward(dy.double())
    got = call()
    error = max(common.relative_error(g, e) for g, e in zip(got, (xd.grad, gd.grad, bd.grad)))
    return {
        "name": named("layernorm_backward", compiled),
        "constants": {"ROWS": rows, "COLS": cols},
        # x and dy read, dx written; gamma read, dgamma and dbeta written.
        "bytes": 4 * (3 * rows * cols + 3 * cols),
        "timing": timed(call),
        "max_relative_error": error,
        **inp.stamp(),
    }


def cross_entropy_case(rows, vocab, compiled=False):
    inp = common.runner_inputs(torch, "p43_cross_entropy", ROWS=rows, VOCAB=vocab)
    logits = inp["logits"].requires_grad_()
    # The spec's targets are u32; F.cross_entropy takes int64 alone. They
    # are all below VOCAB, so the int32 view has the same values, widened
    # once here, outside the timed call.
    targets = inp["targets"].view(torch.int32).long()

    # Compiled, the forward and the backward graphs are both Inductor's.
    loss_of = maybe_compiled(lambda x: F.cross_entropy(x, targets, reduction="sum"), compiled)

    def call():
        return torch.autograd.grad(loss_of(logits), logits)[0]

    exact_logits = logits.detach().double().requires_grad_()
    F.cross_entropy(exact_logits, targets, reduction="sum").backward()
    exact_loss = F.cross_entropy(exact_logits.detach(), targets, reduction="none")
    loss = F.cross_entropy(logits.detach(), targets, reduction="none")
    error = max(
        common.relative_error(call(), exact_logits.grad),
        common.relative_error(loss, exact_loss),
    )
    return {
        "name": named("cross_entropy", compiled),
        "constants": {"ROWS": rows, "VOCAB": vocab},
        # The logits and the targets (the book's are 4-byte) read, the
        # gradient and the rows' losses written.
        "bytes": 4 * (2 * rows * vocab + 2 * rows),
        "timing": timed(call),
        "max_relative_error": error,
        **inp.stamp(),
    }


def adamw_case(size):
    inp = common.runner_inputs(torch, "p44_adamw", SIZE=size)
    # A copy: the optimizer steps its parameter in place, and the spec's
    # stays as it was for the step below.
    param = torch.nn.Parameter(inp["param"].clone())
    param.grad = inp["grad"]
    opt = torch.optim.AdamW(
        [param], lr=LR, betas=BETAS, eps=EPS, weight_decay=WEIGHT_DECAY, fused=True
    )
    # A first step makes the optimizer's state; then the parameter and the
    # moments are set to the spec's and the step count to 9, so that the
    # next step is the kernel's (step 10), on its inputs, checked against
    # the formula in FP64.
    opt.step()
    state = opt.state[param]
    param.data.copy_(inp["param"])
    state["exp_avg"].copy_(inp["m"])
    state["exp_avg_sq"].copy_(inp["v"])
    state["step"].fill_(9)
    p0, g = param.detach().double(), param.grad.double()
    m0, v0 = state["exp_avg"].double(), state["exp_avg_sq"].double()
    opt.step()
    (b1, b2), step = BETAS, 10
    m1, v1 = b1 * m0 + (1 - b1) * g, b2 * v0 + (1 - b2) * g * g
    exact = p0 * (1 - LR * WEIGHT_DECAY) - LR * (m1 / (1 - b1**step)) / (
        (v1 / (1 - b2**step)).sqrt() + EPS
    )
    error = max(
        common.relative_error(param.detach(), exact),
        common.relative_error(state["exp_avg"], m1),
        common.relative_error(state["exp_avg_sq"], v1),
    )
    return {
        "name": "adamw",
        "constants": {"SIZE": size},
        # Parameters, gradients and both moments read; parameters and both
        # moments written.
        "bytes": 7 * 4 * size,
        # In place, each timed step goes on from the one before: the values
        # move by about lr a step, and the work is the same.
        "timing": timed(opt.step),
        "max_relative_error": error,
        **inp.stamp(),
    }


def attention_backward_case(batch, heads, seq, dim, backend, name):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    # Both of Puzzle 45's forms take the same arguments: the first's inputs
    # (queries and keys in [-2, 2), values and dout in [-4, 4), BF16).
    inp = common.runner_inputs(torch, "p45_attention_backward", HEADS=batch * heads, SEQ=seq, DIM=dim)
    # [HEADS, SEQ, DIM], row-major: SDPA's [batch, heads, SEQ, DIM] with
    # HEADS = batch x heads, as a view; detached, a leaf autograd can
    # differentiate against.
    shaped = lambda n: inp[n].view(batch, heads, seq, dim)
    q, k, v = (shaped(n).detach().requires_grad_() for n in ("q", "k", "v"))
    dout = shaped("dout")
    sdpa = F.scaled_dot_product_attention
    with sdpa_kernel([getattr(SDPBackend, backend)]):
        out = sdpa(q, k, v)
        # The backward alone: the forward's output and saved statistics stay.
        call = lambda: torch.autograd.grad(out, (q, k, v), dout, retain_graph=True)
        timing = timed(call)
        got = call()
    # The FP64 gradients a batch element at a time (the math backend).
    error = 0.0
    for b in range(batch):
        exact_in = [t[b].detach().double().requires_grad_() for t in (q, k, v)]
        exact_out = sdpa(*exact_in)
        exact = torch.autograd.grad(exact_out, exact_in, dout[b].double())
        for g, e in zip(got, exact):
            error = max(error, common.relative_error(g[b], e))
    return {
        "name": f"attention_backward_{name}",
        "constants": {"HEADS": batch * heads, "SEQ": seq, "DIM": dim},
        # FlashAttention's count: five products of 2·seq²·dim, or 2.5 forwards.
        "flops": 10 * batch * heads * seq * seq * dim,
        "timing": timing,
        "max_relative_error": error,
        **inp.stamp(),
    }


def attention_backward():
    # The backend PyTorch picks for Puzzle 45's inputs, with gradients (as
    # the backward's own choice is made).
    x = torch.zeros(*ATTENTION_SIZES[0], device="cuda", dtype=torch.bfloat16, requires_grad=True)
    default = common.default_sdpa_backend(x, x, x)
    for backend, name, label in [
        ("FLASH_ATTENTION", "flash", "flash"),
        ("CUDNN_ATTENTION", "cudnn", "cuDNN"),
        ("EFFICIENT_ATTENTION", "efficient", "memory-efficient"),
    ]:
        write(
            f"sdpa-backward-{name}-bf16",
            f"SDPA's backward, BF16 ({label} backend"
            + ("; PyTorch's default on this GPU)" if backend == default else ")"),
            [attention_backward_case(*size, backend, name) for size in ATTENTION_SIZES],
            tolerance=2e-2,
        )


def write(op, library, cases, tolerance=1e-5):
    common.write_cases(torch, op, library, cases, tolerance)
    # The cases' tensors are gone; their memory goes back before the next op.
    torch.cuda.empty_cache()


OPS = {
    "softmax_backward": lambda: write(
        "softmax-backward",
        "torch._softmax_backward_data (FP32)",
        [softmax_backward_case(r, c) for r, c in SOFTMAX_SIZES],
    ),
    "layernorm_backward": lambda: write(
        "layernorm-backward",
        "aten.native_layer_norm_backward (FP32)",
        [layer_norm_backward_case(r, c) for r, c in LAYER_NORM_SIZES],
    ),
    "cross_entropy": lambda: write(
        "cross-entropy",
        "F.cross_entropy forward and backward (FP32)",
        [cross_entropy_case(r, v) for r, v in CROSS_ENTROPY_SIZES],
    ),
    # The same operations through torch.compile: the fastest PyTorch has
    # for them may be Inductor's fused kernels, not the eager library's.
    "softmax_backward_compiled": lambda: write(
        "softmax-backward-compiled",
        "torch.compile of torch._softmax_backward_data (Inductor, FP32)",
        [softmax_backward_case(r, c, compiled=True) for r, c in SOFTMAX_SIZES],
    ),
    "layernorm_backward_compiled": lambda: write(
        "layernorm-backward-compiled",
        "torch.compile of aten.native_layer_norm_backward (Inductor, FP32)",
        [layer_norm_backward_case(r, c, compiled=True) for r, c in LAYER_NORM_SIZES],
    ),
    "cross_entropy_compiled": lambda: write(
        "cross-entropy-compiled",
        "torch.compile of F.cross_entropy, forward and backward (Inductor, FP32)",
        [cross_entropy_case(r, v, compiled=True) for r, v in CROSS_ENTROPY_SIZES],
    ),
    "adamw": lambda: write(
        "adamw",
        "torch.optim.AdamW(fused=True).step (FP32)",
        [adamw_case(n) for n in ADAMW_SIZES],
    ),
    "attention_backward": attention_backward,
}
wanted = sys.argv[1:] or list(OPS)
unknown = [op for op in wanted if op not in OPS]
if unknown:
    sys.exit(f"no such operation: {', '.join(unknown)} (known: {', '.join(OPS)})")
for op in wanted:
    OPS[op]()
