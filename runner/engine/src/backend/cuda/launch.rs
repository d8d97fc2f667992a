//! A compiled kernel on its GPUs, in the child process that runs it: buffers
//! holding exactly the bytes the engine sent (each between canary bands,
//! 2 or 4 bytes an element as its type has it), every
//! launch of the run in order, CUDA events around each run (behind a short
//! spin on the GPU, so they time the GPU's work and not the host's), the checked
//! run's outputs read back before the timed ones. A spec's setup steps run
//! in the checked run and once on each other set of buffers, never timed.
//! Each run is announced before it is made, so the engine gives every
//! launch its own deadline.
//!
//! A spec on several GPUs (`gpus:`) runs rank r's launches and buffers on
//! GPU r ([`Devices`]), each rank's launches in order on its own stream, so
//! the launches of one step run at the same time and may wait for each
//! other. A run's time is GPU 0's, from an event every other GPU waits on
//! before its first launch to one recorded after GPU 0 has waited for every
//! other GPU's last: the whole step, across devices, on one clock.

// Launching a kernel through cudarc needs it.
#![allow(unsafe_code)]

use crate::backend::cuda::devices::Devices;
use crate::backend::cuda::ptx::MAX_STATIC_SHARED;
use crate::backend::cuda::tensor_map::{self, TensorMapParam};
use crate::child::job::{CudaLaunch, DeviceOutcome, DeviceRun, ReadBack};
use cudarc::driver::{DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use puzzle_core::backend_contract::backend::BackendError;
use puzzle_core::backend_contract::outcome::GUARD_ELEMENTS;
use puzzle_core::backend_contract::timing::{Clock, Timing};
use puzzle_core::spec::model::{Arg, Buffer, Launch, MAX_GPUS};

/// Runs a compiled kernel on GPU 0, or on GPUs 0..n for a spec on n.
/// Called in the isolated child process.
pub fn execute(
    job: &CudaLaunch,
    inputs: Vec<Vec<u8>>,
    announce: &mut dyn FnMut(u32),
) -> Result<(DeviceOutcome, Vec<Vec<u8>>), BackendError> {
    let runs = job.runs;
    let device = |e: cudarc::driver::DriverError| BackendError::Device(describe_driver_error(&e));
    let spec = &job.spec;
    let ranks = spec.gpus.max(1) as usize;
    let devices = match job.ranks_on_one_gpu && ranks > 1 {
        true => Devices::shared(ranks)?,
        false => Devices::open(ranks)?,
    };
    let streams = &devices.streams;
    let stream_of = |rank: Option<u32>| -> Result<_, BackendError> {
        let rank = rank.unwrap_or(0) as usize;
        streams.get(rank).ok_or_else(|| {
            BackendError::Launch(format!(
                "rank {rank} is past the run's {} GPU(s)",
                devices.count()
            ))
        })
    };
    let modules = devices
        .contexts
        .iter()
        .map(|ctx| ctx.load_module(Ptx::from_src(job.ptx.clone())))
        .collect::<Result<Vec<_>, _>>()
        .map_err(device)?;
    let lead = devices.contexts[0]
        .load_module(Ptx::from_src(LEAD_PTX))
        .and_then(|module| module.load_function("gpu_puzzles_lead"))
        .map_err(device)?;
    let mut functions = Vec::new();
    for launch in &spec.launches {
        stream_of(Some(launch.rank))?;
        let ctx = &devices.contexts[launch.rank as usize];
        let function = modules[launch.rank as usize]
            .load_function(&launch.kernel)
            .map_err(device)?;
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

    // Every buffer sits between two canary bands of its own pattern, as the
    // engine laid it out, byte for byte: bf16 and f16 buffers hold 2 bytes
    // an element, the rest 4. Each band is `GUARD_ELEMENTS` elements (512
    // or 1,024 bytes) and CUDA allocations are at least 256-byte aligned, so
    // the view a kernel gets is too (vector loads included).
    // Set 0 is the checked one; timed runs rotate through all sets (see
    // `Job::buffer_sets`).
    let band = |b: &Buffer| GUARD_ELEMENTS * b.dtype.size();
    // Each argument's bytes: a buffer's, None for a scalar.
    let mut contents: Vec<Option<(&[u8], Option<u32>)>> = Vec::new();
    let mut next = inputs.iter();
    for arg in &spec.args {
        let Arg::Buffer(b) = arg else {
            contents.push(None);
            continue;
        };
        stream_of(b.rank)?;
        let bytes = next.next().ok_or_else(|| {
            BackendError::Device(format!("no contents came for buffer `{}`", b.name))
        })?;
        let want = b.len() * b.dtype.size() + 2 * band(b);
        if bytes.len() != want {
            return Err(BackendError::Device(format!(
                "`{}` came as {} bytes, not {want}",
                b.name,
                bytes.len()
            )));
        }
        contents.push(Some((bytes, b.rank)));
    }
    let mut sets = Vec::new();
    for _ in 0..runs.buffer_sets.max(1) {
        let mut slices = Vec::new();
        for content in &contents {
            slices.push(match content {
                Some((bytes, rank)) => Some(stream_of(*rank)?.clone_htod(*bytes).map_err(device)?),
                None => None,
            });
        }
        sets.push(slices);
    }
    drop(inputs);
    // Each set's peer tables: a buffer's address on every rank, past its
    // leading band, null past the run's GPUs (the kernel's table has MAX_GPUS).
    let mut tables: Vec<Vec<Option<[u64; MAX_GPUS as usize]>>> = Vec::new();
    for slices in &sets {
        let mut set = Vec::new();
        for arg in &spec.args {
            let Arg::Peers { of, .. } = arg else {
                set.push(None);
                continue;
            };
            let mut table = [0u64; MAX_GPUS as usize];
            for (entry, &index) in table.iter_mut().zip(of) {
                let (Some(slice), Arg::Buffer(b)) = (&slices[index], &spec.args[index]) else {
                    return Err(BackendError::Launch(format!(
                        "argument {index} of a peer table is not a buffer"
                    )));
                };
                let (address, _ordered) = slice.device_ptr(stream_of(b.rank)?);
                *entry = address + band(b) as u64;
            }
            set.push(Some(table));
        }
        tables.push(set);
    }
    // Buffers passed as TMA tensor maps: each set's own, encoded before any
    // timing starts (the map holds the buffer's address).
    let mut maps: Vec<Vec<Option<TensorMapParam>>> = Vec::new();
    for slices in &sets {
        let mut set = Vec::new();
        for (slice, arg) in slices.iter().zip(&spec.args) {
            set.push(match (slice, arg) {
                (Some(slice), Arg::Buffer(b)) if let Some(map) = &b.tensor_map => {
                    let (address, _ordered) = slice.device_ptr(stream_of(b.rank)?);
                    let data = address + band(b) as u64;
                    Some(
                        tensor_map::encode(data, b, map)
                            .map_err(|e| BackendError::Launch(e.to_string()))?,
                    )
                }
                _ => None,
            });
        }
        maps.push(set);
    }
    // Scalars are 32-bit words (the spec refuses 16-bit ones); a shorter
    // encoding would be zero-extended, its value in the low bytes.
    let scalars: Vec<u32> = spec
        .args
        .iter()
        .map(|a| match a {
            Arg::Scalar { dtype, value, .. } => {
                let mut word = [0u8; 4];
                for (w, b) in word.iter_mut().zip(dtype.encode(&[*value])) {
                    *w = b;
                }
                u32::from_le_bytes(word)
            }
            Arg::Buffer(_) | Arg::Peers { .. } => 0,
        })
        .collect();
    // One run is every launch in order on its rank's stream; two events on
    // GPU 0 bracket the whole, the other GPUs joined in between.
    let timing_event = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    let (first, others) = streams
        .split_first()
        .expect("Devices::open opens at least one GPU");
    let launch = |slices: &mut Vec<Option<cudarc::driver::CudaSlice<u8>>>,
                  maps: &[Option<TensorMapParam>],
                  tables: &[Option<[u64; MAX_GPUS as usize]>],
                  steps: Steps|
     -> Result<f64, BackendError> {
        // The GPU is kept busy while the host queues the run, so the start
        // event completes when the GPU turns to the run, not when the host
        // began to build it: the time is the GPU's work alone, as the
        // libraries beside the kernels are timed.
        let cycles = LEAD_CYCLES;
        let mut wait = first.launch_builder(&lead);
        wait.arg(&cycles);
        let one = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: `gpu_puzzles_lead` takes one u64 by value and touches no memory.
        unsafe { wait.launch(one) }.map_err(device)?;
        let start = first.record_event(timing_event).map_err(device)?;
        for other in others {
            other.wait(&start).map_err(device)?;
        }
        for (launch, function, config) in functions.iter().filter(|(l, ..)| steps.runs(l)) {
            // Each buffer's data, in bytes, between its bands.
            let mut views: Vec<Option<cudarc::driver::CudaViewMut<u8>>> = slices
                .iter_mut()
                .zip(&spec.args)
                .map(|(slice, arg)| match (slice, arg) {
                    (Some(s), Arg::Buffer(b)) => {
                        let len = s.len();
                        Some(s.slice_mut(band(b)..len - band(b)))
                    }
                    _ => None,
                })
                .collect();
            let mut views: Vec<Option<&mut cudarc::driver::CudaViewMut<u8>>> =
                views.iter_mut().map(Option::as_mut).collect();
            let mut builder = streams[launch.rank as usize].launch_builder(function);
            for &i in &launch.args {
                if let Some(map) = &maps[i] {
                    builder.arg(map);
                    continue;
                }
                if let Some(table) = &tables[i] {
                    builder.arg(table);
                    continue;
                }
                match views[i].take() {
                    Some(view) => builder.arg(view),
                    None => builder.arg(&scalars[i]),
                };
            }
            // SAFETY: the parameter list was checked against the spec from the PTX
            // (pointers for buffers, 128-byte tensor maps for those the spec
            // marks, 64-byte tables of pointers for peer tables, 32-bit values
            // for scalars); every buffer is
            // allocated with the bytes of its spec length (elements times its
            // type's size, checked above) plus a guard band each side, and the
            // kernel's pointer starts after the leading band, so in-bounds
            // accesses stay inside the allocation.
            unsafe { builder.launch(*config) }.map_err(device)?;
        }
        for other in others {
            first.join(other).map_err(device)?;
        }
        let end = first.record_event(timing_event).map_err(device)?;
        first.synchronize().map_err(device)?;
        Ok(start.elapsed_ms(&end).map_err(device)? as f64)
    };
    announce(1);
    launch(&mut sets[0], &maps[0], &tables[0], Steps::All)?;

    // Every buffer's bands are checked (a write before `out[0]` is caught
    // too); only outputs' values are judged, so only they come back whole.
    let (mut blobs, mut buffers) = (Vec::new(), Vec::new());
    for (index, (arg, slice)) in spec.args.iter().zip(&sets[0]).enumerate() {
        let (Arg::Buffer(b), Some(slice)) = (arg, slice) else {
            continue;
        };
        let mut bytes: Vec<u8> = stream_of(b.rank)?.clone_dtoh(slice).map_err(device)?;
        if !b.is_output() {
            bytes.drain(band(b)..bytes.len() - band(b));
        }
        blobs.push(bytes);
        buffers.push(ReadBack {
            arg: index,
            before: true,
            data: b.is_output(),
        });
    }
    let count = sets.len();
    // The other sets' setup steps, once each, before any timed run.
    if functions.iter().any(|(l, ..)| l.setup) {
        for set in 1..count {
            announce(1);
            launch(&mut sets[set], &maps[set], &tables[set], Steps::Setup)?;
        }
    }
    for run in 0..runs.warmup {
        announce(1);
        let set = (run + 1) % count;
        launch(&mut sets[set], &maps[set], &tables[set], Steps::Timed)?;
    }
    let (mut samples, mut wall) = (Vec::new(), Vec::new());
    for run in 0..runs.timing_samples {
        announce(1);
        let started = std::time::Instant::now();
        let set = (runs.warmup + run + 1) % count;
        samples.push(launch(
            &mut sets[set],
            &maps[set],
            &tables[set],
            Steps::Timed,
        )?);
        wall.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let timing = Timing::from_samples(Clock::Device, &samples).map(|t| t.with_wall(&wall));
    Ok((DeviceOutcome::Ran(DeviceRun { timing, buffers }), blobs))
}

/// GPU cycles the lead kernel spins before each run (about half a
/// millisecond at an H100's or H200's clock): longer than the host takes to
/// queue a run's launches.
const LEAD_CYCLES: u64 = 1_000_000;

/// One thread spinning on the SM's cycle counter for `cycles` cycles,
/// queued ahead of each timed run's start event. Written in PTX, so no
/// compiler is needed to load it; any GPU since Volta runs it.
const LEAD_PTX: &str = "
.version 7.0
.target sm_70
.address_size 64
.visible .entry gpu_puzzles_lead(.param .u64 cycles)
{
    .reg .pred %p;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [cycles];
    mov.u64 %rd2, %clock64;
    add.u64 %rd1, %rd1, %rd2;
spin:
    mov.u64 %rd3, %clock64;
    setp.lt.u64 %p, %rd3, %rd1;
    @%p bra spin;
    ret;
}
";

/// Which of a run's launches to make: the checked run makes every one; a
/// spec's setup steps (a forward pass whose saved values its backward pass
/// reads) run once on each other set of buffers, and the timed runs make
/// the rest.
#[derive(Clone, Copy)]
enum Steps {
    All,
    Setup,
    Timed,
}

impl Steps {
    fn runs(self, launch: &Launch) -> bool {
        match self {
            Steps::All => true,
            Steps::Setup => launch.setup,
            Steps::Timed => !launch.setup,
        }
    }
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
