//! The CUDA backend: CUDA C compiled with NVRTC through cudarc.
//!
//! cudarc panics when it cannot load libnvrtc or libcuda, so this module
//! probes first and turns absence into `BackendError::Unavailable` with what
//! to install. NVRTC from the pip wheel (`nvidia-cuda-nvrtc-cu12`) is found
//! at run time, so CPU-only machines compile every CUDA kernel of the book.
//!
//! Compile errors keep NVRTC's message; its `name(LINE)` locations are
//! re-pointed at the kernel file's lines. The parameter list is checked
//! against the spec's args from the PTX, before any launch. With a GPU, the
//! launch runs in a child process ([`super::isolate`]) with canary bands on
//! both sides of every buffer and CUDA events around every launch; without
//! one, a successful compile is `CompiledOnly`.

// The one module with `unsafe`: cudarc's probes and loading need it.
#![allow(unsafe_code)]

use super::isolate::{ChildJob, run_in_child};
use super::{
    Backend, BackendError, BackendKind, DeviceInfo, Execution, GUARD_ELEMENTS, Job, Outcome,
    OutputData, check_launch_basics,
};
use crate::diag::Located;
use crate::source::SourceText;
use crate::spec::{Arg, Launch, Spec};
use crate::timing::{Clock, Timing};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{CompileError, CompileOptions, Ptx};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// The virtual architecture used when no GPU says which one to target (Hopper: H100, H200).
pub const DEFAULT_ARCH: &str = "compute_90";

/// `GPU_PUZZLES_CUDA_ARCH` (e.g. `compute_80`) names another target for compile-only machines.
fn compile_only_arch() -> &'static str {
    match std::env::var("GPU_PUZZLES_CUDA_ARCH") {
        Ok(arch) if arch.starts_with("compute_") || arch.starts_with("sm_") => {
            Box::leak(arch.into_boxed_str())
        }
        _ => DEFAULT_ARCH,
    }
}

pub struct CudaBackend {
    info: DeviceInfo,
    arch: &'static str,
    /// Why kernels are compiled but not run, when there is no usable GPU.
    no_device: Option<String>,
    /// The GPU's L2 cache, in bytes (benchmarks size their buffer rotation by it).
    l2_bytes: Option<u64>,
    /// PTX (or compile errors) by source hash.
    compiled: Mutex<HashMap<blake3::Hash, Result<String, Vec<Located>>>>,
}

impl CudaBackend {
    /// Loads NVRTC (required) and looks for a GPU (optional: without one, kernels are compiled only).
    pub fn open() -> Result<CudaBackend, BackendError> {
        let version = load_nvrtc().map_err(|reason| BackendError::Unavailable {
            backend: BackendKind::Cuda,
            reason,
        })?;
        match probe_gpu() {
            Ok(gpu) => {
                // NVRTC takes a 'static arch; one string per process.
                let arch: &'static str =
                    Box::leak(format!("compute_{}{}", gpu.cc.0, gpu.cc.1).into_boxed_str());
                let info = DeviceInfo {
                    backend: BackendKind::Cuda,
                    name: gpu.name,
                    kind: "GPU".into(),
                    api: format!("CUDA {}, sm_{}{}", gpu.cuda_version, gpu.cc.0, gpu.cc.1),
                    driver: match &gpu.driver {
                        Some(d) => format!(
                            "NVIDIA driver {d}, CUDA {}, NVRTC {version}",
                            gpu.cuda_version
                        ),
                        None => format!("CUDA {}, NVRTC {version}", gpu.cuda_version),
                    },
                };
                Ok(CudaBackend {
                    info,
                    arch,
                    no_device: None,
                    l2_bytes: gpu.l2_bytes,
                    compiled: Mutex::default(),
                })
            }
            Err(reason) => {
                let arch = compile_only_arch();
                let info = DeviceInfo {
                    backend: BackendKind::Cuda,
                    name: arch.into(),
                    kind: "compile only".into(),
                    api: format!("NVRTC {version}"),
                    driver: String::new(),
                };
                Ok(CudaBackend {
                    info,
                    arch,
                    no_device: Some(reason),
                    l2_bytes: None,
                    compiled: Mutex::default(),
                })
            }
        }
    }

    /// Compiles CUDA C to PTX. Errors point at the kernel file's lines.
    /// Results are kept for the process: a chapter's solution is compiled
    /// once for its teaching run and its stress runs, and headers such as
    /// `cuda/std/mdspan` make each compile take a second or more.
    pub fn compile(&self, source: &SourceText) -> Result<String, Vec<Located>> {
        let key = blake3::hash(source.text.as_bytes());
        if let Some(hit) = self.compiled.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return hit;
        }
        let result = self.compile_uncached(source);
        if let Ok(mut cache) = self.compiled.lock() {
            cache.insert(key, result.clone());
        }
        result
    }

    fn compile_uncached(&self, source: &SourceText) -> Result<String, Vec<Located>> {
        let name = source
            .main_file()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "kernel.cu".into());
        let mut options = vec!["--std=c++17".to_string()];
        options.extend(
            include_dirs()
                .iter()
                .map(|d| format!("--include-path={}", d.display())),
        );
        let options = CompileOptions {
            arch: Some(self.arch),
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
                }
                Err(errors)
            }
            Err(other) => Err(vec![source.locate(1, format!("NVRTC failed: {other}"))]),
        }
    }
}

/// Where NVRTC finds `#include <cuda/std/mdspan>`, `<cuda/pipeline>` and the
/// rest of CCCL (libcu++, CUB). In order: `GPU_PUZZLES_CUDA_INCLUDE`
/// (folders separated by `:`), a CUDA toolkit's own headers (CUDA 13 keeps
/// CCCL under `include/cccl`), then the pip wheel `nvidia-cuda-cccl-cu12`.
/// A toolkit comes first because its headers match its NVRTC.
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

impl Backend for CudaBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn device(&self) -> &DeviceInfo {
        &self.info
    }

    fn last_level_cache_bytes(&self) -> Option<u64> {
        self.l2_bytes
    }

    fn compile_only(&self) -> Option<&str> {
        self.no_device.as_deref()
    }

    fn run(&self, job: &Job) -> Result<Outcome, BackendError> {
        check_launch_basics(job.spec)?;
        let ptx = match self.compile(job.source) {
            Err(errors) => return Ok(Outcome::CompileFailed(errors)),
            Ok(ptx) => ptx,
        };
        for launch in &job.spec.launches {
            let kernel = &launch.kernel;
            if !ptx.contains(&format!(".entry {kernel}(")) {
                return Ok(Outcome::CompileFailed(vec![job.source.locate(
                    1,
                    format!(
                        "no kernel named `{kernel}` in the compiled code: declare it `extern \"C\" __global__ void {kernel}(...)` \
                         (without `extern \"C\"` C++ mangles the name)"
                    ),
                )]));
            }
            if let Err(message) = check_params(&ptx, job.spec, launch) {
                let line = signature_line(job.source, kernel);
                return Ok(Outcome::CompileFailed(vec![
                    job.source.locate(line, message),
                ]));
            }
        }
        let shared = static_shared_bytes(&ptx);
        if shared > MAX_STATIC_SHARED {
            return Err(BackendError::Launch(format!(
                "the kernels declare {shared} bytes of static __shared__ memory; a block may have at most {MAX_STATIC_SHARED} \
                 (48 KiB) of static shared memory"
            )));
        }
        if let Some(reason) = &self.no_device {
            return Ok(Outcome::CompiledOnly(format!(
                "compiled for {} with NVRTC; not run: {reason}",
                self.arch
            )));
        }
        let child = ChildJob {
            spec: job.spec.clone(),
            ptx,
            timing_samples: job.timing_samples,
            warmup: job.warmup,
            buffer_sets: job.buffer_sets.max(1),
        };
        run_in_child(&child, job.timeout).map(Outcome::Ran)
    }
}

/// Every CUDA GPU caps static `__shared__` memory at 48 KiB per block (more needs dynamic shared memory).
const MAX_STATIC_SHARED: u64 = 48 * 1024;

/// Bytes of static shared memory the PTX declares (`.shared .align 4 .b8 name[4096];`).
fn static_shared_bytes(ptx: &str) -> u64 {
    ptx.lines()
        .map(str::trim)
        .filter(|l| {
            l.starts_with(".shared") && !l.starts_with(".shared .extern") && !l.contains(".extern")
        })
        .filter_map(|l| {
            let width = [
                (".b8", 1),
                (".u8", 1),
                (".s8", 1),
                (".b16", 2),
                (".b32", 4),
                (".f32", 4),
                (".u32", 4),
                (".s32", 4),
                (".b64", 8),
                (".f64", 8),
                (".u64", 8),
                (".s64", 8),
            ]
            .iter()
            .find(|(t, _)| l.contains(&format!("{t} ")))
            .map(|(_, w)| *w)?;
            let count: u64 = l[l.find('[')? + 1..l.find(']')?].parse().ok()?;
            Some(width * count)
        })
        .sum()
}

/// The line that declares the kernel, for messages about its parameters.
fn signature_line(source: &SourceText, kernel: &str) -> usize {
    let needle = format!("{kernel}(");
    source
        .text
        .lines()
        .position(|l| l.contains(&needle))
        .map(|i| i + 1)
        .unwrap_or(1)
}

/// Compares the kernel's parameters (read from the PTX) with the spec's args:
/// buffers are 64-bit pointers, scalars 32-bit values. A mismatch launched
/// anyway would read garbage or crash, so it is caught here, before the GPU.
fn check_params(ptx: &str, spec: &Spec, launch: &Launch) -> Result<(), String> {
    let kernel = &launch.kernel;
    let args: Vec<Arg> = spec.launch_args(launch).cloned().collect();
    let header = format!(".entry {kernel}(");
    let Some(start) = ptx.find(&header) else {
        return Ok(());
    };
    let rest = &ptx[start + header.len()..];
    let params: Vec<&str> = rest[..rest.find(')').unwrap_or(rest.len())]
        .split(',')
        .map(str::trim)
        .filter(|p| p.starts_with(".param"))
        .collect();
    let describe = |args: &[Arg]| {
        args.iter()
            .map(|a| match a {
                Arg::Buffer(b) => format!("{}* {}", b.dtype.name(), b.name),
                Arg::Scalar { name, dtype, .. } => format!("{} {name}", dtype.name()),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    if params.len() != args.len() {
        return Err(format!(
            "`{kernel}` takes {} parameter(s), but the spec passes {}: ({})",
            params.len(),
            args.len(),
            describe(&args)
        ));
    }
    for (i, (param, arg)) in params.iter().zip(&args).enumerate() {
        let is_pointer = param.contains(".u64") || param.contains(".b64") || param.contains(".s64");
        match arg {
            Arg::Buffer(b) if !is_pointer => {
                return Err(format!(
                    "parameter {} of `{kernel}` should be a pointer to `{}` ({}*), but it is a value",
                    i + 1,
                    b.name,
                    cuda_type(b.dtype)
                ));
            }
            Arg::Scalar { name, dtype, .. } if is_pointer => {
                return Err(format!(
                    "parameter {} of `{kernel}` should be the value `{name}` ({}), but it is a pointer or 64-bit",
                    i + 1,
                    cuda_type(*dtype)
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

fn cuda_type(dtype: crate::data::Dtype) -> &'static str {
    match dtype {
        crate::data::Dtype::F32 => "float",
        crate::data::Dtype::I32 => "int",
        crate::data::Dtype::U32 => "unsigned int",
    }
}

struct Gpu {
    l2_bytes: Option<u64>,
    name: String,
    cc: (i32, i32),
    cuda_version: String,
    /// The NVIDIA kernel driver's version, e.g. "580.159.04", where Linux tells it.
    driver: Option<String>,
}

/// "580.159.04" from /proc/driver/nvidia/version (Linux); the CUDA API does not report it.
fn kernel_driver_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().next()?;
    line.split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('.'))
        .map(str::to_string)
}

/// Finds GPU 0 without launching anything: the driver library, a device, its name and compute capability.
fn probe_gpu() -> Result<Gpu, String> {
    // SAFETY: probing only attempts dlopen of libcuda; it never panics.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no NVIDIA driver (libcuda) on this machine".into());
    }
    let count = CudaContext::device_count()
        .map_err(|e| format!("the CUDA driver found no usable GPU ({e:?})"))?;
    if count < 1 {
        return Err("the CUDA driver reports no GPU".into());
    }
    let ctx = CudaContext::new(0).map_err(|e| format!("cannot open GPU 0: {e:?}"))?;
    let name = ctx.name().map_err(|e| format!("{e:?}"))?;
    let cc = ctx.compute_capability().map_err(|e| format!("{e:?}"))?;
    let mut version = 0;
    // SAFETY: the driver is loaded and initialised (a context exists); this writes one int.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) };
    let l2_bytes = ctx
        .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
        .ok()
        .and_then(|b| u64::try_from(b).ok());
    Ok(Gpu {
        l2_bytes,
        name,
        cc,
        cuda_version: format!("{}.{}", version / 1000, (version % 1000) / 10),
        driver: kernel_driver_version(),
    })
}

/// Runs a compiled kernel on GPU 0. Called in the isolated child process.
pub fn execute(job: &ChildJob) -> Result<Execution, BackendError> {
    let device = |e: cudarc::driver::DriverError| BackendError::Device(describe_driver_error(&e));
    let spec = &job.spec;
    let ctx = CudaContext::new(0).map_err(device)?;
    let stream = ctx.default_stream();
    let module = ctx
        .load_module(Ptx::from_src(job.ptx.clone()))
        .map_err(device)?;
    let mut functions = Vec::new();
    for launch in &spec.launches {
        let function = module.load_function(&launch.kernel).map_err(device)?;
        let dynamic = launch.dynamic_shared_bytes;
        if dynamic > 0 {
            use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
            let optin = ctx
                .attribute(
                    CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                )
                .map_err(device)? as u64;
            let fixed = function.shared_size_bytes().map_err(device)? as u64;
            if dynamic as u64 + fixed > optin {
                return Err(BackendError::Launch(format!(
                    "`{}`: {dynamic} bytes of dynamic shared memory (plus {fixed} static) per block; this GPU allows at most {optin}",
                    launch.kernel
                )));
            }
            // Beyond 48 KiB a kernel must opt in to more dynamic shared memory.
            if dynamic as u64 > MAX_STATIC_SHARED {
                function
                    .set_attribute(
                        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        dynamic as i32,
                    )
                    .map_err(device)?;
            }
        }
        let config = LaunchConfig {
            grid_dim: (launch.grid[0], launch.grid[1], launch.grid[2]),
            block_dim: (launch.block[0], launch.block[1], launch.block[2]),
            shared_mem_bytes: launch.dynamic_shared_bytes,
        };
        functions.push((launch, function, config));
    }

    // Every buffer sits between two canary bands of its own pattern. Set 0 is
    // the checked one; timed runs rotate through all sets (see `Job::buffer_sets`).
    let mut sets = Vec::new();
    for _ in 0..job.buffer_sets.max(1) {
        let mut slices = Vec::new();
        for (index, arg) in spec.args.iter().enumerate() {
            if let Arg::Buffer(b) = arg {
                let tag = index as u32;
                let mut bytes = b.dtype.canary(tag, GUARD_ELEMENTS);
                bytes.extend(match &b.init {
                    Some(values) => b.dtype.encode(values),
                    None => b.dtype.poison(b.len()),
                });
                bytes.extend(b.dtype.canary(tag, GUARD_ELEMENTS));
                let words: Vec<u32> = bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                slices.push(Some(stream.clone_htod(&words).map_err(device)?));
            } else {
                slices.push(None);
            }
        }
        sets.push(slices);
    }
    let scalars: Vec<u32> = spec
        .args
        .iter()
        .map(|a| match a {
            Arg::Scalar { dtype, value, .. } => {
                let b = dtype.encode(&[*value]);
                u32::from_le_bytes([b[0], b[1], b[2], b[3]])
            }
            Arg::Buffer(_) => 0,
        })
        .collect();
    // One run is every launch in order on one stream; two events bracket the sequence.
    let timing_event = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    let launch =
        |slices: &mut Vec<Option<cudarc::driver::CudaSlice<u32>>>| -> Result<f64, BackendError> {
            let start = stream.record_event(timing_event).map_err(device)?;
            for (launch, function, config) in &functions {
                let mut views: Vec<Option<cudarc::driver::CudaViewMut<u32>>> = slices
                    .iter_mut()
                    .map(|slice| {
                        slice.as_mut().map(|s| {
                            let len = s.len();
                            s.slice_mut(GUARD_ELEMENTS..len - GUARD_ELEMENTS)
                        })
                    })
                    .collect();
                let mut views: Vec<Option<&mut cudarc::driver::CudaViewMut<u32>>> =
                    views.iter_mut().map(Option::as_mut).collect();
                let mut builder = stream.launch_builder(function);
                for &i in &launch.args {
                    match views[i].take() {
                        Some(view) => builder.arg(view),
                        None => builder.arg(&scalars[i]),
                    };
                }
                // SAFETY: the parameter list was checked against the spec from the PTX
                // (pointers for buffers, 32-bit values for scalars); every buffer is
                // allocated with its spec length plus guard bands, so in-bounds
                // accesses stay inside the allocation.
                unsafe { builder.launch(*config) }.map_err(device)?;
            }
            let end = stream.record_event(timing_event).map_err(device)?;
            stream.synchronize().map_err(device)?;
            Ok(start.elapsed_ms(&end).map_err(device)? as f64)
        };
    launch(&mut sets[0])?;

    let mut outputs = Vec::new();
    for (index, (arg, slice)) in spec.args.iter().zip(&sets[0]).enumerate() {
        let (Arg::Buffer(b), Some(slice)) = (arg, slice) else {
            continue;
        };
        // Every buffer's bands are checked; only outputs' values are judged.
        let words = stream.clone_dtoh(slice).map_err(device)?;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        // Bands on both sides: a write before `out[0]` is caught too.
        let band = GUARD_ELEMENTS * 4;
        let end = bytes.len() - band;
        outputs.push(OutputData::from_device(
            b,
            index as u32,
            Some(&bytes[..band]),
            &bytes[band..end],
            &bytes[end..],
        ));
    }
    let count = sets.len();
    for run in 0..job.warmup {
        launch(&mut sets[(run + 1) % count])?;
    }
    let (mut samples, mut wall) = (Vec::new(), Vec::new());
    for run in 0..job.timing_samples {
        let started = std::time::Instant::now();
        samples.push(launch(&mut sets[(job.warmup + run + 1) % count])?);
        wall.push(started.elapsed().as_secs_f64() * 1e3);
    }
    Ok(Execution {
        outputs,
        timing: Timing::from_samples(Clock::Device, &samples).map(|t| t.with_wall(&wall)),
        hazards: vec![],
        access: None,
    })
}

/// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered".
fn describe_driver_error(e: &cudarc::driver::DriverError) -> String {
    let name = e
        .error_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = e
        .error_string()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.is_empty() {
        format!("{e:?}")
    } else {
        format!("{name}: {text}")
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
    let dir = python_package_dir("nvidia.cuda_nvrtc")?.join("lib");
    dir.is_dir().then_some(dir)
}

/// The folder of a Python package, asked of the `python3` that pip installed into.
fn python_package_dir(package: &str) -> Option<PathBuf> {
    let script = format!("import {package} as m; print(list(m.__path__)[0])");
    let output = std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .ok()?;
    let dir = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    (output.status.success() && dir.is_dir()).then_some(dir)
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
    fn static_shared_table() {
        let cases = [
            ("", 0),
            (".shared .align 4 .b8 _ZZ1kE4tile[262144];", 262144),
            (
                ".shared .align 4 .f32 tile[16];\n.shared .align 8 .b8 other[8];",
                72,
            ),
            (".extern .shared .align 16 .b8 dynamic[];", 0),
        ];
        for (ptx, want) in cases {
            assert_eq!(static_shared_bytes(ptx), want, "{ptx}");
        }
    }

    #[test]
    fn unparsed_log_is_kept_whole() {
        let source = SourceText::new("a\n", Path::new("k.cu"), 1);
        let found = map_log("catastrophic failure\n", "k.cu", &source);
        assert_eq!(found[0].message, "catastrophic failure");
    }
}
