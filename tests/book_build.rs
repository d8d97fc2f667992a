//! The real book, built by the real `mdbook`, with the real preprocessor.

use book_tests::*;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::LazyLock;
use std::time::Duration;

const CHAPTERS: &[&str] = &[
    "fundamentals/p01_map",
    "fundamentals/p02_zip",
    "fundamentals/p03_guard",
    "fundamentals/p04_map_2d",
    "fundamentals/p05_broadcast",
    "fundamentals/p06_blocks",
    "fundamentals/p07_blocks_2d",
    "fundamentals/p08_shared",
];

/// The debugging cases whose WGSL section is checked: the case, the words
/// its report must hold, and whether its kernel as given can be traced for
/// a diagram (a kernel that never ends cannot).
const DEBUGGING_CASES: &[(&str, &str, bool)] = &[
    ("d01_missing_guard", "out-of-bounds index", true),
    ("d02_missing_columns", "were never written", true),
    ("d03_race_that_passes", "data race", true),
    ("d04_halo_off_by_one", "uninitialized read", true),
    (
        "d05_barrier_in_branch",
        "barrier in non-uniform control flow",
        true,
    ),
    ("d07_sanitizer_race", "data race", true),
    ("d08_wait_forever", "did not finish", false),
];

/// The environment variable naming a folder where the real book's build is
/// kept for CI's page checks (absent: a temporary folder, removed after).
const KEEP_BUILD: &str = "BOOK_TESTS_KEEP_BUILD";

/// Every file under `src/` and `kernels/`, to prove a build changed none.
type Sources = (Vec<(PathBuf, Vec<u8>)>, Vec<(PathBuf, Vec<u8>)>);

/// The real book, built once for the checks of this group that read it.
struct Built {
    /// Where it was built.
    out: PathBuf,
    /// The sources as they were before the build.
    before: Sources,
    /// The temporary folder `out` is in, unless CI keeps the build.
    _temp: tempfile::TempDir,
}

static BUILT: LazyLock<Result<Built, String>> = LazyLock::new(|| {
    let root = root();
    let before = (snapshot(&root.join("src")), snapshot(&root.join("kernels")));
    let temp = tempfile::tempdir().map_err(|e| e.to_string())?;
    // CI reads this build for its page checks instead of building the whole
    // book a second time (.ci/run, "mdbook build"): it names a folder to keep.
    let kept = std::env::var_os(KEEP_BUILD).map(PathBuf::from);
    let out = kept.unwrap_or_else(|| temp.path().to_path_buf());
    let output = build(&root, &out);
    if !output.status.success() {
        return Err(format!(
            "mdbook build failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(Built {
        out,
        before,
        _temp: temp,
    })
});

/// The real book's build, or the test fails with mdbook's words.
fn built() -> &'static Built {
    BUILT.as_ref().unwrap_or_else(|e| panic!("{e}"))
}

fn the_book_builds_with_real_results_and_leaves_sources_alone() {
    let root = root();
    let Built { out, before, .. } = built();
    for chapter in CHAPTERS {
        let html = std::fs::read_to_string(out.join(format!("{chapter}.html"))).unwrap();
        // Each chapter: a configuration table, a skeleton that fails, and solutions that pass (WGSL)
        // or compile (CUDA without a GPU), labelled with their device.
        for part in [
            "<td>kernel</td>",
            "FILL ME IN",
            "<strong>FAIL</strong>, as expected before you solve it",
            "<summary>WGSL solution (<code>kernels/",
            "<summary>CUDA C solution (<code>kernels/",
            // The skeleton's heading names the learner's copy and its check.
            "your copy is <code>.learner/",
            "kernel time",
        ] {
            assert!(html.contains(part), "{chapter}.html lacks {part:?}");
        }
        // Each verdict line: where it ran, then the word ("On NVIDIA H200,
        // through Vulkan: PASS"), the device's provenance its title.
        let verdicts: Vec<&str> = html
            .split("<p class=\"puzzle-verdict")
            .skip(1)
            .map(|v| v.split("</p>").next().unwrap_or(v))
            .collect();
        let wgpu_ok = verdicts
            .iter()
            .any(|v| v.contains(", through ") && v.contains("</span>: <strong>PASS</strong>"));
        assert!(wgpu_ok, "{chapter}.html shows no WGSL pass through wgpu");
        // A CUDA GPU's title names its architecture (", sm_90"); without a
        // GPU, the kernel is compiled "For sm_90, by NVRTC …".
        let cuda_ok = verdicts.iter().any(|v| {
            (v.contains("\">For sm_") && v.contains("</span>: <strong>COMPILED</strong>"))
                || (v.contains(", sm_") && v.contains("</span>: <strong>PASS</strong>"))
        });
        assert!(cuda_ok, "{chapter}.html shows no CUDA result");
        let shown = mdbook_puzzles::playground::without_bundles(&html);
        assert!(
            !shown.contains("```puzzle") && !shown.contains("BEGIN PUZZLE"),
            "{chapter}.html has raw blocks"
        );
    }
    // The debugging cases: a whole kernel given with its bug, no gap and no
    // marker, the report that names the bug, and the fix folded away.
    for &(case, report, traced) in DEBUGGING_CASES {
        let html = std::fs::read_to_string(out.join(format!("debugging/{case}.html"))).unwrap();
        let (given, _) = html
            .split_once("<summary>WGSL solution")
            .unwrap_or_else(|| panic!("{case}.html has no WGSL solution"));
        let wgsl = given
            .rfind("puzzle-kernel puzzle-wgsl")
            .map(|at| &given[at..])
            .unwrap_or_else(|| panic!("{case}.html has no WGSL section"));
        let diagram = "as the CPU checker traced the kernel as given";
        for part in [
            "the kernel as given</strong>",
            "<div class=\"puzzle-given\">",
            "<strong>FAIL</strong>, as expected before you solve it",
            report,
        ]
        .into_iter()
        .chain(traced.then_some(diagram))
        {
            assert!(
                wgsl.contains(part),
                "{case}.html's kernel as given lacks {part:?}"
            );
        }
        let shown = mdbook_puzzles::playground::without_bundles(&html);
        for absent in ["FILL ME IN", "AS GIVEN", "BEGIN PUZZLE"] {
            assert!(!shown.contains(absent), "{case}.html shows {absent:?}");
        }
    }
    let after = (snapshot(&root.join("src")), snapshot(&root.join("kernels")));
    assert!(
        *before == after,
        "the build changed files under src/ or kernels/"
    );
}

/// Every page of `SUMMARY.md`, as its path under the built book.
fn summary_html() -> Vec<String> {
    let pages = book_tests::summary_pages();
    assert!(!pages.is_empty(), "src/SUMMARY.md lists no page");
    pages
        .into_iter()
        .map(|page| format!("{page}.html"))
        .collect()
}

/// No page of the built book, in its text or its folds, names the
/// project's scripts, result files, modules or fixtures, or narrates the
/// machines and sessions the book was made on ([`project_talk`] says which
/// words, and why): every finding, page by page.
fn pages_speak_about_gpus_not_about_how_the_book_was_made() {
    let out = &built().out;
    let mut found = Vec::new();
    let mut pages = 0;
    for page in summary_html() {
        let html =
            std::fs::read_to_string(out.join(&page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        pages += 1;
        let talk = project_talk(&page_words(&html));
        if !talk.is_empty() {
            found.push(format!(
                "{page}, {} line(s):\n  {}",
                talk.len(),
                talk.join("\n  ")
            ));
        }
    }
    assert!(pages > 60, "only {pages} pages in the summary");
    assert!(
        found.is_empty(),
        "{} page(s) talk about the project instead of the GPU:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// Every HTML page of the built book but the print version (whose links
/// mdBook rewrites to its own anchors), with its path under the book.
fn html_pages(out: &std::path::Path) -> Vec<(PathBuf, String)> {
    let mut pages = Vec::new();
    let mut folders = vec![out.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{folder:?}: {e}")) {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "html")
                && path.file_name().is_some_and(|n| n != "print.html")
            {
                let html =
                    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
                let relative = path
                    .strip_prefix(out)
                    .expect("under the book")
                    .to_path_buf();
                pages.push((relative, html));
            }
        }
    }
    pages
}

/// A reader who follows a link between the book's pages arrives where it
/// says: the page exists, and so does the heading or figure it names.
fn every_link_between_pages_and_every_anchor_resolves() {
    let out = &built().out;
    let pages = html_pages(out);
    assert!(pages.len() > 60, "only {} pages built", pages.len());
    let broken = links::broken_links(out, &pages);
    assert!(
        broken.is_empty(),
        "{} broken link(s):\n{}",
        broken.len(),
        broken.join("\n")
    );
}

/// No chapter weighs more than a reader on a phone should load
/// ([`links::PAGE_BYTES`]), but those listed as still too heavy, each held
/// to its ceiling.
fn no_chapter_is_heavier_than_the_budget() {
    let out = &built().out;
    let sizes: Vec<(String, usize)> = summary_html()
        .into_iter()
        .map(|page| {
            let bytes = std::fs::metadata(out.join(&page))
                .unwrap_or_else(|e| panic!("{page}: {e}"))
                .len() as usize;
            (page, bytes)
        })
        .collect();
    let faults = links::over_budget(&sizes, links::HEAVY_PAGES);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// The control for [`pages_speak_about_gpus_not_about_how_the_book_was_made`]:
/// each kind of finding on a page made for it, in a fold, a table, a
/// chart's label and kernel code; and nothing found in the words a page may
/// say, or in a command a reader types.
fn the_project_talk_check_finds_what_it_is_for() {
    let faulty = r#"<html><head><title>x</title></head><body><main>
<p>Timed by <code>runner record</code> on the GPU machine.</p>
<details><summary>How this was measured</summary>
<p>The profile is in <code>results/profiles/ncu-p41.txt</code>, made by
<code>.ci/gpu/experiments/softmax_backward_profile.sh</code>.</p>
<table><tr><td>H200, the session in the tables</td></tr></table>
</details>
<p>The reference (<code>training.rs</code>) is checked by <code>runner/core/src/spec</code>.</p>
<p>Measured where that ends (<code>runner/engine/tests/fixtures/races.toml</code>).</p>
<p>When this was written, the machines lent to this book had one GPU.</p>
<p>Why, those runs do not say; the machine went back before a profile could be taken.</p>
<p>Their files were not kept.</p>
<svg role="img" aria-label="timed by sgemm_jit.py"><text>x</text></svg>
<p class="puzzle-verdict"><strong>PASS</strong>: passes · <span class="puzzle-device" title="sim · CPU checker (PTX from NVRTC 12.9) (CPU, PTX for compute_90a, interleaving 0)">checked on the CPU</span></p>
<p class="puzzle-verdict"><strong>PASS</strong>: passes · <span class="puzzle-device" title="wgpu · NVIDIA H200 (GPU, Vulkan)">on NVIDIA H200, through Vulkan</span></p>
<p class="puzzle-verdict"><span class="puzzle-device" title="cuda · NVIDIA H200 (GPU, CUDA 13.0, sm_90)">On NVIDIA H200</span>: <strong>PASS</strong></p>
<p>Checked by the CPU checker (naga, interleaving 0, subgroups of 8).</p>
<p class="puzzle-recorded">Recorded on NVIDIA H200, 2026-12-03 (runner 0.1.0):</p>
<pre><code class="language-cuda">// see docs/AUTHORING.md
</code></pre>
</main></body></html>"#;
    let words = page_words(faulty);
    let found = project_talk(&words);
    for expected in [
        "runner record",
        "results/profiles",
        ".ci/gpu",
        "the session in the tables",
        "training.rs",
        "runner/engine/tests/fixtures",
        "machines lent",
        "machine went back",
        "were not kept",
        "sgemm_jit.py",
        "docs/AUTHORING.md",
        "sim · CPU checker",
        "wgpu · NVIDIA H200",
        "cuda · NVIDIA H200",
        "(naga, interleaving 0",
        "(runner 0.1.0)",
    ] {
        assert!(
            found.iter().any(|f| f.contains(expected)),
            "the check missed {expected:?}:\n{found:#?}\nin the words:\n{words}"
        );
    }
    let fine = r#"<html><body><main>
<p>On NVIDIA H200, CUDA 13.0, 2026-11-28: 4,140 GB/s, the median of 20 device-timed runs.</p>
<p>Every figure here is the machine code the driver made; the sum goes silently wrong.</p>
<p>Check it on your machine: <code>runner bench p15_map --file kernels/performance/p15_map.cu</code>.</p>
<p>Then once more with random inputs (runner run p06_blocks --stress).</p>
<p class="puzzle-verdict puzzle-pass"><span class="puzzle-mark">✔</span> <span class="puzzle-device" title="NVIDIA H200, CUDA 13.0, sm_90, NVIDIA driver 580.159.04, NVRTC 13.0">On NVIDIA H200</span>: <strong>PASS</strong> · kernel time 5.552 µs</p>
<p class="puzzle-verdict puzzle-pass"><span class="puzzle-mark">✔</span> <span class="puzzle-device" title="CPU checker (PTX from NVRTC 12.9), PTX for compute_90a">Checked on the CPU</span>: <strong>PASS</strong></p>
<p>The CUDA · WGSL pair, and the same kernel on CUDA and wgpu.</p>
<pre><code class="language-console">bash .ci/setup
runner run p24_block_scan --backend sim --file early_read.wgsl
</code></pre>
<script type="application/json" class="puzzle-bundle">{"src": "results/x.json"}</script>
</main></body></html>"#;
    let found = project_talk(&page_words(fine));
    assert!(
        found.is_empty(),
        "the check found faults in fine words: {found:#?}"
    );
}

/// A build in which nothing changed is answered by the memo of the last one;
/// a change to a file a chapter includes (not in mdBook's input, which
/// holds the chapter alone) still reaches the page.
fn a_warm_build_reuses_the_book_until_an_included_file_changes() {
    // The fixture's chapter, its inline kernel moved to a file of its own.
    let passing = fixture_chapter("passing");
    let open = passing.find("```wgsl,puzzle=fx\n").unwrap();
    let close = open + passing[open..].find("}\n```\n").unwrap() + "}\n```\n".len();
    let chapter = format!(
        "{}```wgsl,puzzle=fx\n{{{{#include ../kernels/add_one.wgsl}}}}\n```\n{}",
        &passing[..open],
        &passing[close..]
    );
    let kernel = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
                  @group(0) @binding(1) var<storage, read> a: array<f32>;\n\
                  @compute @workgroup_size(4)\n\
                  fn add_one(@builtin(local_invocation_id) lid: vec3<u32>) {\n\
                  \x20   // BEGIN PUZZLE (roughly 1 line)\n\
                  \x20   out[lid.x] = a[lid.x] + 1.0;\n\
                  \x20   // END PUZZLE\n\
                  }\n";
    let book = temp_book(&chapter, "bail");
    // Outside src/, as the book keeps its kernels.
    std::fs::create_dir_all(book.path().join("kernels")).unwrap();
    std::fs::write(book.path().join("kernels/add_one.wgsl"), kernel).unwrap();
    let page = |what: &str| {
        let out = tempfile::tempdir().unwrap();
        let output = build(book.path(), out.path());
        assert!(
            output.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        std::fs::read_to_string(out.path().join("chapter.html")).unwrap()
    };
    let first = page("first build");
    assert!(first.contains("<strong>PASS</strong>"), "{first}");
    let memo = book.path().join("target/puzzle-cache/book-memo.json");
    assert!(memo.is_file(), "the first build kept no memo");
    assert_eq!(page("warm build"), first, "a warm build changed the page");

    std::fs::write(
        book.path().join("kernels/add_one.wgsl"),
        kernel.replace("+ 1.0", "+ 2.0"),
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let output = build(book.path(), out.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("4 of 4 elements of `out` are wrong"),
        "the included kernel changed, but the build did not see it:\n{stderr}"
    );
}

fn bail_fails_the_build_at_the_kernel_line() {
    let book = temp_book(&fixture_chapter("compile_error"), "bail");
    let out = tempfile::tempdir().unwrap();
    let output = build(book.path(), out.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "a broken solution must fail the build"
    );
    // The `;` missing on line 25 is reported there, not at line 27's `}`.
    assert!(
        stderr.contains("chapter.md:25: `;` is missing at the end of this line"),
        "{stderr}"
    );
}

fn continue_shows_the_compiler_message_in_the_page() {
    let book = temp_book(&fixture_chapter("compile_error"), "continue");
    let out = tempfile::tempdir().unwrap();
    let output = build(book.path(), out.path());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let html = std::fs::read_to_string(out.path().join("chapter.html")).unwrap();
    assert!(html.contains("This kernel failed the book"), "{html}");
    assert!(
        html.contains("The book’s check found a problem on this page")
            || html.contains("The book's check found a problem on this page"),
        "{html}"
    );
    assert!(
        html.contains("chapter.md:25: ") && html.contains("is missing at the end of this line"),
        "{html}"
    );
}

fn serve_shows_results_and_rebuilds_on_edit() {
    // `bail`, as the book itself is configured: `mdbook build` fails on a
    // broken kernel, but under `serve` the failure must reach the page the
    // reader has open, not leave the old one standing.
    let book = temp_book(&fixture_chapter("passing"), "bail");
    let out = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut server = mdbook()
        .arg("serve")
        .arg(book.path())
        .args(["-n", "127.0.0.1", "-p", &port.to_string(), "-d"])
        .arg(out.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting mdbook serve");
    let page = || get(port, "/chapter.html").unwrap_or_default();
    let served = wait_for(Duration::from_secs(120), || {
        page().contains("<strong>PASS</strong>")
    });
    // Break the solution: the page must follow.
    let broken = fixture_chapter("passing").replace("a[lid.x] + 1.0;", "a[lid.x] + 1.0");
    std::fs::write(book.path().join("src/chapter.md"), broken).unwrap();
    let rebuilt = wait_for(Duration::from_secs(60), || {
        page().contains("This kernel failed the book")
    });
    let _ = server.kill();
    let _ = server.wait();
    assert!(served, "mdbook serve never showed a passing result");
    assert!(
        rebuilt,
        "mdbook serve did not re-run the puzzle after the edit"
    );
}

fn the_runner_cli_prints_out_and_expected() {
    let output = Command::new("cargo")
        .args(["run", "--quiet", "-p", "runner-cli", "--", "run", "p01_map"])
        .current_dir(root())
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains(
            "out:      [10.0, 11.0, 12.0, 13.0]\nexpected: [10.0, 11.0, 12.0, 13.0]\nPASS"
        ),
        "{stdout}"
    );
}

fn runner_cli(args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let mut command = Command::new("cargo");
    command
        .args(["run", "--quiet", "-p", "runner-cli", "--"])
        .args(args)
        .current_dir(root());
    command.env("XDG_RUNTIME_DIR", std::env::temp_dir());
    for (k, v) in env {
        command.env(k, v);
    }
    let output = command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code().unwrap_or(-1), text)
}

fn no_adapter_is_a_sentence_not_a_panic() {
    // No Vulkan driver at all: wgpu finds no adapter.
    let no_vulkan = [
        ("VK_DRIVER_FILES", "/nonexistent.json"),
        ("VK_ICD_FILENAMES", "/nonexistent.json"),
    ];
    // By default WGSL still runs, for real, on the CPU checker, and says so.
    let (code, text) = runner_cli(&["run", "p03_guard"], &no_vulkan);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("PASS: p03_guard WGSL (solution) on sim · CPU checker"),
        "{text}"
    );
    // Asked for wgpu by name, the missing adapter is a sentence with what to install.
    let (code, text) = runner_cli(&["run", "p01_map", "--backend", "wgpu"], &no_vulkan);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("wgpu unavailable: no GPU adapter found"),
        "{text}"
    );
    assert!(
        text.contains("apt-get install mesa-vulkan-drivers libvulkan1"),
        "{text}"
    );
}

fn missing_nvrtc_is_a_sentence_not_a_panic() {
    // Point the wheel lookup nowhere and keep the loader from finding one elsewhere.
    let (code, text) = runner_cli(
        &["run", "p01_map", "--backend", "cuda"],
        &[("NVRTC_LIB_DIR", "/nonexistent"), ("LD_LIBRARY_PATH", "")],
    );
    assert_ne!(code, 101, "the runner panicked:\n{text}");
    if code == 2 {
        assert!(
            text.contains("cuda unavailable:")
                && text.contains("pip install nvidia-cuda-nvrtc-cu12"),
            "{text}"
        );
    } else {
        // A system-wide NVRTC (a CUDA toolkit install) was found instead: then it must have compiled.
        assert!(text.contains("COMPILED") || text.contains("PASS"), "{text}");
    }
}

/// This group's trials, for the suite's `main`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::panicking_trials!("book_build":
        the_book_builds_with_real_results_and_leaves_sources_alone,
        pages_speak_about_gpus_not_about_how_the_book_was_made,
        the_project_talk_check_finds_what_it_is_for,
        every_link_between_pages_and_every_anchor_resolves,
        no_chapter_is_heavier_than_the_budget,
        a_warm_build_reuses_the_book_until_an_included_file_changes,
        bail_fails_the_build_at_the_kernel_line,
        continue_shows_the_compiler_message_in_the_page,
        serve_shows_results_and_rebuilds_on_edit,
        the_runner_cli_prints_out_and_expected,
        no_adapter_is_a_sentence_not_a_panic,
        missing_nvrtc_is_a_sentence_not_a_panic,
    )
}
