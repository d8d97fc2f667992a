//! The GPUs one run takes, in the child that runs it: GPU r for rank r, each
//! with its own context and stream, and every GPU allowed into every other's
//! memory (peer access), so a kernel can read and write its peers' buffers
//! through the addresses the spec's peer tables pass.
//!
//! One GPU is the same path with nothing to enable: its primary context and
//! default stream, as a single-GPU run has always had. A reader with one GPU
//! may run every rank on it ([`Devices::shared`]).
//!
//! Two switches make a GPU's memory another's to use: peer access between
//! the contexts (for memory from `cuMemAlloc`), and access to the device's
//! default memory pool (cudarc allocates from it, with `cuMemAllocAsync`,
//! and a pool's memory is reachable from another GPU only once the pool
//! says so: without it, the first load from a peer is an illegal address).

// Peer access has no safe wrapper in cudarc: two driver calls.
#![allow(unsafe_code)]

use cudarc::driver::sys::{self, CUresult};
use cudarc::driver::{CudaContext, CudaStream, DriverError};
use puzzle_core::backend_contract::backend::BackendError;
use std::sync::Arc;

/// GPUs 0..n, each able to reach the others' memory (or GPU 0, n times).
pub struct Devices {
    /// Rank r's context.
    pub contexts: Vec<Arc<CudaContext>>,
    /// Rank r's stream: GPU r's default stream, or one of GPU 0's own.
    pub streams: Vec<Arc<CudaStream>>,
}

/// Why `n` GPUs that reach each other cannot be had here, in words.
#[derive(Debug, thiserror::Error)]
pub enum DevicesError {
    #[error("this run takes {wanted} GPUs; the CUDA driver sees {found}")]
    TooFew { wanted: usize, found: usize },
    #[error("GPU {from} cannot reach GPU {to}'s memory (no peer access between them)")]
    NoPeerAccess { from: usize, to: usize },
    #[error("cannot open GPU {ordinal}: {error:?}")]
    Open { ordinal: usize, error: DriverError },
    #[error("cannot let GPU {from} into GPU {to}'s memory: {error:?}")]
    Enable {
        from: usize,
        to: usize,
        error: DriverError,
    },
    #[error("cannot let GPU {from} into GPU {to}'s memory pool: {error:?}")]
    Pool {
        from: usize,
        to: usize,
        error: DriverError,
    },
}

impl From<DevicesError> for BackendError {
    fn from(e: DevicesError) -> BackendError {
        BackendError::Device(e.to_string())
    }
}

impl Devices {
    /// Opens GPUs 0..n and enables peer access between every two of them.
    pub fn open(n: usize) -> Result<Devices, DevicesError> {
        let found = CudaContext::device_count().map_or(0, |c| c.max(0) as usize);
        if found < n {
            return Err(DevicesError::TooFew { wanted: n, found });
        }
        let contexts = (0..n)
            .map(|ordinal| {
                CudaContext::new(ordinal).map_err(|error| DevicesError::Open { ordinal, error })
            })
            .collect::<Result<Vec<_>, _>>()?;
        enable_peers(&contexts)?;
        let streams = contexts.iter().map(CudaContext::default_stream).collect();
        Ok(Devices { contexts, streams })
    }

    /// GPU 0 alone for `n` ranks, each with a stream of its own so that
    /// ranks that wait for each other can run at once: one context, so
    /// every rank's memory is already every other's, with nothing to enable.
    pub fn shared(n: usize) -> Result<Devices, DevicesError> {
        let open = |error| DevicesError::Open { ordinal: 0, error };
        let context = CudaContext::new(0).map_err(open)?;
        let streams = (0..n.max(1))
            .map(|_| context.new_stream())
            .collect::<Result<Vec<_>, _>>()
            .map_err(open)?;
        Ok(Devices {
            contexts: vec![context; n.max(1)],
            streams,
        })
    }

    /// How many GPUs (or ranks sharing one) this run has.
    pub fn count(&self) -> usize {
        self.contexts.len()
    }
}

/// How many GPUs, counting from GPU 0, all reach each other's memory: 1 on a
/// machine of one GPU (or where GPU 1 cannot reach GPU 0), 0 without one.
pub fn peer_group() -> usize {
    let Ok(count) = CudaContext::device_count() else {
        return 0;
    };
    let count = count.max(0) as usize;
    let mut group = count.min(1);
    while group < count && (0..group).all(|g| can_reach(g, group) && can_reach(group, g)) {
        group += 1;
    }
    group
}

fn can_reach(from: usize, to: usize) -> bool {
    let mut can = 0;
    // SAFETY: the driver is loaded (device_count succeeded); the call writes
    // one int, and both ordinals are below the device count.
    let result = unsafe { sys::cuDeviceCanAccessPeer(&mut can, from as i32, to as i32) };
    result == CUresult::CUDA_SUCCESS && can != 0
}

fn enable_peers(contexts: &[Arc<CudaContext>]) -> Result<(), DevicesError> {
    for (from, ctx) in contexts.iter().enumerate() {
        for (to, peer) in contexts.iter().enumerate() {
            if from == to {
                continue;
            }
            if !can_reach(from, to) {
                return Err(DevicesError::NoPeerAccess { from, to });
            }
            let enable = |error| DevicesError::Enable { from, to, error };
            ctx.bind_to_thread().map_err(enable)?;
            // SAFETY: `ctx` is current on this thread and `peer` is a live
            // primary context of another device; flags must be 0.
            let result = unsafe { sys::cuCtxEnablePeerAccess(peer.cu_ctx(), 0) };
            match result {
                // Primary contexts are shared within the process: a second
                // run in the same child finds it enabled already.
                CUresult::CUDA_SUCCESS | CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
                error => return Err(enable(DriverError(error))),
            }
            open_pool(peer, to, from)?;
        }
    }
    Ok(())
}

/// Lets GPU `from` read and write what GPU `to`'s default memory pool
/// hands out (`ctx` is GPU `to`'s context).
fn open_pool(ctx: &CudaContext, to: usize, from: usize) -> Result<(), DevicesError> {
    let pool_error = |error| DevicesError::Pool { from, to, error };
    ctx.bind_to_thread().map_err(pool_error)?;
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    // SAFETY: writes one pool handle; `cu_device` is a valid device of the
    // loaded driver (its context exists).
    let got = unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) };
    if got != CUresult::CUDA_SUCCESS {
        return Err(pool_error(DriverError(got)));
    }
    let access = sys::CUmemAccessDesc {
        location: sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: from as i32,
        },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    // SAFETY: `pool` is the device's live default pool; one descriptor is
    // read from a valid pointer.
    let set = unsafe { sys::cuMemPoolSetAccess(pool, &access, 1) };
    if set != CUresult::CUDA_SUCCESS {
        return Err(pool_error(DriverError(set)));
    }
    Ok(())
}
