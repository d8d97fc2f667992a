//! The GPU at hand, found without launching anything: the driver library,
//! device 0, its name, compute capability, L2 size and driver version; or
//! why there is none ([`NoGpu`]).

// cudarc's driver probe and cuDriverGetVersion need it.
#![allow(unsafe_code)]

use cudarc::driver::{CudaContext, DriverError};

pub struct Gpu {
    pub l2_bytes: Option<u64>,
    pub name: String,
    pub cc: (i32, i32),
    pub cuda_version: String,
    /// The NVIDIA kernel driver's version, e.g. "580.159.04", where Linux tells it.
    pub driver: Option<String>,
}

/// "580.159.04" from /proc/driver/nvidia/version (Linux); the CUDA API does not report it.
fn kernel_driver_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().next()?;
    line.split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('.'))
        .map(str::to_string)
}

/// Why there is no GPU to run kernels on: the CUDA backend then compiles
/// only, and says this after "not run: ". The driver's errors are shown in
/// their `Debug` form, which carries the CUDA error code as well as its words.
#[derive(Debug, thiserror::Error)]
pub enum NoGpu {
    #[error("no NVIDIA driver (libcuda) on this machine")]
    NoDriver,
    #[error("the CUDA driver found no usable GPU ({0:?})")]
    Unusable(DriverError),
    #[error("the CUDA driver reports no GPU")]
    NoDevice,
    #[error("cannot open GPU 0: {0:?}")]
    Open(DriverError),
    /// GPU 0 opened, but its name or compute capability could not be read.
    #[error("{0:?}")]
    Query(DriverError),
}

/// Finds GPU 0 without launching anything: the driver library, a device, its name and compute capability.
pub fn probe() -> Result<Gpu, NoGpu> {
    // SAFETY: probing only attempts dlopen of libcuda; it never panics.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(NoGpu::NoDriver);
    }
    let count = CudaContext::device_count().map_err(NoGpu::Unusable)?;
    if count < 1 {
        return Err(NoGpu::NoDevice);
    }
    let ctx = CudaContext::new(0).map_err(NoGpu::Open)?;
    let name = ctx.name().map_err(NoGpu::Query)?;
    let cc = ctx.compute_capability().map_err(NoGpu::Query)?;
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
