//! A compiled kernel on GPU 0, in the child process that runs it: buffers
//! between canary bands, every launch of the run in order, CUDA events
//! around each run, the checked run's outputs read back before the timed
//! ones.

// Launching a kernel through cudarc needs it.
#![allow(unsafe_code)]

use crate::backend::cuda::ptx::MAX_STATIC_SHARED;
use crate::child::job::CudaLaunch;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use puzzle_core::run::backend::BackendError;
use puzzle_core::run::outcome::{Execution, GUARD_ELEMENTS, OutputData, device_bytes};
use puzzle_core::run::timing::{Clock, Timing};
use puzzle_core::spec::model::Arg;

/// Runs a compiled kernel on GPU 0. Called in the isolated child process.
pub fn execute(job: &CudaLaunch) -> Result<Execution, BackendError> {
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
                // Bands on both sides: CUDA gets a pointer past the first.
                let bytes = device_bytes(b, index as u32, true);
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
