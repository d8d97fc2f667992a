//! A small book in memory for the core's tests: p1 (WGSL and CUDA, from
//! kernel files) and p2 (WGSL written inline in its chapter, with a reason
//! for having no CUDA kernel).

use crate::chapter::book::Book;
use crate::source::include::MemoryFiles;
use std::path::{Path, PathBuf};

pub(crate) fn book() -> Book {
    let spec = |id: &str, extra: &str| {
        format!(
            "```puzzle\nid: {id}\ntitle: T {id}\nkernel: k\ngrid: [1]\nblock: [4]\nbuffers:\n  out: {{ len: 4, output: true }}\nargs: [out]\nexpect:\n  out: [1, 1, 1, 1]\nhints:\n  - first\n  - second\n{extra}```\n"
        )
    };
    let wgsl = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n@compute @workgroup_size(4)\nfn k(@builtin(local_invocation_id) l: vec3<u32>) {\n    // BEGIN PUZZLE\n    out[l.x] = 1.0;\n    // END PUZZLE\n}\n";
    let cuda = "extern \"C\" __global__ void k(float* out) {\n    // BEGIN PUZZLE\n    out[threadIdx.x] = 1.0f;\n    // END PUZZLE\n}\n";
    let files = MemoryFiles(
        [
            (
                PathBuf::from("/b/src/../kernels/p1/k.wgsl"),
                wgsl.to_string(),
            ),
            (PathBuf::from("/b/src/../kernels/p1/k.cu"), cuda.to_string()),
        ]
        .into(),
    );
    let one = format!(
        "# One\n\n{}\n```wgsl,puzzle=p1\n{{{{#include ../kernels/p1/k.wgsl}}}}\n```\n\n```cuda,puzzle=p1\n{{{{#include ../kernels/p1/k.cu}}}}\n```\n",
        spec("p1", "")
    );
    let two = format!(
        "# Two\n\n{}\n```wgsl,puzzle=p2\n{wgsl}```\n",
        spec("p2", "why_no_kernel: { cuda: \"shown in WGSL only\" }\n")
    );
    Book::from_chapters(
        Path::new("/b"),
        Path::new("/b/src"),
        [
            (PathBuf::from("/b/src/one.md"), one),
            (PathBuf::from("/b/src/two.md"), two),
        ],
        &files,
    )
    .unwrap_or_else(|e| panic!("{e:?}"))
}
