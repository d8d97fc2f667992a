//! The CUDA backend: CUDA C compiled with NVRTC through cudarc.
//!
//! cudarc panics when it cannot load libnvrtc or libcuda, so this module
//! probes first and turns absence into `BackendError::Unavailable` with what
//! to install. NVRTC from the pip wheel (`nvidia-cuda-nvrtc-cu12`) is found
//! at run time, so CPU-only machines compile every CUDA kernel of the book.
//!
//! Compile errors keep NVRTC's message; its `name(LINE)` locations are
//! re-pointed at the kernel file's lines. Running on a device lands with the
//! CUDA execution work; until then a successful compile is `CompiledOnly`.

// The one module with `unsafe`: cudarc's probes and loading need it.
#![allow(unsafe_code)]

use super::{Backend, BackendError, BackendKind, DeviceInfo, Job, Outcome, check_launch_basics};
use crate::diag::Located;
use crate::source::SourceText;
use cudarc::nvrtc::{CompileError, CompileOptions};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The virtual architecture used when no GPU says which one to target (Hopper: H100, H200).
pub const DEFAULT_ARCH: &str = "compute_90";

pub struct CudaBackend {
    info: DeviceInfo,
    arch: &'static str,
}

impl CudaBackend {
    pub fn open() -> Result<CudaBackend, BackendError> {
        let version = load_nvrtc().map_err(|reason| BackendError::Unavailable {
            backend: BackendKind::Cuda,
            reason,
        })?;
        let info = DeviceInfo {
            backend: BackendKind::Cuda,
            name: DEFAULT_ARCH.into(),
            kind: "compile only".into(),
            api: format!("NVRTC {version}"),
            driver: String::new(),
        };
        Ok(CudaBackend {
            info,
            arch: DEFAULT_ARCH,
        })
    }

    /// Compiles CUDA C to PTX. Errors point at the kernel file's lines.
    pub fn compile(&self, source: &SourceText, kernel: &str) -> Result<String, Vec<Located>> {
        let name = source
            .main_file()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "kernel.cu".into());
        let options = CompileOptions {
            arch: Some(self.arch),
            name: Some(name.clone()),
            options: vec!["--std=c++17".into()],
            ..Default::default()
        };
        match cudarc::nvrtc::compile_ptx_with_opts(&source.text, options) {
            Ok(ptx) => {
                let ptx = ptx.to_src();
                if !ptx.contains(&format!(".entry {kernel}(")) {
                    return Err(vec![source.locate(
                        1,
                        format!(
                            "no kernel named `{kernel}` in the compiled code: declare it `extern \"C\" __global__ void {kernel}(...)` \
                             (without `extern \"C\"` C++ mangles the name)"
                        ),
                    )]);
                }
                Ok(ptx)
            }
            Err(CompileError::CompileError { log, .. }) => {
                Err(map_log(&log.to_string_lossy(), &name, source))
            }
            Err(other) => Err(vec![source.locate(1, format!("NVRTC failed: {other}"))]),
        }
    }
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

impl Backend for CudaBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn device(&self) -> &DeviceInfo {
        &self.info
    }

    fn run(&self, job: &Job) -> Result<Outcome, BackendError> {
        check_launch_basics(job.spec)?;
        match self.compile(job.source, &job.spec.kernel) {
            Err(errors) => Ok(Outcome::CompileFailed(errors)),
            Ok(_ptx) => Ok(Outcome::CompiledOnly(format!(
                "compiled for {} with NVRTC; not run: this runner does not launch CUDA kernels yet",
                self.arch
            ))),
        }
    }
}

/// Loads libnvrtc once per process; returns its version ("12.9") or why it is missing.
fn load_nvrtc() -> Result<String, String> {
    static LOADED: OnceLock<Result<String, String>> = OnceLock::new();
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
                .map_err(|e| format!("libnvrtc loaded but nvrtcVersion failed: {e:?}"))?;
            Ok(format!("{major}.{minor}"))
        })
        .clone()
}

/// Finds NVRTC in the pip wheel and loads it by full path. cudarc then opens
/// it by soname, and the dynamic loader hands back the copy already loaded.
fn preload_wheel() -> Result<(), String> {
    let help = "install NVRTC (`pip install nvidia-cuda-nvrtc-cu12`, or the CUDA toolkit) \
                or put the folder holding libnvrtc.so on LD_LIBRARY_PATH";
    let dir = wheel_lib_dir().ok_or_else(|| format!("libnvrtc not found: {help}"))?;
    let mut libs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
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
            .map_err(|e| format!("{}: {e}", lib.display()))?;
        std::mem::forget(handle);
    }
    // SAFETY: as above, a probe that only tries dlopen.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(format!(
            "found {} but could not load libnvrtc from it: {help}",
            dir.display()
        ))
    }
}

/// `site-packages/nvidia/cuda_nvrtc/lib`, asked of the Python that pip installed into.
fn wheel_lib_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("NVRTC_LIB_DIR") {
        let dir = PathBuf::from(dir);
        return dir.is_dir().then_some(dir);
    }
    let script = "import nvidia.cuda_nvrtc as m; print(list(m.__path__)[0])";
    let output = std::process::Command::new("python3")
        .args(["-c", script])
        .output()
        .ok()?;
    let dir = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim()).join("lib");
    dir.is_dir().then_some(dir)
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
