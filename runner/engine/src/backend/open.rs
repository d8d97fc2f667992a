//! Opening a backend by kind: the device probed, the library loaded, or a
//! sentence saying what is missing. The CPU checkers take their schedule
//! seed (and WGSL's its subgroup size) from the environment here, so the
//! core never reads it; so does CUDA the choice to run every rank of a
//! puzzle of several GPUs on one.

use crate::backend::cuda::backend::{CudaBackend, RANKS_ON_ONE_GPU};
use crate::backend::cuda::checker::CudaCheckerBackend;
use crate::backend::cuda::sanitize::Sanitizer;
use crate::backend::wgpu::backend::WgpuBackend;
use puzzle_core::backend_contract::backend::{Backend, BackendError, BackendKind};
use puzzle_core::wgsl::checker::{DEFAULT_SUBGROUP, SimBackend};

/// Opens a backend of this kind on this machine; CUDA runs under
/// `sanitizer` too where one is given.
pub fn open(
    kind: BackendKind,
    sanitizer: Option<&Sanitizer>,
) -> Result<Box<dyn Backend>, BackendError> {
    match kind {
        BackendKind::Wgpu => Ok(Box::new(WgpuBackend::open()?)),
        BackendKind::Cuda => {
            let cuda = match ranks_on_one_gpu_from_env() {
                true => CudaBackend::open()?.ranks_on_one_gpu(),
                false => CudaBackend::open()?,
            };
            Ok(Box::new(match sanitizer {
                Some(s) => cuda.with_sanitizer(s.clone()),
                None => cuda,
            }))
        }
        BackendKind::Sim => Ok(Box::new(checker_from_env())),
        BackendKind::PtxSim => Ok(Box::new(cuda_checker_from_env()?)),
    }
}

/// Whether [`RANKS_ON_ONE_GPU`] is set to anything but empty or `0`.
pub fn ranks_on_one_gpu_from_env() -> bool {
    std::env::var(RANKS_ON_ONE_GPU).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The schedule seed of both CPU checkers: `GPU_PUZZLES_SIM_SEED`, 0 when unset.
fn seed_from_env() -> u64 {
    std::env::var("GPU_PUZZLES_SIM_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// The CUDA checker with the schedule seed from `GPU_PUZZLES_SIM_SEED`, or
/// why it cannot open (no NVRTC).
pub fn cuda_checker_from_env() -> Result<CudaCheckerBackend, BackendError> {
    CudaCheckerBackend::open(seed_from_env())
}

/// The CPU checker with the schedule seed from `GPU_PUZZLES_SIM_SEED` (0
/// when unset) and the subgroup size from `GPU_PUZZLES_SIM_SUBGROUP`
/// ([`DEFAULT_SUBGROUP`] when unset or not a power of two from 1 to 128,
/// the sizes GPUs have).
pub fn checker_from_env() -> SimBackend {
    let seed = seed_from_env();
    let subgroup = std::env::var("GPU_PUZZLES_SIM_SUBGROUP")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|n| n.is_power_of_two() && *n <= 128)
        .unwrap_or(DEFAULT_SUBGROUP);
    SimBackend::with_seed(seed).with_subgroup_size(subgroup)
}
