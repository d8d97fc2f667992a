//! NVRTC, the CUDA C compiler that needs no GPU: found (a CUDA toolkit's,
//! or the pip wheel's), loaded once per process, and asked to compile with
//! the CCCL headers (libcu++, CUB) on its include path.
//!
//! cudarc panics when it cannot load libnvrtc, so the library is probed
//! first and its absence is a sentence that says what to install. Compile
//! errors keep NVRTC's message; its `name(LINE)` locations are re-pointed at
//! the kernel file's lines.

// cudarc's probes, nvrtcVersion and loading the wheel's libraries need it.
#![allow(unsafe_code)]

use cudarc::nvrtc::{CompileError, CompileOptions};
use puzzle_core::source::diag::Located;
use puzzle_core::source::text::SourceText;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// Why NVRTC cannot be used here, with what to install.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NvrtcUnavailable(pub String);

/// What a compile gave: PTX, or errors at the kernel file's lines.
pub type Compiled = Result<String, Vec<Located>>;

/// `compile`, with results kept for the process by source and target, for
/// every backend that compiles (the GPU's and the CPU checker's): a
/// chapter's solution is compiled once for its teaching run and its stress
/// runs, and headers such as `cuda/std/mdspan` make each compile take a
/// second or more.
pub fn compile_cached(source: &SourceText, arch: &'static str) -> Compiled {
    static COMPILED: OnceLock<Mutex<HashMap<(blake3::Hash, &'static str), Compiled>>> =
        OnceLock::new();
    let cache = COMPILED.get_or_init(Mutex::default);
    let key = (blake3::hash(source.text.as_bytes()), arch);
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return hit;
    }
    let result = compile(source, arch);
    if let Ok(mut cache) = cache.lock() {
        cache.insert(key, result.clone());
    }
    result
}

/// Compiles CUDA C to PTX for `arch`. Errors point at the kernel file's lines.
pub fn compile(source: &SourceText, arch: &'static str) -> Result<String, Vec<Located>> {
    let name = source
        .main_file()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "kernel.cu".into());
    // Line information costs nothing at run time and lets compute-sanitizer
    // (`--sanitize`) name the line of each hazard.
    let mut options = vec![
        "--std=c++17".to_string(),
        "--generate-line-info".to_string(),
    ];
    options.extend(
        include_dirs()
            .iter()
            .map(|d| format!("--include-path={}", d.display())),
    );
    let options = CompileOptions {
        arch: Some(arch),
        name: Some(name.clone()),
        options,
        ..Default::default()
    };
    match cudarc::nvrtc::compile_ptx_with_opts(&source.text, options) {
        Ok(ptx) => Ok(ptx.to_src()),
        Err(CompileError::CompileError { log, .. }) => {
            let mut errors = map_log(&log.to_string_lossy(), &name, source);
            for e in &mut errors {
                if include_dirs().is_empty()
                    && e.message.contains("cannot open source file \"cuda/")
                {
                    e.message.push_str(
                        "\n(CCCL's headers were not found: `pip install nvidia-cuda-cccl-cu12`, \
                         install the CUDA toolkit, or set GPU_PUZZLES_CUDA_INCLUDE to the folder holding `cuda/std/mdspan`)",
                    );
                }
                if e.message.contains("cannot open source file \"crt/") {
                    e.message.push_str(
                        "\n(the CUDA headers' `crt/` folder was not found: `pip install nvidia-cuda-nvcc-cu12` \
                         (used for its headers only), install the CUDA toolkit, or add its `include` folder to GPU_PUZZLES_CUDA_INCLUDE)",
                    );
                }
            }
            Err(errors)
        }
        Err(other) => Err(vec![source.locate(1, format!("NVRTC failed: {other}"))]),
    }
}

/// Where NVRTC finds `#include <cuda/std/mdspan>`, `<cuda/pipeline>` and the
/// rest of CCCL (libcu++, CUB). In order: `GPU_PUZZLES_CUDA_INCLUDE`
/// (folders separated by `:`), a CUDA toolkit's own headers (CUDA 13 keeps
/// CCCL under `include/cccl`), then the pip wheel `nvidia-cuda-cccl-cu12`
/// (and `nvidia-cuda-runtime-cu12` for `cooperative_groups.h`). A toolkit
/// comes first because its headers match its NVRTC.
pub fn include_dirs() -> &'static [PathBuf] {
    static DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    DIRS.get_or_init(|| {
        let mut dirs: Vec<PathBuf> = Vec::new();
        if let Some(list) = std::env::var_os("GPU_PUZZLES_CUDA_INCLUDE") {
            dirs.extend(std::env::split_paths(&list).filter(|d| d.is_dir()));
        }
        let mut toolkits: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
            .iter()
            .filter_map(std::env::var_os)
            .map(PathBuf::from)
            .collect();
        toolkits.push(PathBuf::from("/usr/local/cuda"));
        if let Ok(entries) = std::fs::read_dir("/usr/local") {
            let mut versioned: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.to_string_lossy().contains("/cuda-"))
                .collect();
            versioned.sort();
            toolkits.extend(versioned.into_iter().rev());
        }
        for root in toolkits {
            for sub in ["targets/x86_64-linux/include", "include"] {
                let include = root.join(sub);
                let candidates = [include.join("cccl"), include.clone()];
                if let Some(cccl) = candidates.iter().find(|d| has_cccl(d)) {
                    dirs.push(cccl.clone());
                    // cooperative_groups.h and friends live beside CCCL, not in it.
                    if cccl != &include {
                        dirs.push(include);
                    }
                    break;
                }
            }
            if !dirs.is_empty() {
                break;
            }
        }
        if let Some(wheel) = python_package_dir("nvidia.cuda_cccl").map(|d| d.join("include"))
            && has_cccl(&wheel)
        {
            dirs.push(wheel);
        }
        // `cooperative_groups.h` comes with the CUDA runtime's headers, not
        // with CCCL: a toolkit has both; on a machine with wheels only, the
        // runtime's wheel (`nvidia-cuda-runtime-cu12`) supplies it.
        let has_groups = |d: &PathBuf| d.join("cooperative_groups.h").is_file();
        if !dirs.iter().any(has_groups)
            && let Some(runtime) =
                python_package_dir("nvidia.cuda_runtime").map(|d| d.join("include"))
            && has_groups(&runtime)
        {
            dirs.push(runtime);
        }
        // `<mma.h>` (WMMA, Part VI) includes "crt/mma.h", which the
        // runtime's wheel lacks; a toolkit has it, and so does nvcc's wheel
        // (`nvidia-cuda-nvcc-cu12`), which is used only for its headers.
        let has_crt = |d: &PathBuf| d.join("crt/mma.h").is_file();
        if !dirs.iter().any(has_crt)
            && let Some(nvcc) = python_package_dir("nvidia.cuda_nvcc").map(|d| d.join("include"))
            && has_crt(&nvcc)
        {
            dirs.push(nvcc);
        }
        dirs
    })
}

fn has_cccl(dir: &std::path::Path) -> bool {
    dir.join("cuda/std/mdspan").is_file()
}

/// Turns NVRTC's log (`name(12): error: ...`) into located messages.
fn map_log(log: &str, name: &str, source: &SourceText) -> Vec<Located> {
    let prefix = format!("{name}(");
    let mut found: Vec<Located> = Vec::new();
    for line in log.lines() {
        let parsed = line.strip_prefix(&prefix).and_then(|rest| {
            let (number, message) = rest.split_once("): ")?;
            Some((number.parse::<usize>().ok()?, message))
        });
        match parsed {
            Some((number, message)) => found.push(source.locate(number, message.trim())),
            // Context lines (source excerpts, carets) belong to the message above.
            None if !line.trim().is_empty()
                && !line.contains("error detected in the compilation") =>
            {
                if let Some(last) = found.last_mut() {
                    last.message.push('\n');
                    last.message.push_str(line);
                }
            }
            None => {}
        }
    }
    if found.is_empty() {
        found.push(source.locate(1, log.trim()));
    }
    found
}

/// Loads libnvrtc once per process; returns its version ("12.9") or why it is missing.
pub fn load() -> Result<String, NvrtcUnavailable> {
    static LOADED: OnceLock<Result<String, NvrtcUnavailable>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            // SAFETY: probing only attempts dlopen of NVRTC's library names; it never panics.
            let present = unsafe { cudarc::nvrtc::sys::is_culib_present() };
            if !present {
                preload_wheel()?;
            }
            let (mut major, mut minor) = (0, 0);
            // SAFETY: the library is loaded (checked above); nvrtcVersion writes two ints.
            unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) }
                .result()
                .map_err(|e| {
                    NvrtcUnavailable(format!("libnvrtc loaded but nvrtcVersion failed: {e:?}"))
                })?;
            Ok(format!("{major}.{minor}"))
        })
        .clone()
}

/// Finds NVRTC in the pip wheel and loads it by full path. cudarc then opens
/// it by soname, and the dynamic loader hands back the copy already loaded.
fn preload_wheel() -> Result<(), NvrtcUnavailable> {
    let unavailable = NvrtcUnavailable;
    let help = "install NVRTC (`pip install nvidia-cuda-nvrtc-cu12`, or the CUDA toolkit) \
                or put the folder holding libnvrtc.so on LD_LIBRARY_PATH";
    let dir = wheel_lib_dir().ok_or_else(|| unavailable(format!("libnvrtc not found: {help}")))?;
    let mut libs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| unavailable(format!("{}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            name.starts_with("libnvrtc") && name.contains(".so") && !name.contains(".alt.")
        })
        .collect();
    // The builtins library first: libnvrtc opens it by name during compilation.
    libs.sort_by_key(|p| !p.to_string_lossy().contains("builtins"));
    for lib in libs {
        // SAFETY: loading NVIDIA's own NVRTC libraries runs only their initialisers;
        // the handle is leaked so the library stays loaded for cudarc.
        let handle = unsafe { libloading::Library::new(&lib) }
            .map_err(|e| unavailable(format!("{}: {e}", lib.display())))?;
        std::mem::forget(handle);
    }
    // SAFETY: as above, a probe that only tries dlopen.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(unavailable(format!(
            "found {} but could not load libnvrtc from it: {help}",
            dir.display()
        )))
    }
}

/// `site-packages/nvidia/cuda_nvrtc/lib`, asked of the Python that pip installed into.
fn wheel_lib_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("NVRTC_LIB_DIR") {
        let dir = PathBuf::from(dir);
        return dir.is_dir().then_some(dir);
    }
    let dir = python_package_dir("nvidia.cuda_nvrtc")?.join("lib");
    dir.is_dir().then_some(dir)
}

/// The NVIDIA wheels the engine may use: NVRTC, CCCL's headers, the CUDA
/// runtime's headers.
const WHEELS: [&str; 4] = [
    "nvidia.cuda_nvrtc",
    "nvidia.cuda_cccl",
    "nvidia.cuda_runtime",
    "nvidia.cuda_nvcc",
];

/// The folder of one of [`WHEELS`], asked of the `python3` that pip
/// installed into. One interpreter answers for all of them, once a process:
/// starting Python costs about 0.1 s.
pub fn python_package_dir(package: &str) -> Option<PathBuf> {
    static DIRS: OnceLock<Vec<Option<PathBuf>>> = OnceLock::new();
    let dirs = DIRS.get_or_init(|| {
        // One line per package: its folder, or nothing where it is absent.
        let script = format!(
            "import importlib\nfor name in {WHEELS:?}:\n    try:\n        print(list(importlib.import_module(name).__path__)[0])\n    except Exception:\n        print()\n"
        );
        let output = std::process::Command::new("python3")
            .args(["-c", &script])
            .output();
        let text = output
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .unwrap_or_default();
        let mut lines = text.lines();
        WHEELS
            .iter()
            .map(|_| {
                let dir = PathBuf::from(lines.next().unwrap_or_default().trim());
                (!dir.as_os_str().is_empty() && dir.is_dir()).then_some(dir)
            })
            .collect()
    });
    let index = WHEELS.iter().position(|w| *w == package)?;
    dirs.get(index)?.clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn maps_nvrtc_log_lines() {
        let source = SourceText::new("a\nb\nc\n", Path::new("kernels/k.cu"), 10);
        let log = "kernels/k.cu(2): error: identifier \"x\" is undefined\n      x = 1;\n      ^\n\n1 error detected in the compilation of \"kernels/k.cu\".\n";
        let found = map_log(log, "kernels/k.cu", &source);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].line, 11);
        assert!(
            found[0]
                .message
                .starts_with("error: identifier \"x\" is undefined\n"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn unparsed_log_is_kept_whole() {
        let source = SourceText::new("a\n", Path::new("k.cu"), 1);
        let found = map_log("catastrophic failure\n", "k.cu", &source);
        assert_eq!(found[0].message, "catastrophic failure");
    }
}
