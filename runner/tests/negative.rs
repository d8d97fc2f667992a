//! Negative fixtures: wrong kernels and impossible launches that the checks
//! must reject, each with the message and line a user would need.
//!
//! Each case runs on its backend when present; otherwise it is listed as
//! skipped, by name and reason. Every WGSL case also runs on the CPU
//! simulator (`sim`), which must reject it the same way, and must catch
//! every race of `races.toml` on every run, with the line. A CUDA case runs
//! on the GPU, or, where the CUDA backend only compiles (no NVIDIA GPU), on
//! the CUDA checker (`ptx-sim`, labelled `sim`), which must reject it the
//! same way and catch every CUDA race; the few a GPU alone can show
//! ([`ONLY_A_GPU_SHOWS`]) are skipped there, by name.
//!
//! A fixture that breaks a solution is an edit of it (`fixtures/edits.toml`,
//! made on today's solution when a trial runs: see [`edits`]); the rest are
//! whole files in `fixtures/kernels/`. The tables name both alike, and name
//! an edit's lines by the text they hold.

mod edits;

use edits::Fixture;
use libtest_mimic::{Failed, Trial};
use puzzle_core::assess::cases::{self, Case, Until};
use puzzle_core::assess::execute::Settings;
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::source::text::SourceText;
use runner::backend::cuda::sanitize::Sanitizer;
use runner::run::runner::Runner;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// A short timeout: the endless-loop fixture must be stopped quickly.
static RUNNER: LazyLock<Runner> = LazyLock::new(|| {
    Runner::new(Settings {
        timing_samples: 0,
        timeout: std::time::Duration::from_secs(5),
        ..Settings::default()
    })
});

/// A runner whose CUDA runs go through compute-sanitizer too, where it is
/// found: one for every `race::sanitize::*` trial, so NVRTC loads once.
static SANITIZED: LazyLock<Option<Runner>> = LazyLock::new(|| {
    let sanitizer = Sanitizer::find().ok()?;
    Some(
        Runner::new(Settings {
            timing_samples: 0,
            ..Settings::default()
        })
        .with_sanitizer(sanitizer),
    )
});

/// The book: this checkout, or `GPU_PUZZLES_BOOK` where the binary runs away
/// from it (the GPU machine gets a copy at another path).
fn root() -> PathBuf {
    std::env::var_os("GPU_PUZZLES_BOOK")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .unwrap()
                .to_path_buf()
        })
}

fn fixtures() -> PathBuf {
    root().join("runner/tests/fixtures")
}

/// Kernels right at the teaching size and wrong at another: (file, puzzle,
/// phrase the failing stress report must contain). The teaching run must
/// pass (that is the trap) and some stress case must fail.
const STRESS_ONLY: &[(&str, &str, &str)] = &[
    (
        "p06_hard_coded_size.wgsl",
        "p06_blocks",
        "elements of `out` were never written",
    ),
    // A shared-memory solution that is right only because size == threads per block.
    (
        "p09_pooling_assumes_tpb.wgsl",
        "p09_pooling",
        "elements of `out` are wrong",
    ),
    (
        "p09_pooling_assumes_tpb.cu",
        "p09_pooling",
        "elements of `out` are wrong",
    ),
    (
        "p13_row_sum_tpb_stride.wgsl",
        "p13_row_sum",
        "elements of `out` are wrong",
    ),
    (
        "p13_row_sum_tpb_stride.cu",
        "p13_row_sum",
        "elements of `out` are wrong",
    ),
];

/// One entry of `tests/fixtures/races.toml`.
#[derive(Clone, serde::Deserialize)]
struct Race {
    /// The fixture: an edit's name (`edits.toml`) or a file of `kernels/`.
    file: String,
    puzzle: String,
    /// Device-name fragments where repeated runs always showed the race.
    #[serde(default)]
    caught_on: Vec<String>,
    /// Run the spec's stress cases too (the hazard needs SIZE < TPB, say).
    #[serde(default)]
    stress: bool,
    /// What compute-sanitizer reports (`racecheck: line 15`), or "nothing: why".
    #[serde(default)]
    sanitizer: Option<String>,
    /// The label of the hazard the CUDA checker must report (`data race`)…
    #[serde(default)]
    checker: Option<String>,
    /// …at the line holding one of these texts, any of which will do (a race
    /// is reported at whichever of its two accesses came second).
    #[serde(default)]
    at: Vec<String>,
}

/// Runs a race fixture at the teaching size (and the stress sizes where the
/// entry asks) on `kind`: the report of the first run that failed, if any.
fn race_fails(race: &Race, book: &Book, kind: BackendKind) -> Result<Option<RunReport>, Failed> {
    let fixture = Fixture::load(book, &race.file)?;
    let puzzle = book.find(&race.puzzle)?;
    let ran = RUNNER.run_cases(
        kind,
        puzzle,
        Variant::File,
        &fixture.source,
        cases::cases(&puzzle.spec, race.stress),
        Until::FirstFailure,
    )?;
    Ok(ran
        .into_iter()
        .map(|(_, report)| report)
        .find(|r| r.status == Status::Fail))
}

#[derive(serde::Deserialize)]
struct Races {
    #[serde(default)]
    race: Vec<Race>,
}

fn races() -> Vec<Race> {
    let path = fixtures().join("races.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str::<Races>(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .race
}

/// Where a fixture's first diagnostic must point.
#[derive(Clone, Copy, Debug)]
enum At {
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
const WRONG_KERNELS: &[(&str, &str, Status, &str, Option<At>)] = &[
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
const WITHIN_BOUNDS: &[(&str, &str)] = &[("p09_pooling_staged_neighbours.wgsl", "p09_pooling")];

/// Fixtures whose expected report only a GPU gives, in its own words;
/// skipped, by name, without one (the CUDA checker runs every other CUDA
/// fixture there).
const ONLY_A_GPU_SHOWS: &[&str] = &[
    // The driver's CUDA_ERROR_ILLEGAL_ADDRESS; the checker reports the
    // out-of-bounds address itself, at its line (a failure, not an error).
    "p01_illegal_address.cu",
];

/// WGSL kernels right only at some subgroup sizes: (file, puzzle, sizes at
/// which the CPU checker must pass it, sizes at which it must fail it). The
/// passing sizes show the trap: the kernel is right where its assumption
/// holds. On wgpu, lavapipe (subgroups of 8) must do what the table says for
/// 8; other adapters, and tables without 8, skip.
const SUBGROUP_SIZE_BOUND: &[(&str, &str, &[u32], &[u32])] = &[
    // Part IV: slots sized and indexed for warps of 32.
    (
        "p21_warp_add_assumes_32.wgsl",
        "p21_warp_add",
        &[32],
        &[8, 64],
    ),
    // Part IV: a broadcast from lane 0 of the subgroup, right only where a
    // subgroup is one group of 8.
    (
        "p22_broadcast_whole_subgroup.wgsl",
        "p22_group_broadcast",
        &[8],
        &[32, 64],
    ),
    // Part IV: the ballot's first word taken for the whole ballot.
    ("p23_ballot_one_word.wgsl", "p23_compact", &[8, 32], &[64]),
];

/// Launches no device accepts: (puzzle in limits_book, language, message part).
const IMPOSSIBLE_LAUNCHES: &[(&str, Lang, &str)] = &[
    (
        "too_many_blocks",
        Lang::Wgsl,
        "a grid of 70000 workgroups along x; this adapter allows at most",
    ),
    (
        "block_too_large",
        Lang::Wgsl,
        "GPUs allow at most 1024 threads per block",
    ),
    (
        "block_too_large",
        Lang::Cuda,
        "GPUs allow at most 1024 threads per block",
    ),
    (
        "too_much_shared",
        Lang::Wgsl,
        "bytes of workgroup memory; this adapter allows",
    ),
    (
        "too_much_dynamic_shared",
        Lang::Cuda,
        // On a GPU: "…; this GPU allows at most" (its opt-in attribute); on
        // the checker: "…; Hopper GPUs allow at most".
        "of dynamic shared memory (plus 0 static) per block;",
    ),
    // NVRTC does not check the limit; the runner reads the PTX before launching.
    (
        "too_much_shared",
        Lang::Cuda,
        "declare 262144 bytes of static __shared__ memory",
    ),
];

/// Puzzles of the `steps_book` fixture: (id, status of its solution, phrase in the report).
const STEPS_BOOK: &[(&str, Status, &str)] = &[
    // Two launches share a scratch buffer; the second sees the first's writes.
    ("two_steps", Status::Pass, "PASS"),
    // A grid too small for the data: the verdict names the uncovered elements.
    (
        "too_small_grid",
        Status::Fail,
        "5 of 9 elements of `out` were never written: out[4], out[5], out[6], out[7], out[8]",
    ),
    // Guard bands are checked on every buffer, not only on outputs.
    (
        "scratch_overrun",
        Status::Fail,
        "out-of-bounds write: `tmp` has 4 elements, but something wrote index 4, 5, 6, 7",
    ),
];

/// This group's trials, for the suite's `main`.
pub fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    // Every edit made on today's solutions, whatever backends are here.
    trials.push(Trial::test("fixture_edits::apply_every_edit", || {
        let (used, lines) = named_in_tables();
        edits::apply_every_edit(&used, &lines)
    }));
    trials.push(Trial::test(
        "fixture_edits::stale_anchor_is_reported",
        edits::stale_anchor_is_reported,
    ));
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
    for &(puzzle, lang, message) in IMPOSSIBLE_LAUNCHES {
        let needs_gpu = lang == Lang::Cuda && ONLY_A_GPU_SHOWS.contains(&puzzle);
        trials.push(trial(
            format!("impossible_launch::{puzzle}::{lang}"),
            lang,
            needs_gpu,
            move || {
                let book = load(&fixtures().join("limits_book")).map_err(|e| format!("{e:?}"))?;
                let report = RUNNER
                    .run(book.find(puzzle)?, lang, Variant::Solution)
                    .map_err(|e| e.to_string())?;
                expect(&report, Status::Error)?;
                let said = report.message.clone().unwrap_or_default();
                if !said.to_lowercase().contains(&message.to_lowercase()) {
                    return Err(format!("expected {message:?}, got {said:?}").into());
                }
                Ok(())
            },
        ));
    }
    // A fault or a hang must not poison the next puzzle: the CUDA context lives in a child process.
    trials.push(trial(
        "isolation::the_next_puzzle_still_passes".into(),
        Lang::Cuda,
        true,
        || {
            let book = load(&root()).map_err(|e| format!("{e:?}"))?;
            let puzzle = book.find("p01_map")?;
            for bad in ["p01_illegal_address.cu", "p01_endless_loop.cu"] {
                let fixture = Fixture::load(&book, bad)?;
                let report = RUNNER.run_on(
                    BackendKind::Cuda,
                    puzzle,
                    Variant::File,
                    &fixture.source,
                    &Case::teaching(),
                )?;
                expect(&report, Status::Error)?;
                let good = RUNNER
                    .run(puzzle, Lang::Cuda, Variant::Solution)
                    .map_err(|e| e.to_string())?;
                expect(&good, Status::Pass)?;
            }
            Ok(())
        },
    ));
    // The other side of the limit: 100 KiB of dynamic shared memory is
    // allowed once the kernel opts in (the checker allows Hopper's 227 KiB).
    trials.push(trial(
        "gpu_feature::dynamic_shared_beyond_48k".into(),
        Lang::Cuda,
        false,
        || {
            let book = load(&fixtures().join("cuda_book")).map_err(|e| format!("{e:?}"))?;
            let report = RUNNER
                .run(
                    book.find("big_dynamic_shared")?,
                    Lang::Cuda,
                    Variant::Solution,
                )
                .map_err(|e| e.to_string())?;
            expect(&report, Status::Pass)
        },
    ));
    // Kernels right only at the teaching size: a stress run must catch each.
    for &(file, puzzle, message) in STRESS_ONLY {
        let lang = lang_of(Path::new(file));
        trials.push(trial(
            format!("stress_catches::{file}"),
            lang,
            false,
            move || {
                let book = load(&root())?;
                let fixture = Fixture::load(&book, file)?;
                let kind = with_enough_gpus(kind_for(lang), &book, puzzle)?;
                expect(&run_on(kind, &book, puzzle, &fixture, None)?, Status::Pass)?;
                let mut reports = Vec::new();
                let spec = &book.find(puzzle)?.spec;
                // The CUDA checker takes the stress sizes it runs in good time.
                let on_checker = kind.is_simulator();
                for case in cases::cases(spec, true)
                    .into_iter()
                    .skip(1)
                    .filter(|case| !on_checker || cases::checkable(spec, case))
                {
                    let report = run_on(kind, &book, puzzle, &fixture, Some(&case))?;
                    if report.status == Status::Fail && report.to_text().contains(message) {
                        return Ok(());
                    }
                    reports.push(report.to_text());
                }
                Err(format!(
                    "no stress case failed with {message:?}:\n{}",
                    reports.join("\n")
                )
                .into())
            },
        ));
    }
    // Races: caught where races.toml says repeated runs always showed them;
    // elsewhere skipped by name, with the file as the record for the CPU checker.
    for race in races() {
        let lang = lang_of(Path::new(&race.file));
        let kind = BackendKind::for_lang(lang);
        let name = format!("race::{}", race.file);
        if lang == Lang::Wgsl {
            trials.push(sim_catches(&race, BackendKind::Sim));
        } else if kind_for(lang) == BackendKind::PtxSim {
            // No GPU runs CUDA here: the CUDA checker must catch the race instead.
            trials.push(sim_catches(&race, BackendKind::PtxSim));
        }
        let device = RUNNER
            .backend(kind)
            .ok()
            .filter(|b| b.runs_kernels())
            .map(|b| b.device().name.clone());
        let caught_here = device
            .as_ref()
            .is_some_and(|d| race.caught_on.iter().any(|c| d.contains(c.as_str())));
        if !caught_here {
            let reason = match &device {
                Some(d) => format!(
                    "skipped: race not reliably observed on {d} (runner/tests/fixtures/races.toml)"
                ),
                None => format!("skipped: no {kind} device runs kernels here"),
            };
            trials.push(
                Trial::test(name, || Ok(()))
                    .with_kind(reason)
                    .with_ignored_flag(true),
            );
            continue;
        }
        trials.push(trial(name, lang, lang == Lang::Cuda, move || {
            let book = load(&root()).map_err(|e| format!("{e:?}"))?;
            if race_fails(&race, &book, kind)?.is_some() {
                Ok(())
            } else {
                Err(format!(
                    "{} passed, but races.toml says it is always caught here",
                    race.file
                )
                .into())
            }
        }));
    }
    // What compute-sanitizer reports for each CUDA race, as races.toml
    // records it: required wherever it and an NVIDIA GPU are present.
    for race in races() {
        if let Some(trial) = sanitizer_catches(race) {
            trials.push(trial);
        }
    }
    // How often each race fires here: GPU_PUZZLES_RACE_RUNS=50 to measure
    // (the numbers behind races.toml); skipped otherwise.
    let runs: Option<usize> = std::env::var("GPU_PUZZLES_RACE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok());
    let measure = Trial::test("races::measure", move || {
        let runs = runs.unwrap_or(0);
        let book = load(&root()).map_err(|e| format!("{e:?}"))?;
        for race in races() {
            let lang = lang_of(Path::new(&race.file));
            let Ok(backend) = RUNNER.backend(BackendKind::for_lang(lang)) else {
                continue;
            };
            if !backend.runs_kernels() {
                continue;
            }
            let mut failed = 0;
            for _ in 0..runs {
                failed +=
                    usize::from(race_fails(&race, &book, BackendKind::for_lang(lang))?.is_some());
            }
            eprintln!(
                "race {} on {}: {failed} of {runs} runs failed",
                race.file,
                backend.device().name
            );
        }
        Ok(())
    });
    trials.push(match runs {
        Some(_) => measure,
        None => measure
            .with_kind("skipped: set GPU_PUZZLES_RACE_RUNS=N to measure".to_string())
            .with_ignored_flag(true),
    });
    // Launch sequences and coverage (fixture book `steps_book`), on each backend.
    for lang in Lang::ALL {
        for &(puzzle, status, message) in STEPS_BOOK {
            trials.push(trial(
                format!("steps_book::{puzzle}::{lang}"),
                lang,
                false,
                move || {
                    let book =
                        load(&fixtures().join("steps_book")).map_err(|e| format!("{e:?}"))?;
                    let report = RUNNER
                        .run(book.find(puzzle)?, lang, Variant::Solution)
                        .map_err(|e| e.to_string())?;
                    expect(&report, status)?;
                    let text = report.to_text();
                    if !text.contains(message) {
                        return Err(format!("the report lacks {message:?}:\n{text}").into());
                    }
                    Ok(())
                },
            ));
        }
    }
    // Each step's kernel is checked against that step's args, before any launch.
    trials.push(trial(
        "steps_book::parameters_checked_per_step".into(),
        Lang::Cuda,
        false,
        || {
            let book = load(&fixtures().join("steps_book")).map_err(|e| format!("{e:?}"))?;
            // A whole file: the fixture book's solution is no file to edit.
            let fixture = Fixture::load(&book, "steps_wrong_params.cu")?;
            let report = RUNNER.run_on(
                BackendKind::Cuda,
                book.find("two_steps")?,
                Variant::File,
                &fixture.source,
                &Case::teaching(),
            )?;
            expect(&report, Status::CompileError)?;
            let d = report.diagnostics.first().ok_or("no diagnostic")?;
            if !(d.line == 7
                && d.message
                    .contains("`add_one` takes 2 parameter(s), but the spec passes 3"))
            {
                return Err(
                    format!("expected line 7, `add_one` takes 2 parameter(s); got {d}").into(),
                );
            }
            Ok(())
        },
    ));
    // Fixture books whose runs need a GPU are still read here: a typo must not
    // wait for the GPU machine.
    trials.push(Trial::test("fixture_books::load", || {
        for book in ["limits_book", "cuda_book", "steps_book", "subgroup_book"] {
            load(&fixtures().join(book)).map_err(|e| format!("{book}: {e:?}"))?;
        }
        Ok(())
    }));
    for puzzle in ["subgroup_dot", "subgroup_scan"] {
        trials.extend(subgroups(puzzle));
    }
    for &(file, puzzle, passes, fails) in SUBGROUP_SIZE_BOUND {
        trials.extend(subgroup_size_bound(file, puzzle, passes, fails));
    }
    trials.push(Trial::test("malformed_spec::names_its_line", || {
        let errors = runner::book::load::load(&fixtures().join("bad_spec_book"))
            .expect_err("a spec with an unknown key must not load");
        let e = &errors[0];
        if !(e.file.ends_with("src/bad.md")
            && e.line == 8
            && e.message.contains("unknown field `blocks`"))
        {
            return Err(format!("expected src/bad.md:8 unknown field `blocks`, got {e}").into());
        }
        Ok(())
    }));
    trials
}

/// Where a fixture in `lang` runs: WGSL on wgpu; CUDA C on the GPU, or,
/// where the CUDA backend only compiles, on the CUDA checker.
/// `kind`, or the CUDA checker where `kind` is a CUDA GPU too few to run
/// `puzzle` (Part VII on a host of one GPU): the checker simulates every rank.
fn with_enough_gpus(kind: BackendKind, book: &Book, puzzle: &str) -> Result<BackendKind, Failed> {
    let wanted = book.find(puzzle)?.spec.gpus(&Default::default()) as usize;
    let reachable = RUNNER.backend(kind).map_or(0, |b| b.gpus());
    Ok(if kind == BackendKind::Cuda && reachable < wanted {
        BackendKind::PtxSim
    } else {
        kind
    })
}

fn kind_for(lang: Lang) -> BackendKind {
    match lang {
        Lang::Cuda => RUNNER.default_backend(Lang::Cuda),
        Lang::Wgsl => BackendKind::Wgpu,
    }
}

/// A trial of a `lang` fixture on [`kind_for`]'s backend; `needs_gpu`: only
/// a GPU shows what it expects.
fn trial(
    name: String,
    lang: Lang,
    needs_gpu: bool,
    test: impl FnOnce() -> Result<(), Failed> + Send + 'static,
) -> Trial {
    let kind = kind_for(lang);
    match RUNNER.backend(kind) {
        Ok(b) if needs_gpu && (kind.is_simulator() || !b.runs_kernels()) => Trial::test(name, test)
            .with_kind(format!(
                "skipped: needs a GPU for {}",
                BackendKind::for_lang(lang)
            ))
            .with_ignored_flag(true),
        Ok(_) => Trial::test(name, test).with_kind(kind.to_string()),
        Err(e) => Trial::test(name, test)
            .with_kind(format!("skipped: {e}"))
            .with_ignored_flag(true),
    }
}

/// The language of a fixture file, from its extension.
fn lang_of(path: &Path) -> Lang {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    Lang::from_extension(ext).unwrap_or_else(|| panic!("{}: not .cu or .wgsl", path.display()))
}

/// A fixture book, or the book itself.
fn load(root: &Path) -> Result<Book, Failed> {
    runner::book::load::load(root).map_err(|e| format!("{e:?}").into())
}

/// Runs a fixture against a puzzle of `book` on `kind`, at the teaching
/// size or a stress case.
fn run_on(
    kind: BackendKind,
    book: &Book,
    puzzle: &str,
    fixture: &Fixture,
    case: Option<&Case>,
) -> Result<RunReport, Failed> {
    let teaching = Case::teaching();
    Ok(RUNNER.run_on(
        kind,
        book.find(puzzle)?,
        Variant::File,
        &fixture.source,
        case.unwrap_or(&teaching),
    )?)
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

/// What `fixture_edits::apply_every_edit` checks against the tables: the
/// fixtures they name, and (fixture, text) for every line named by its text.
fn named_in_tables() -> (Vec<String>, Vec<(String, String)>) {
    let mut used: Vec<String> = WRONG_KERNELS.iter().map(|w| w.0.to_string()).collect();
    used.extend(STRESS_ONLY.iter().map(|s| s.0.to_string()));
    used.extend(WITHIN_BOUNDS.iter().map(|w| w.0.to_string()));
    used.extend(SUBGROUP_SIZE_BOUND.iter().map(|s| s.0.to_string()));
    let mut lines: Vec<(String, String)> = WRONG_KERNELS
        .iter()
        .filter_map(|w| match w.4 {
            Some(At::Holding(text)) => Some((w.0.to_string(), text.to_string())),
            _ => None,
        })
        .collect();
    for race in races() {
        lines.extend(race.at.iter().map(|t| (race.file.clone(), t.clone())));
        used.push(race.file);
    }
    (used, lines)
}

/// `race::sanitize::{file}`: `--sanitize` reports the tool races.toml names
/// for a CUDA race, at the fixture's own file; None where races.toml
/// records that the tools see nothing. Skipped, by name, without
/// compute-sanitizer or a GPU.
fn sanitizer_catches(race: Race) -> Option<Trial> {
    let recorded = race.sanitizer.clone()?;
    let tool = recorded.split(':').next()?.trim().to_string();
    if tool == "nothing" {
        return None;
    }
    let name = format!("race::sanitize::{}", race.file);
    let Some(runner) = SANITIZED.as_ref() else {
        return Some(
            Trial::test(name, || Ok(()))
                .with_kind("skipped: no compute-sanitizer here")
                .with_ignored_flag(true),
        );
    };
    Some(trial(name, Lang::Cuda, true, move || {
        let book = load(&root())?;
        let fixture = Fixture::load(&book, &race.file)?;
        let report = runner.run_on(
            BackendKind::Cuda,
            book.find(&race.puzzle)?,
            Variant::File,
            &fixture.source,
            &Case::teaching(),
        )?;
        let wanted = format!("compute-sanitizer {tool}");
        let found = report
            .diagnostics
            .iter()
            .any(|d| d.file == fixture.path && d.message.contains(&wanted));
        if found && report.status == Status::Fail {
            Ok(())
        } else {
            Err(format!("no {wanted} report at {}:\n{}", race.file, report.to_text()).into())
        }
    }))
}

/// `race::sim::{file}`: the checker of its language (`kind`) fails the race
/// fixture on every run, with a hazard at the fixture's own file and line,
/// whatever the outputs; where races.toml names the `checker`'s finding, that
/// finding at a line holding one of its `at` texts.
fn sim_catches(race: &Race, kind: BackendKind) -> Trial {
    let race = race.clone();
    Trial::test(format!("race::sim::{}", race.file), move || {
        let file = &race.file;
        let book = load(&root())?;
        let fixture = Fixture::load(&book, file)?;
        let report =
            race_fails(&race, &book, kind)?.ok_or_else(|| format!("{file} passed on sim"))?;
        // The finding the table names, at one of its lines.
        if let Some(label) = &race.checker {
            if race.at.is_empty() {
                return Err(format!("races.toml: {file} names a `checker` but no `at`").into());
            }
            let lines = race
                .at
                .iter()
                .map(|text| fixture.line_holding(text))
                .collect::<Result<Vec<usize>, Failed>>()?;
            let found = report.diagnostics.iter().any(|d| {
                d.file == fixture.path
                    && lines.contains(&d.line)
                    && d.kind.is_some_and(|k| k.label() == label)
            });
            if !found {
                return Err(format!(
                    "{file}: expected a {label:?} from the checker at line {lines:?} \
                     (holding {:?}), got:\n{}",
                    race.at,
                    report.to_text()
                )
                .into());
            }
        }
        let hazard = report
            .diagnostics
            .iter()
            .find(|d| d.file == fixture.path && d.line > 0);
        match hazard {
            Some(_) => Ok(()),
            None => Err(format!(
                "{file} failed on sim, but no hazard names its line:\n{}",
                report.to_text()
            )
            .into()),
        }
    })
    .with_kind("sim")
}

fn expect(report: &RunReport, status: Status) -> Result<(), Failed> {
    if report.status == status {
        Ok(())
    } else {
        Err(format!("expected {}, got:\n{}", status.word(), report.to_text()).into())
    }
}

/// `subgroups::{puzzle}::sim{8,32}` and `::wgpu`: a kernel of the
/// `subgroup_book` fixture passes on the CPU checker with subgroups of 8 and
/// of 32, and on wgpu (where the adapter has subgroups), with equal outputs.
fn subgroups(puzzle: &'static str) -> Vec<Trial> {
    use puzzle_core::assess::execute::execute;
    use puzzle_core::wgsl::checker::SimBackend;
    let load = move || -> Result<(Book, SourceText), Failed> {
        let book = load(&fixtures().join("subgroup_book")).map_err(|e| format!("{e:?}"))?;
        let source = book
            .find(puzzle)?
            .kernel(Lang::Wgsl)
            .ok_or("no WGSL kernel")?
            .variant(Variant::Solution);
        Ok((book, source))
    };
    let on_sim = move |size: u32| -> Result<RunReport, Failed> {
        let (book, source) = load()?;
        let p = book.find(puzzle)?;
        let spec = p
            .spec
            .resolve(&Default::default())
            .map_err(|e| e.to_string())?;
        let backend = SimBackend::with_seed(1).with_subgroup_size(size);
        let report = execute(
            &backend,
            &spec,
            Variant::Solution,
            &source,
            &RUNNER.settings,
        );
        expect(&report, Status::Pass)?;
        Ok(report)
    };
    let mut trials: Vec<Trial> = [8, 32]
        .into_iter()
        .map(|size| {
            Trial::test(format!("subgroups::{puzzle}::sim{size}"), move || {
                on_sim(size).map(|_| ())
            })
            .with_kind("sim")
        })
        .collect();
    let name = format!("subgroups::{puzzle}::wgpu_agrees_with_sim");
    trials.push(match RUNNER.backend(BackendKind::Wgpu) {
        Ok(_) => Trial::test(name, move || {
            let (book, source) = load()?;
            let gpu = RUNNER.run_on(
                BackendKind::Wgpu,
                book.find(puzzle)?,
                Variant::Solution,
                &source,
                &Case::teaching(),
            )?;
            expect(&gpu, Status::Pass)?;
            let sim = on_sim(32)?;
            let got = |r: &RunReport| r.checks.iter().map(|c| c.got.clone()).collect::<Vec<_>>();
            if got(&gpu) != got(&sim) {
                return Err(format!(
                    "wgpu and sim disagree:\n{}\n{}",
                    gpu.to_text(),
                    sim.to_text()
                )
                .into());
            }
            Ok(())
        })
        .with_kind("wgpu"),
        Err(e) => Trial::test(name, || Ok(()))
            .with_kind(format!("skipped: {e}"))
            .with_ignored_flag(true),
    });
    trials
}

/// `subgroup_size::{file}::sim{N}` and `::wgpu`: a fixture of
/// [`SUBGROUP_SIZE_BOUND`] on the CPU checker with subgroups of N, passing or
/// failing as the table says, and on lavapipe as the table says for 8.
fn subgroup_size_bound(
    file: &'static str,
    puzzle: &'static str,
    passes: &'static [u32],
    fails: &'static [u32],
) -> Vec<Trial> {
    use puzzle_core::assess::execute::execute;
    use puzzle_core::wgsl::checker::SimBackend;
    let mut trials = Vec::new();
    let cases = passes
        .iter()
        .map(|&s| (s, Status::Pass))
        .chain(fails.iter().map(|&s| (s, Status::Fail)));
    for (size, status) in cases {
        trials.push(
            Trial::test(format!("subgroup_size::{file}::sim{size}"), move || {
                let book = load(&root())?;
                let source = Fixture::load(&book, file)?.source;
                let spec = book
                    .find(puzzle)?
                    .spec
                    .resolve(&Default::default())
                    .map_err(|e| e.to_string())?;
                let backend = SimBackend::with_seed(1).with_subgroup_size(size);
                let report = execute(&backend, &spec, Variant::File, &source, &RUNNER.settings);
                expect(&report, status)
            })
            .with_kind("sim"),
        );
    }
    let name = format!("subgroup_size::{file}::wgpu");
    let lavapipe = RUNNER
        .backend(BackendKind::Wgpu)
        .ok()
        .filter(|b| b.runs_kernels() && b.device().name.contains("llvmpipe"));
    let at_8 = match (passes.contains(&8), fails.contains(&8)) {
        (true, _) => Some(Status::Pass),
        (_, true) => Some(Status::Fail),
        _ => None,
    };
    trials.push(match (lavapipe, at_8) {
        (Some(_), Some(status)) => Trial::test(name, move || {
            let book = load(&root())?;
            let fixture = Fixture::load(&book, file)?;
            expect(
                &run_on(BackendKind::Wgpu, &book, puzzle, &fixture, None)?,
                status,
            )
        })
        .with_kind("wgpu"),
        _ => Trial::test(name, || Ok(()))
            .with_kind("skipped: needs lavapipe (subgroups of 8) and a verdict for 8".to_string())
            .with_ignored_flag(true),
    });
    trials
}
