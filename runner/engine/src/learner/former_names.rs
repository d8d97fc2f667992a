//! Names the book has used before (AUTHORING.md, "Names"). A learner's
//! copies under `.learner/` and their progress are kept by name, so when a
//! puzzle or a kernel file is renamed, the learner's work under the old name
//! moves to the new one instead of being left behind beside a fresh skeleton.

/// Puzzle ids, old and new: the view variants took their puzzle's number,
/// the debugging cases two digits, and Part VI's Hopper parts (once Puzzle
/// 36) moved ahead of the GEMM that uses them (once 34) and its attention
/// (once 35).
pub const IDS: &[(&str, &str)] = &[
    ("v04_map_2d_view", "p04_map_2d_view"),
    ("v05_broadcast_view", "p05_broadcast_view"),
    ("v07_blocks_2d_view", "p07_blocks_2d_view"),
    ("v08_shared_view", "p08_shared_view"),
    ("d1_missing_guard", "d01_missing_guard"),
    ("d2_missing_columns", "d02_missing_columns"),
    ("d3_race_that_passes", "d03_race_that_passes"),
    ("d4_halo_off_by_one", "d04_halo_off_by_one"),
    ("d5_barrier_in_branch", "d05_barrier_in_branch"),
    ("d6_printf_finds_it", "d06_printf_finds_it"),
    ("d7_sanitizer_race", "d07_sanitizer_race"),
    ("d8_wait_forever", "d08_wait_forever"),
    ("p36_mbarrier_ring", "p34_mbarrier_ring"),
    ("p36_bulk_copy", "p34_bulk_copy"),
    ("p36_cluster_sum", "p34_cluster_sum"),
    ("p34_gemm_wmma", "p35_gemm_wmma"),
    ("p34_gemm_mma", "p35_gemm_mma"),
    ("p34_gemm_async", "p35_gemm_async"),
    ("p34_gemm_wgmma", "p35_gemm_wgmma"),
    ("p34_gemm_tma", "p35_gemm_tma"),
    ("p34_gemm_cluster", "p35_gemm_cluster"),
    ("p35_attention_bf16", "p36_attention_bf16"),
];

/// Kernel files renamed to the kernel they hold: (puzzle id, old stem, new stem).
pub const FILES: &[(&str, &str, &str)] = &[
    (
        "p12_scan_two_kernels",
        "prefix_sum_two_kernels",
        "scan_two_kernels",
    ),
    (
        "p18_scan_reduce_then_scan",
        "reduce_then_scan",
        "scan_reduce_then_scan",
    ),
    ("p27_fence_flag", "sum_last_block", "fence_flag"),
    (
        "p29_add_layernorm_unfused",
        "add_layernorm",
        "add_layernorm_unfused",
    ),
    ("p30_chain_fused", "chain", "bias_gelu_scale"),
    ("p30_chain_unfused", "chain", "chain_unfused"),
    ("p31_attention_naive", "attention", "attention_naive"),
    ("p32_embedding_quads", "embedding", "embed_quads"),
    ("p32_embedding_rows", "embedding", "embed_rows"),
    ("p34_bulk_copy", "bulk_copy", "bulk_copy_reverse"),
];

/// The id `id` had before, if it was renamed.
pub fn former_id(id: &str) -> Option<&'static str> {
    IDS.iter().find(|(_, new)| *new == id).map(|(old, _)| *old)
}

/// Where a learner's copy named `file` (`bias_gelu_scale.cu`) of puzzle `id`
/// may lie under an older name, relative to the workspace, newest first:
/// the old file name in the puzzle's folder, then the old id's folder.
pub fn former_copies(id: &str, file: &str) -> Vec<String> {
    let (stem, ext) = file.rsplit_once('.').unwrap_or((file, ""));
    let mut names = vec![file.to_string()];
    for (_, old, _) in FILES.iter().filter(|(p, _, new)| *p == id && *new == stem) {
        names.push(format!("{old}.{ext}"));
    }
    let mut folders = vec![id];
    folders.extend(former_id(id));
    let mut found = Vec::new();
    for folder in folders {
        for name in &names {
            if folder != id || name != file {
                found.push(format!("{folder}/{name}"));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn former_copies_table() {
        let cases: &[(&str, &str, &[&str])] = &[
            ("p01_map", "add_10.cu", &[]),
            (
                "p04_map_2d_view",
                "add_10_2d_view.cu",
                &["v04_map_2d_view/add_10_2d_view.cu"],
            ),
            (
                "p30_chain_fused",
                "bias_gelu_scale.wgsl",
                &["p30_chain_fused/chain.wgsl"],
            ),
        ];
        for (id, file, want) in cases {
            assert_eq!(former_copies(id, file), *want, "{id}/{file}");
        }
    }

    #[test]
    fn every_name_is_renamed_once() {
        let mut olds: Vec<&str> = IDS.iter().map(|(old, _)| *old).collect();
        olds.sort();
        olds.dedup();
        assert_eq!(olds.len(), IDS.len());
        assert!(
            IDS.iter()
                .all(|(old, new)| former_id(old).is_none() && old != new)
        );
    }
}
