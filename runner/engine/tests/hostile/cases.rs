//! The cases of the `hostile` group, one a fault of issue 15 (its number
//! starts the case's name), and the books and files they are made of.

use super::{Answer, CHAPTER, Case, Needs};
use std::path::Path;

/// The solution's line in [`CHAPTER`] (line 25 of src/ch.md).
const STORE: &str = "        out[lid.x] = a[lid.x] + 10.0;";

/// A learner's copy of `h` (h/h.wgsl in the workspace) with `body` as its
/// function body; line 5 is the body's first line.
fn learner_copy(body: &str) -> String {
    format!(
        "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
         @group(0) @binding(1) var<storage, read> a: array<f32>;\n\
         @compute @workgroup_size(8)\n\
         fn add_ten(@builtin(local_invocation_id) lid: vec3<u32>) {{\n{body}\n}}\n"
    )
}

pub(super) fn cases() -> Vec<Case> {
    // A store in the loop: a GPU's compiler may delete an empty endless
    // loop (the H100's Vulkan driver does), never one with a side effect.
    let loop_file = learner_copy(
        "    loop { out[lid.x] = a[lid.x]; }\n    if (lid.x < 4u) { out[lid.x] = a[lid.x] + 10.0; }",
    );
    // Issue 15's item 1 is about an empty body: sim checked its clock per
    // statement, and an empty body has none.
    let empty_loop =
        learner_copy("    loop { }\n    if (lid.x < 4u) { out[lid.x] = a[lid.x] + 10.0; }");
    vec![
        // 1. sim and an empty loop body.
        Case {
            name: "01_sim_stops_an_empty_loop",
            files: vec![("loop.wgsl", empty_loop)],
            args: vec![
                "run",
                "h",
                "--file",
                "{book}/loop.wgsl",
                "--backend",
                "sim",
                "--timeout",
                "3",
            ],
            limit: 3,
            code: 1,
            // The loop's line, and who ran it.
            says: vec![
                "did not finish within 3s",
                "an endless loop",
                "still ran this line",
            ],
            never: vec!["PASS"],
            ..Case::default()
        },
        Case {
            name: "01_sim_stops_a_solution_with_an_empty_loop",
            edits: vec![(
                "    // BEGIN PUZZLE\n",
                "    // BEGIN PUZZLE\n    loop { }\n".into(),
            )],
            args: vec!["run", "h", "--backend", "sim", "--timeout", "3"],
            limit: 3,
            code: 1,
            says: vec!["did not finish within 3s"],
            never: vec!["PASS"],
            ..Case::default()
        },
        // 2. wgpu: an endless loop and a grid too large to finish are
        // stopped, and the process exits.
        Case {
            name: "02_wgpu_stops_an_endless_loop_and_exits",
            needs: Needs::Wgpu,
            files: vec![("loop.wgsl", loop_file.clone())],
            args: vec![
                "run",
                "h",
                "--file",
                "{book}/loop.wgsl",
                "--backend",
                "wgpu",
                "--timeout",
                "3",
            ],
            limit: 3,
            code: 1,
            says: vec!["did not finish within 3s"],
            never: vec!["PASS: h"],
            ..Case::default()
        },
        Case {
            name: "02_wgpu_stops_a_grid_too_large_to_finish",
            needs: Needs::Wgpu,
            edits: vec![("grid: [1]", "grid: [65535, 65535]".into())],
            args: vec![
                "run",
                "h",
                "--backend",
                "wgpu",
                "--timeout",
                "4",
                "--samples",
                "0",
            ],
            limit: 4,
            code: 1,
            says: vec![
                "did not finish within 4s",
                "more work than fits in that time",
            ],
            never: vec!["PASS: h"],
            // 34 billion threads of one store: a large GPU may finish them
            // in time, and then the solution's right answer is the answer,
            // printed whole and on time. A CPU adapter cannot: a PASS there
            // means the deadline was not kept.
            or_on_a_gpu: Some(Answer {
                code: 0,
                says: vec![
                    "out:      [10.0, 11.0, 12.0, 13.0]",
                    "PASS: h WGSL (solution) on wgpu",
                ],
                never: vec!["did not finish", "FAIL"],
            }),
            ..Case::default()
        },
        // 3. Each launch has its own deadline: the issue's grid, about
        // 0.6 s a launch on lavapipe, thirteen launches in all, passes under
        // a five-second limit (with room for a machine several times slower).
        Case {
            name: "03_slow_launches_are_not_a_hang",
            needs: Needs::Wgpu,
            edits: vec![("grid: [1]", "grid: [4096, 2048]".into())],
            args: vec![
                "run",
                "h",
                "--backend",
                "wgpu",
                "--timeout",
                "5",
                "--samples",
                "12",
            ],
            limit: 120,
            code: 0,
            says: vec!["PASS: h", "median of 12"],
            never: vec!["endless", "did not finish"],
            ..Case::default()
        },
        // 4. Source size is bounded before any compiler sees it.
        Case {
            name: "04_a_ten_megabyte_kernel_is_refused",
            files: vec![("big.wgsl", big_wgsl())],
            args: vec!["run", "h", "--file", "{book}/big.wgsl", "--backend", "sim"],
            limit: 5,
            code: 1,
            says: vec!["big.wgsl:", "kernels are limited to that"],
            never: vec!["PASS"],
            ..Case::default()
        },
        Case {
            name: "04_a_huge_cuda_header_is_refused",
            edits: vec![(
                "```wgsl,puzzle=h",
                format!("{CUDA_WITH_HEADER}\n```wgsl,puzzle=h"),
            )],
            files: vec![("src/huge.cuh", "// filler\n".repeat(2_500_000))],
            args: vec!["list"],
            limit: 5,
            code: 2,
            says: vec!["huge.cuh:", "kernels are limited to that"],
            ..Case::default()
        },
        // 5. Lavapipe ends every loop after 65,535 rounds and runs one
        // invocation at a time: the checker must agree before a PASS.
        Case {
            name: "05_a_solution_that_loops_forever_is_not_a_pass_on_lavapipe",
            needs: Needs::CpuAdapter,
            edits: vec![(
                "    // BEGIN PUZZLE\n",
                "    // BEGIN PUZZLE\n    loop { }\n".into(),
            )],
            args: vec!["run", "h", "--backend", "wgpu", "--timeout", "3"],
            limit: 3,
            code: 1,
            says: vec!["did not finish within 3s", "CPU checker"],
            never: vec!["PASS: h"],
            ..Case::default()
        },
        Case {
            name: "05_a_learners_endless_loop_is_not_solved",
            needs: Needs::CpuAdapter,
            files: vec![(
                ".learner/h/h.wgsl",
                learner_copy(
                    "    while (true) { }\n    if (lid.x < 4u) { out[lid.x] = a[lid.x] + 10.0; }",
                ),
            )],
            args: vec!["check", "h"],
            limit: 10,
            code: 1,
            says: vec!["HANG", "did not finish"],
            never: vec!["Solved", "✔"],
            after: Some(not_recorded_as_passed),
            ..Case::default()
        },
        Case {
            name: "05_a_barrier_some_threads_skip_is_not_solved",
            needs: Needs::CpuAdapter,
            files: vec![(
                ".learner/h/h.wgsl",
                learner_copy(
                    "    if (lid.x < 4u) { workgroupBarrier(); out[lid.x] = a[lid.x] + 10.0; }",
                ),
            )],
            args: vec!["check", "h"],
            code: 1,
            says: vec!["h/h.wgsl:5: barrier in non-uniform control flow"],
            never: vec!["Solved", "✔"],
            after: Some(not_recorded_as_passed),
            ..Case::default()
        },
        Case {
            name: "05_a_race_is_named_a_race",
            needs: Needs::CpuAdapter,
            files: vec![(
                ".learner/h/h.wgsl",
                learner_copy(
                    "    if (lid.x < 4u) { out[0] = a[lid.x] + 10.0; out[lid.x] = a[lid.x] + 10.0; }",
                ),
            )],
            args: vec!["check", "h"],
            code: 1,
            says: vec!["h/h.wgsl:5: data race"],
            never: vec!["Solved", "look for a size"],
            after: Some(not_recorded_as_passed),
            ..Case::default()
        },
        // 6. The backend asked for is the backend used.
        Case {
            name: "06_check_honours_backend_sim",
            files: vec![(
                ".learner/h/h.wgsl",
                learner_copy("    out[lid.x] = a[lid.x] + 10.0;"),
            )],
            args: vec!["check", "h", "--backend", "sim"],
            code: 1,
            says: vec!["on sim · CPU checker"],
            never: vec!["on wgpu"],
            ..Case::default()
        },
        // 9. One id, two specs: both places named.
        Case {
            name: "09_duplicate_ids_in_one_chapter_are_refused",
            edits: vec![(
                "```wgsl,puzzle=h",
                format!("{}\n```wgsl,puzzle=h", spec_block()),
            )],
            args: vec!["list"],
            limit: 5,
            code: 2,
            says: vec!["ch.md:19: puzzle id `h` is already used at line 4"],
            ..Case::default()
        },
        // 10. Huge sizes are refused at their line before anything is allocated.
        Case {
            name: "10_a_buffer_past_32_bit_indices_is_refused",
            edits: vec![("  a: { len: 4,", "  a: { len: 1099511627776,".into())],
            args: vec!["list"],
            limit: 5,
            code: 2,
            says: vec!["ch.md:12: buffer `a` has 1,099,511,627,776 elements"],
            ..Case::default()
        },
        Case {
            name: "10_a_huge_stress_size_is_refused_without_allocating",
            edits: sized_with_stress("1099511627776"),
            args: vec!["list"],
            limit: 5,
            code: 2,
            says: vec!["ch.md:18: stress case: buffer `out` has 1,099,511,627,776 elements"],
            ..Case::default()
        },
        Case {
            name: "10_a_large_stress_size_costs_list_nothing",
            edits: sized_with_stress("268435456"),
            args: vec!["list"],
            limit: 3,
            code: 0,
            // The puzzle's line (its id, language and title) and nothing
            // else: no size resolved, no warning about its gibibyte.
            output: Some("h WGSL Guard"),
            ..Case::default()
        },
        Case {
            name: "10_bench_refuses_a_huge_size",
            edits: sized_with_stress("8"),
            args: vec!["bench", "h", "--set", "SIZE=1099511627776"],
            limit: 5,
            code: 2,
            says: vec!["ch.md:12: buffer `out` has 1,099,511,627,776 elements"],
            ..Case::default()
        },
        // 11. The checker's own bounds: WebGPU's workgroup memory, 32-bit
        // invocation ids.
        Case {
            name: "11_sim_refuses_a_gigabyte_of_workgroup_memory",
            edits: workgroup_array(268_435_456),
            args: vec!["run", "h", "--backend", "sim"],
            limit: 5,
            code: 2,
            says: vec!["ch.md:21:", "devices allow at most 32 KiB per workgroup"],
            never: vec!["PASS"],
            ..Case::default()
        },
        Case {
            name: "11_sim_refuses_64_kib_of_workgroup_memory",
            edits: workgroup_array(16_384),
            args: vec!["run", "h", "--backend", "sim"],
            limit: 5,
            code: 2,
            says: vec!["devices allow at most 32 KiB per workgroup"],
            never: vec!["PASS"],
            ..Case::default()
        },
        Case {
            name: "11_wgpu_refuses_64_kib_of_workgroup_memory",
            needs: Needs::Wgpu,
            edits: workgroup_array(16_384),
            args: vec!["run", "h", "--backend", "wgpu"],
            limit: 5,
            code: 2,
            says: vec!["bytes of workgroup memory; this adapter allows"],
            never: vec!["PASS"],
            ..Case::default()
        },
        Case {
            name: "11_sim_refuses_a_grid_of_four_billion_workgroups_at_once",
            edits: vec![("grid: [1]", "grid: [65535, 65535]".into())],
            args: vec!["run", "h", "--backend", "sim", "--timeout", "3"],
            limit: 3,
            code: 2,
            says: vec!["numbers invocations with 32 bits"],
            never: vec!["PASS"],
            ..Case::default()
        },
        // 12. Grid products that overflow 32 bits: no arithmetic panic.
        Case {
            name: "12_sim_counts_a_three_axis_grid_without_overflow",
            edits: vec![("grid: [1]", "grid: [65535, 65535, 2]".into())],
            args: vec!["run", "h", "--backend", "sim", "--timeout", "3"],
            limit: 3,
            code: 2,
            says: vec!["8589672450 workgroups"],
            ..Case::default()
        },
        Case {
            name: "12_sim_counts_a_wide_grid_of_large_blocks_without_overflow",
            edits: vec![
                ("grid: [1]", "grid: [65535, 1024]".into()),
                ("block: [8]", "block: [256]".into()),
                ("@workgroup_size(8)", "@workgroup_size(256)".into()),
            ],
            args: vec!["run", "h", "--backend", "sim", "--timeout", "3"],
            limit: 3,
            code: 2,
            says: vec!["numbers invocations with 32 bits"],
            ..Case::default()
        },
        // 13. A progress file that cannot be read is kept, and the learner told.
        Case {
            name: "13_a_damaged_progress_file_is_kept",
            files: vec![
                (".learner/progress.json", DAMAGED_PROGRESS.into()),
                (
                    ".learner/h/h.wgsl",
                    learner_copy("    out[lid.x] = a[lid.x] + 10.0;"),
                ),
            ],
            args: vec!["check", "h", "--backend", "sim"],
            code: 1,
            says: vec![
                "could not be read, so it was kept as",
                "progress.json.damaged",
            ],
            after: Some(damaged_progress_kept),
            ..Case::default()
        },
        Case {
            name: "13_hint_keeps_a_damaged_progress_file_too",
            edits: vec![(
                "args: [out, a]\n",
                "args: [out, a]\nhints:\n  - Which threads have an element?\n".into(),
            )],
            files: vec![(".learner/progress.json", DAMAGED_PROGRESS.into())],
            args: vec!["hint", "h"],
            code: 0,
            says: vec!["progress.json.damaged"],
            after: Some(damaged_progress_kept),
            ..Case::default()
        },
        // 14. Messages that name the fault and its place.
        Case {
            name: "14_a_value_too_large_is_not_told_to_be_at_least_1",
            edits: vec![("grid: [1]", "grid: [5000000000]".into())],
            args: vec!["list"],
            code: 2,
            says: vec!["ch.md:8: `grid` entry 1 is 5000000000; it can be at most 4,294,967,295"],
            never: vec!["at least 1", "keep it small"],
            ..Case::default()
        },
        Case {
            name: "14_a_broken_spec_is_the_only_error",
            edits: vec![("grid: [1]", "grid: [1".into())],
            args: vec!["list"],
            code: 2,
            // The flow list runs on to the next line, where YAML notices.
            says: vec!["1 problem(s)", "ch.md:9:"],
            never: vec!["no such"],
            ..Case::default()
        },
        Case {
            name: "14_an_i32_binding_for_an_f32_buffer_is_named",
            edits: vec![
                (
                    "var<storage, read_write> out: array<f32>",
                    "var<storage, read_write> out: array<i32>".into(),
                ),
                (STORE, "        out[lid.x] = i32(a[lid.x]) + 10;".into()),
            ],
            args: vec!["run", "h", "--backend", "sim"],
            code: 1,
            says: vec!["ch.md:19: `out` (binding 0) holds i32 values, but the spec's `out` is f32"],
            never: vec!["PASS"],
            ..Case::default()
        },
        Case {
            name: "14_a_deep_expression_is_placed_at_its_line",
            edits: vec![(
                STORE,
                format!(
                    "        out[lid.x] = {}a[lid.x]{} + 10.0;",
                    "(".repeat(20_000),
                    ")".repeat(20_000)
                ),
            )],
            args: vec!["run", "h", "--backend", "sim"],
            limit: 5,
            code: 1,
            says: vec!["ch.md:25: brackets nest 20003 deep on this line"],
            ..Case::default()
        },
        Case {
            name: "14_includes_stay_inside_the_book",
            edits: vec![(
                "```wgsl,puzzle=h\n",
                "```wgsl,puzzle=h\n{{#include /etc/passwd}}\n".into(),
            )],
            args: vec!["list"],
            code: 2,
            says: vec!["ch.md:19:", "it lies outside the book's folder"],
            never: vec!["root:"],
            ..Case::default()
        },
        Case {
            name: "14_a_hang_on_lavapipe_reads_as_a_hang",
            needs: Needs::CpuAdapter,
            files: vec![("loop.wgsl", loop_file)],
            args: vec!["run", "h", "--file", "{book}/loop.wgsl", "--timeout", "3"],
            limit: 3,
            code: 1,
            says: vec!["did not finish within 3s"],
            never: vec!["wrong", "PASS: h"],
            ..Case::default()
        },
    ]
}

const DAMAGED_PROGRESS: &str =
    "{ \"puzzles\": { \"p01_map\": { \"langs\": { \"wgsl\": \"pass\" } }, } }";

const CUDA_WITH_HEADER: &str = "```cuda,puzzle=h\n#include \"huge.cuh\"\n\
extern \"C\" __global__ void add_ten(float* out, const float* a) {\n\
    // BEGIN PUZZLE\n    if (threadIdx.x < 4) out[threadIdx.x] = a[threadIdx.x] + 10.0f;\n    // END PUZZLE\n}\n```\n";

/// The spec block of [`CHAPTER`], to declare twice.
fn spec_block() -> String {
    let start = CHAPTER.find("```puzzle").unwrap();
    let end = CHAPTER[start + 3..].find("```\n").unwrap() + start + 7;
    CHAPTER[start..end].to_string()
}

/// The puzzle sized by a constant SIZE (4), with one stress case.
fn sized_with_stress(size: &str) -> Vec<(&'static str, String)> {
    vec![
        (
            "kernel: add_ten\n",
            "kernel: add_ten\nconst: { SIZE: 4 }\n".into(),
        ),
        ("  out: { len: 4,", "  out: { len: SIZE,".into()),
        ("  a: { len: 4,", "  a: { len: SIZE,".into()),
        (
            "  out: [10, 11, 12, 13]\n",
            format!("  out: [10, 11, 12, 13]\nstress:\n  - {{ SIZE: {size} }}\n"),
        ),
        ("lid.x < 4u", "lid.x < arrayLength(&out)".into()),
    ]
}

/// A `var<workgroup>` of `len` floats, stored to by the solution.
fn workgroup_array(len: u64) -> Vec<(&'static str, String)> {
    vec![
        (
            "@compute",
            format!("var<workgroup> big: array<f32, {len}>;\n@compute"),
        ),
        (STORE, format!("        big[lid.x] = 1.0;\n{STORE}")),
    ]
}

/// About 12 MB of WGSL: the kernel, then comment lines.
fn big_wgsl() -> String {
    let mut text = learner_copy("    if (lid.x < 4u) { out[lid.x] = a[lid.x] + 10.0; }");
    for i in 0..150_000 {
        text.push_str(&format!("// filler line {i:>6} {}\n", "-".repeat(60)));
    }
    text
}

fn not_recorded_as_passed(book: &Path) -> Result<(), String> {
    let progress = std::fs::read_to_string(book.join(".learner/progress.json"))
        .map_err(|e| format!("progress.json: {e}"))?;
    if progress.contains("\"pass\"") {
        return Err(format!(
            "a failing check was recorded as a pass:\n{progress}"
        ));
    }
    Ok(())
}

fn damaged_progress_kept(book: &Path) -> Result<(), String> {
    let kept = std::fs::read_to_string(book.join(".learner/progress.json.damaged"))
        .map_err(|e| format!("the damaged file was not kept: {e}"))?;
    if kept != DAMAGED_PROGRESS {
        return Err(format!("the kept file changed:\n{kept}"));
    }
    Ok(())
}
