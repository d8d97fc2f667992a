//! The wrong kernels of the `negative` group: learners' files that must be
//! rejected, each with its status, message and line (on its backend, and
//! WGSL's on the CPU checker too), and their near-twins that must pass.

use super::edits::Fixture;
use super::{
    RUNNER, expect, kind_for, lang_of, load, messages, root, run_on, trial, with_enough_gpus,
};
use libtest_mimic::{Failed, Trial};
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::judge::report::Status;
use puzzle_core::lang::Lang;
use std::path::Path;

/// Where a fixture's first diagnostic must point.
#[derive(Clone, Copy, Debug)]
pub(super) enum At {
    /// This line of a whole file, which cannot move.
    Line(usize),
    /// The line holding this text: an edit's lines move with the solution.
    Holding(&'static str),
}

impl At {
    fn line(self, fixture: &Fixture) -> Result<usize, Failed> {
        match self {
            At::Line(_) if fixture.edited => Err(format!(
                "{}: name an edit's line by its text (At::Holding), not its number",
                fixture.name
            )
            .into()),
            At::Line(line) => Ok(line),
            At::Holding(text) => fixture.line_holding(text),
        }
    }
}

/// A learner's file that must be rejected: (fixture, puzzle, status, message
/// part, line of the message). Those in [`ONLY_A_GPU_SHOWS`] show their
/// fault only when run on a GPU.
pub(super) const WRONG_KERNELS: &[(&str, &str, Status, &str, Option<At>)] = &[
    (
        "p03_no_guard.cu",
        "p03_guard",
        Status::Fail,
        "out-of-bounds write: `out` has 4 elements, but something wrote index 4, 5, 6, 7",
        None,
    ),
    (
        "p03_write_before_start.cu",
        "p03_guard",
        Status::Fail,
        "something wrote index -1",
        None,
    ),
    (
        "p01_endless_loop.cu",
        "p01_map",
        Status::Error,
        "did not finish within 5s",
        None,
    ),
    (
        "p01_illegal_address.cu",
        "p01_map",
        Status::Error,
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        None,
    ),
    (
        "p03_missing_param.cu",
        "p03_guard",
        Status::CompileError,
        "takes 2 parameter(s), but the spec passes 3",
        Some(At::Line(2)),
    ),
    (
        "p03_pointer_for_scalar.cu",
        "p03_guard",
        Status::CompileError,
        "should be the value `size` (unsigned int)",
        Some(At::Line(2)),
    ),
    (
        "p01_wrong_name.cu",
        "p01_map",
        Status::CompileError,
        "no kernel named `add_10`",
        Some(At::Line(1)),
    ),
    (
        "p03_no_guard.wgsl",
        "p03_guard",
        Status::Fail,
        "out-of-bounds write: `out` has 4 elements, but something wrote index 4, 5, 6, 7",
        None,
    ),
    (
        "p04_swapped_index.wgsl",
        "p04_map_2d",
        Status::Fail,
        "2 of 4 elements of `out` are wrong: out[0, 1], out[1, 0]",
        None,
    ),
    (
        "p01_syntax_error.wgsl",
        "p01_map",
        Status::CompileError,
        "`;` is missing at the end of this line",
        Some(At::Line(7)),
    ),
    (
        "p01_type_error.wgsl",
        "p01_map",
        Status::CompileError,
        "",
        Some(At::Line(8)),
    ),
    (
        "p01_wrong_name.wgsl",
        "p01_map",
        Status::CompileError,
        "no entry point `add_10`",
        Some(At::Line(1)),
    ),
    (
        "p01_workgroup_size.wgsl",
        "p01_map",
        Status::CompileError,
        "does not match the spec's block [4, 1, 1]",
        Some(At::Line(1)),
    ),
    (
        "p03_scalar_as_storage.wgsl",
        "p03_guard",
        Status::CompileError,
        "is the scalar `size`; declare it var<uniform>",
        Some(At::Line(4)),
    ),
    (
        "p01_read_only_output.wgsl",
        "p01_map",
        Status::CompileError,
        "declared read-only",
        Some(At::Line(2)),
    ),
    (
        "p01_syntax_error.cu",
        "p01_map",
        Status::CompileError,
        "identifier \"b\" is undefined",
        Some(At::Line(4)),
    ),
    (
        "p01_no_extern_c.cu",
        "p01_map",
        Status::CompileError,
        "without `extern \"C\"`",
        Some(At::Line(1)),
    ),
    // Part II: mistakes learners of the peer books reported.
    // `out[0] +=` on the poisoned output: NaN. Where the hardware keeps the
    // NaN's payload (x86) it reads as never written; elsewhere as wrong (nan).
    // Either way the report names out[0] and says where a NaN comes from.
    // Where the CPU checker judges (lavapipe, sim) it saw the store, so it
    // says the value was computed from the poison; a GPU says NaN is wrong.
    // Both name the `+=` that read out[i] first.
    (
        "p10_dot_every_thread_adds.wgsl",
        "p10_dot",
        Status::Fail,
        "`out[i] += …` reads out[i]",
        None,
    ),
    (
        "p10_dot_every_thread_adds.cu",
        "p10_dot",
        Status::Fail,
        "`out[i] += …` reads out[i]",
        None,
    ),
    (
        "p11_conv_blocks_no_halo.wgsl",
        "p11_conv_blocks",
        Status::Fail,
        "3 of 15 elements of `out` are wrong: out[5], out[6], out[7]",
        None,
    ),
    (
        "p11_conv_blocks_no_halo.cu",
        "p11_conv_blocks",
        Status::Fail,
        "3 of 15 elements of `out` are wrong: out[5], out[6], out[7]",
        None,
    ),
    (
        "p11_conv_2d_no_corner.wgsl",
        "p11_conv_2d",
        Status::Fail,
        "4 of 192 elements of `out` are wrong",
        None,
    ),
    // Reads past the end of `b` land in its guard band (NaN): every output is NaN.
    (
        "p14_matmul_tiled_no_bounds.wgsl",
        "p14_matmul_tiled",
        Status::Fail,
        "a read past the end of an input",
        None,
    ),
    (
        "p14_matmul_tiled_no_bounds.cu",
        "p14_matmul_tiled",
        Status::Fail,
        "a read past the end of an input",
        None,
    ),
    (
        "p14_matmul_transposed.wgsl",
        "p14_matmul_naive",
        Status::Fail,
        "3 of 4 elements of `out` are wrong: out[0, 0], out[1, 0], out[1, 1]",
        None,
    ),
    (
        "p14_matmul_transposed.cu",
        "p14_matmul_naive",
        Status::Fail,
        "3 of 4 elements of `out` are wrong: out[0, 0], out[1, 0], out[1, 1]",
        None,
    ),
    (
        "p12_scan_own_total.wgsl",
        "p12_scan_two_kernels",
        Status::Fail,
        "15 of 15 elements of `out` are wrong",
        None,
    ),
    (
        "p12_scan_own_total.cu",
        "p12_scan_two_kernels",
        Status::Fail,
        "15 of 15 elements of `out` are wrong",
        None,
    ),
    (
        "p04_map_2d_view_mixed_layouts.cu",
        "p04_map_2d_view",
        Status::Fail,
        "2 of 4 elements of `out` are wrong: out[0, 1], out[1, 0]",
        None,
    ),
    // Right sums, too many global reads: the bound fails it at the third read
    // (on wgpu through the CPU checker's counts). The twin is in WITHIN_BOUNDS.
    (
        "p09_pooling_global_neighbours.wgsl",
        "p09_pooling",
        Status::Fail,
        "read global memory 3 times; this puzzle allows 2 reads per thread",
        Some(At::Line(24)),
    ),
    // Part V's softmax: logits near 100, whose plain exp overflows a float.
    (
        "p28_softmax_no_max.wgsl",
        "p28_softmax_three_pass",
        Status::Fail,
        "160 of 160 elements of `out` are wrong",
        None,
    ),
    (
        "p28_softmax_no_max.cu",
        "p28_softmax_three_pass",
        Status::Fail,
        "160 of 160 elements of `out` are wrong",
        None,
    ),
    // The threads' sums added against different maxima.
    (
        "p28_softmax_online_no_rescale.wgsl",
        "p28_softmax_online",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    (
        "p28_softmax_online_no_rescale.cu",
        "p28_softmax_online",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // Part VIII: a softmax's gradient without the row's dot product.
    (
        "p41_softmax_backward_no_dot.wgsl",
        "p41_softmax_backward",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    (
        "p41_softmax_backward_no_dot.cu",
        "p41_softmax_backward",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // LayerNorm's backward counting the zeros past a row's end as deviations.
    (
        "p42_layernorm_backward_deviations_past_the_end.wgsl",
        "p42_layernorm_backward",
        Status::Fail,
        "elements of `dx` are wrong",
        None,
    ),
    (
        "p42_layernorm_backward_deviations_past_the_end.cu",
        "p42_layernorm_backward",
        Status::Fail,
        "elements of `dx` are wrong",
        None,
    ),
    // The cross-entropy's exponentials left at each thread's own maximum.
    (
        "p43_cross_entropy_no_rescale.wgsl",
        "p43_cross_entropy",
        Status::Fail,
        "elements of `dlogits` are wrong",
        None,
    ),
    (
        "p43_cross_entropy_no_rescale.cu",
        "p43_cross_entropy",
        Status::Fail,
        "elements of `dlogits` are wrong",
        None,
    ),
    // AdamW's moments without their bias corrections.
    (
        "p44_adamw_no_bias_correction.wgsl",
        "p44_adamw",
        Status::Fail,
        "elements of `param_out` are wrong",
        None,
    ),
    (
        "p44_adamw_no_bias_correction.cu",
        "p44_adamw",
        Status::Fail,
        "elements of `param_out` are wrong",
        None,
    ),
    // Attention backward: ds without delta; a query block's rows read as columns.
    (
        "p45_attention_backward_no_delta.cu",
        "p45_attention_backward",
        Status::Fail,
        "elements of `dq` are wrong",
        None,
    ),
    (
        "p45_attention_backward_dq_pass_columns_for_rows.cu",
        "p45_attention_backward_dq_pass",
        Status::Fail,
        "elements of `dq` are wrong",
        None,
    ),
    // Attention's online softmax: the output rows kept at an old maximum.
    (
        "p31_attention_fused_no_rescale.wgsl",
        "p31_attention_fused",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    (
        "p31_attention_fused_no_rescale.cu",
        "p31_attention_fused",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // Part VI: BF16 by truncation; the ties, and everything above them, round down.
    (
        "p33_round_bf16_truncate.wgsl",
        "p33_round_bf16",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    (
        "p33_round_bf16_truncate.cu",
        "p33_round_bf16",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // Puzzle 19 step 8: loads clamped into the matrix, k past its end not zeroed.
    (
        "p19_sgemm_thick_k_not_zeroed.cu",
        "p19_sgemm_thick",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // Puzzle 19 step 9: the last group of block rows dealt out as if it were full.
    (
        "p19_sgemm_grouped_last_group_full.cu",
        "p19_sgemm_grouped",
        Status::Fail,
        "elements of `out` were never written",
        None,
    ),
    // Puzzle 18: a cp.async of 4 bytes where each vector is 16.
    (
        "p18_scan_async_floats_not_vectors.cu",
        "p18_scan_async",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // Part VI: a tile stored swizzled and read as if it were not.
    (
        "p35_gemm_mma_unswizzled.cu",
        "p35_gemm_mma",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // Part VI: a wgmma descriptor stepped 16 bytes along k instead of 32.
    (
        "p35_gemm_wgmma_a_step.cu",
        "p35_gemm_wgmma",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // Part VI: FP8's bt descriptor stepped by 16 bytes, BF16's count of k.
    (
        "p35_gemm_fp8_b_step_in_values.cu",
        "p35_gemm_fp8",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // Part VI: step 8's staged rows all written to the first 64 columns.
    (
        "p35_gemm_persistent_chunk_not_offset.cu",
        "p35_gemm_persistent",
        Status::Fail,
        "elements of `out` were never written",
        None,
    ),
    // Part VI: attention's output not rescaled when a row's maximum rises.
    (
        "p36_attention_overlap_no_rescale.cu",
        "p36_attention_overlap",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // Part VI: a causal mask one key late, so each query sees one future key.
    (
        "p36_attention_causal_edge_one_late.cu",
        "p36_attention_causal",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // Part VI: a tensor map's stage with b's boxes stored on top of each other.
    (
        "p35_gemm_tma_b_boxes_overlap.cu",
        "p35_gemm_tma",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // Part VI: a kernel that takes a pointer where the spec passes a tensor map.
    (
        "p35_gemm_tma_pointer_for_map.cu",
        "p35_gemm_tma",
        Status::CompileError,
        "parameter 2 of `gemm_tma` should be the tensor map of `a` (const __grid_constant__ CUtensorMap)",
        Some(At::Holding("gemm_tma(bf16* out, const bf16* a_map,")),
    ),
    // Part VI: a row's maximum taken over one lane's share of it, not the quad's.
    (
        "p36_attention_bf16_lane_max.cu",
        "p36_attention_bf16",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // Part VI: Hopper's hardware. A bulk copy sized in floats, not bytes: a
    // quarter of the tile lands.
    (
        "p34_bulk_copy_floats_not_bytes.cu",
        "p34_bulk_copy",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // A cluster's sum that reads block 0's shared memory for every block.
    (
        "p34_cluster_sum_own_block.cu",
        "p34_cluster_sum",
        Status::Fail,
        "elements of `out` are wrong",
        None,
    ),
    // A cluster's sum without its last barrier: blocks exit while block 0
    // still reads their shared memory.
    (
        "p34_cluster_sum_no_exit_sync.cu",
        "p34_cluster_sum",
        Status::Fail,
        "shared memory goes when its last thread exits",
        Some(At::Holding("value = theirs[0];")),
    ),
    // A row sum whose accumulator is never set: registers start as NaN.
    (
        "p13_row_sum_unset_partial.cu",
        "p13_row_sum",
        Status::Fail,
        "a variable read before it is set",
        None,
    ),
    // Part VII: the ring's phases split one step late (on the CUDA checker
    // where fewer GPUs than the puzzle's are here).
    (
        "p39_ring_adds_once_more.cu",
        "p39_all_reduce_ring",
        Status::Fail,
        "elements of `out@0` are wrong",
        None,
    ),
];

/// Near-twins of the fixtures above that must pass, on every backend of
/// their language and on the simulator: (file, puzzle). Each shows that its
/// twin fails for the reason given there, not for something else.
pub(super) const WITHIN_BOUNDS: &[(&str, &str)] =
    &[("p09_pooling_staged_neighbours.wgsl", "p09_pooling")];

/// Fixtures whose expected report only a GPU gives, in its own words;
/// skipped, by name, without one (the CUDA checker runs every other CUDA
/// fixture there).
pub(super) const ONLY_A_GPU_SHOWS: &[&str] = &[
    // The driver's CUDA_ERROR_ILLEGAL_ADDRESS; the checker reports the
    // out-of-bounds address itself, at its line (a failure, not an error).
    "p01_illegal_address.cu",
];

/// The trials of the wrong kernels and their twins, in the group's order.
pub(super) fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    for &wrong in WRONG_KERNELS {
        let file = wrong.0;
        trials.push(trial(
            format!("wrong_kernel::{file}"),
            lang_of(Path::new(file)),
            ONLY_A_GPU_SHOWS.contains(&file),
            move || rejected(None, wrong),
        ));
    }
    // What the driver reports as CUDA_ERROR_ILLEGAL_ADDRESS, the CUDA
    // checker reports at the line that made the address: a failure.
    trials.push(
        Trial::test("wrong_kernel::sim::p01_illegal_address.cu", || {
            let book = load(&root())?;
            let fixture = Fixture::load(&book, "p01_illegal_address.cu")?;
            let report = run_on(BackendKind::PtxSim, &book, "p01_map", &fixture, None)?;
            messages::check(
                "wrong_kernel::sim::p01_illegal_address.cu",
                "p01_illegal_address.cu on p01_map, on the CUDA checker",
                BackendKind::PtxSim,
                &report,
            );
            expect(&report, Status::Fail)?;
            let text = report.to_text();
            let d = report
                .diagnostics
                .iter()
                .find(|d| d.kind == Some(gpu_hazard::Kind::OutOfBounds))
                .ok_or_else(|| format!("no out-of-bounds index reported:\n{text}"))?;
            if d.file != fixture.path
                || d.line != 4
                || !d.message.contains("past every guard band of `out`")
            {
                return Err(format!("expected the write past `out` at line 4, got {d}").into());
            }
            Ok(())
        })
        .with_kind("sim"),
    );
    // An endless loop, stopped by the CUDA checker's clock, at the loop's line.
    trials.push(
        Trial::test("wrong_kernel::sim::p01_endless_loop.cu", || {
            let book = load(&root())?;
            let fixture = Fixture::load(&book, "p01_endless_loop.cu")?;
            let report = run_on(BackendKind::PtxSim, &book, "p01_map", &fixture, None)?;
            expect(&report, Status::Error)?;
            let text = report.to_text();
            if !text.contains("did not finish within 5s") {
                return Err(format!("no time-out reported:\n{text}").into());
            }
            match report.diagnostics.first() {
                Some(d) if d.file == fixture.path && d.line == 7 => Ok(()),
                other => Err(format!("expected the loop's line 7, got {other:?}").into()),
            }
        })
        .with_kind("sim"),
    );
    // The same WGSL mistakes on the simulator: the same status and message.
    for &wrong in WRONG_KERNELS {
        let file = wrong.0;
        if lang_of(Path::new(file)) == Lang::Wgsl {
            trials.push(
                Trial::test(format!("wrong_kernel::sim::{file}"), move || {
                    rejected(Some(BackendKind::Sim), wrong)
                })
                .with_kind("sim"),
            );
        }
    }
    for &(file, puzzle) in WITHIN_BOUNDS {
        let kinds = [
            BackendKind::for_lang(lang_of(Path::new(file))),
            BackendKind::Sim,
        ];
        for kind in kinds {
            let test = move || {
                let book = load(&root())?;
                let fixture = Fixture::load(&book, file)?;
                let report = run_on(kind, &book, puzzle, &fixture, None)?;
                expect(&report, Status::Pass)
            };
            let name = format!("within_bounds::{kind}::{file}");
            trials.push(match RUNNER.backend(kind) {
                Ok(_) => Trial::test(name, test).with_kind(kind.to_string()),
                Err(e) => Trial::test(name, || Ok(()))
                    .with_kind(format!("skipped: {e}"))
                    .with_ignored_flag(true),
            });
        }
    }
    trials
}

/// A [`WRONG_KERNELS`] row, run on `kind` (None: [`kind_for`] its
/// language): rejected with its status and message, at its line.
fn rejected(
    kind: Option<BackendKind>,
    (file, puzzle, status, message, at): (&str, &str, Status, &str, Option<At>),
) -> Result<(), Failed> {
    let book = load(&root())?;
    let fixture = Fixture::load(&book, file)?;
    let kind = with_enough_gpus(
        kind.unwrap_or_else(|| kind_for(fixture.lang)),
        &book,
        puzzle,
    )?;
    let report = run_on(kind, &book, puzzle, &fixture, None)?;
    let name = match fixture.lang {
        Lang::Wgsl => format!("wrong_kernel::sim::{file}"),
        Lang::Cuda => format!("wrong_kernel::{file}"),
    };
    messages::check(&name, &format!("{file} on {puzzle}"), kind, &report);
    expect(&report, status)?;
    let text = report.to_text();
    if !text.contains(message) {
        return Err(format!("the report lacks {message:?}:\n{text}").into());
    }
    if let Some(at) = at {
        let line = at.line(&fixture)?;
        let d = report.diagnostics.first().ok_or("no diagnostic")?;
        if d.file != fixture.path || d.line != line {
            return Err(format!(
                "expected the message at {}:{line}, got {d}",
                fixture.path.display()
            )
            .into());
        }
    }
    Ok(())
}
