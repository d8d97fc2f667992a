//! The child's side of the wgpu backend: a device opened once per child
//! process, and each job run on it. The kernel is compiled here (its time
//! counts against the deadline like a launch's), its buffers made from the
//! attachments the engine sent, the checked run made and read back, then
//! the warm-up and timed runs, announced before each batch so the engine
//! can give every launch its own deadline.

use crate::backend::wgpu::adapter::{self, Adapter};
use crate::child::job::{DeviceOutcome, DeviceRun, ReadBack, WgpuRun};
use naga::AddressSpace;
use puzzle_core::run::backend::BackendError;
use puzzle_core::run::outcome::GUARD_ELEMENTS;
use puzzle_core::run::timing::{Clock, Timing};
use puzzle_core::spec::model::{Arg, Launch};
use puzzle_core::wgsl::front::{self, Declared};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use wgpu::util::DeviceExt;

/// The device of this child process.
struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    limits: wgpu::Limits,
    timestamps: bool,
    /// Errors wgpu reports outside an error scope (kept, never a panic).
    uncaptured: Arc<Mutex<Vec<String>>>,
}

fn gpu() -> Result<&'static Gpu, BackendError> {
    static GPU: OnceLock<Result<Gpu, BackendError>> = OnceLock::new();
    GPU.get_or_init(|| {
        let Adapter {
            adapter,
            limits,
            features,
            ..
        } = adapter::find()?;
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("gpu-puzzles"),
            required_features: features,
            required_limits: limits.clone(),
            ..Default::default()
        };
        let (device, queue) =
            pollster::block_on(adapter.request_device(&descriptor)).map_err(|e| {
                BackendError::Unavailable {
                    backend: puzzle_core::run::backend::BackendKind::Wgpu,
                    reason: format!("the adapter refused a device: {e}"),
                }
            })?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            if let Ok(mut errors) = sink.lock() {
                errors.push(error.to_string());
            }
        }));
        Ok(Gpu {
            device,
            queue,
            limits,
            timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            uncaptured,
        })
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Compiles and runs `job` on this process's device. `inputs` holds each
/// buffer's device bytes, in the order of the spec's buffers; `announce` is
/// told how many launches are about to be made. What comes back: the
/// outcome, and for a run, each buffer read back (outputs whole, others
/// their guard band), in the order of [`DeviceRun::buffers`].
pub fn execute(
    job: &WgpuRun,
    inputs: Vec<Vec<u8>>,
    announce: &mut dyn FnMut(u32),
) -> Result<(DeviceOutcome, Vec<Vec<u8>>), BackendError> {
    let gpu = gpu()?;
    let (spec, source, runs_asked) = (&job.spec, &job.source, job.runs);
    let module = match front::compile(source) {
        Ok(m) => m,
        Err(errors) => return Ok((DeviceOutcome::CompileFailed(errors), vec![])),
    };
    let declared = match front::reflect(&module, spec, source) {
        Ok(d) => d,
        Err(errors) => return Ok((DeviceOutcome::CompileFailed(errors), vec![])),
    };
    adapter::check_limits(&gpu.limits, spec)?;
    let workgroup_bytes: u64 = module
        .global_variables
        .iter()
        .filter(|(_, v)| v.space == AddressSpace::WorkGroup)
        .map(|(_, v)| module.types[v.ty].inner.size(module.to_ctx()) as u64)
        .sum();
    if workgroup_bytes > gpu.limits.max_compute_workgroup_storage_size as u64 {
        return Err(BackendError::Launch(format!(
            "the kernel declares {workgroup_bytes} bytes of workgroup memory; this adapter allows {}",
            gpu.limits.max_compute_workgroup_storage_size
        )));
    }
    let device = &gpu.device;

    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(&spec.id),
        // The module naga already parsed and validated above: no second WGSL parse.
        source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(module)),
    });

    // Device buffers: the bytes the engine sent (data and guard band); scalars as small uniforms.
    let mut inputs = inputs.into_iter();
    let mut contents = Vec::new();
    let mut layout_entries = Vec::new();
    for (index, arg) in spec.args.iter().enumerate() {
        let binding = index as u32;
        let (bytes, ty) = match arg {
            Arg::Buffer(b) => {
                let bytes = inputs.next().ok_or_else(|| {
                    BackendError::Device(format!("no contents came for buffer `{}`", b.name))
                })?;
                let read_only = match declared.get(&binding) {
                    Some(Declared::Storage { read_only }) => *read_only,
                    _ => !b.is_output(),
                };
                (bytes, wgpu::BufferBindingType::Storage { read_only })
            }
            Arg::Scalar { dtype, value, .. } => {
                let mut bytes = dtype.encode(&[*value]);
                bytes.resize(16, 0); // uniform bindings are 16-byte aligned
                (bytes, wgpu::BufferBindingType::Uniform)
            }
        };
        contents.push((bytes, ty));
        layout_entries.push(wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        });
    }
    // An explicit layout from the spec: a skeleton that does not touch `out` yet still binds it.
    let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("args"),
        entries: &layout_entries,
    });
    // Set 0 is the checked one; timed runs rotate through all sets (`Runs::buffer_sets`).
    let sets: Vec<(Vec<wgpu::Buffer>, wgpu::BindGroup)> = (0..runs_asked.buffer_sets.max(1))
        .map(|_| {
            let buffers: Vec<wgpu::Buffer> = spec
                .args
                .iter()
                .zip(&contents)
                .map(|(arg, (bytes, ty))| {
                    let usage = match ty {
                        wgpu::BufferBindingType::Uniform => wgpu::BufferUsages::UNIFORM,
                        _ => wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                    };
                    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some(arg.name()),
                        contents: bytes,
                        usage,
                    })
                })
                .collect();
            let entries: Vec<wgpu::BindGroupEntry> = buffers
                .iter()
                .enumerate()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: b.as_entire_binding(),
                })
                .collect();
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("args"),
                layout: &bind_layout,
                entries: &entries,
            });
            (buffers, group)
        })
        .collect();
    drop(contents);
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("args"),
        bind_group_layouts: &[Some(&bind_layout)],
        immediate_size: 0,
    });
    // One pipeline per launch, all sharing the one bind group: WGSL bindings
    // are numbered by the spec's `args`, whichever entry point uses them.
    let pipelines: Vec<(&Launch, wgpu::ComputePipeline)> = spec
        .launches
        .iter()
        .map(|launch| {
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&launch.kernel),
                layout: Some(&pipeline_layout),
                module: &shader,
                entry_point: Some(&launch.kernel),
                compilation_options: Default::default(),
                cache: None,
            });
            (launch, pipeline)
        })
        .collect();
    if let Some(error) = pollster::block_on(scope.pop()) {
        let message = format!("wgpu rejected the kernel: {error}");
        return Ok((
            DeviceOutcome::CompileFailed(vec![source.locate(1, message)]),
            vec![],
        ));
    }

    // Run 0 is checked, then `warmup` untimed runs, then the timed ones.
    let runs = 1 + runs_asked.warmup + runs_asked.timing_samples;
    let timed = |run: usize| run > runs_asked.warmup;
    let queries = gpu.timestamps.then(|| {
        let count = 2 * runs as u32;
        let set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps"),
            size: 8 * count as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = readback(device, 8 * count as u64);
        (set, resolve, readback, count)
    });

    // One run is every launch in order, each in its own pass (so each sees
    // the last one's writes); the timestamps bracket the whole sequence.
    let last = pipelines.len() - 1;
    let dispatch = |encoder: &mut wgpu::CommandEncoder, run: usize| {
        let bind_group = &sets[run % sets.len()].1;
        for (step, (launch, pipeline)) in pipelines.iter().enumerate() {
            let timestamp_writes = queries
                .as_ref()
                .filter(|_| run == 0 || timed(run))
                // A middle step of three or more writes no timestamp:
                // wgpu refuses a pass that names neither index.
                .filter(|_| step == 0 || step == last)
                .map(|(set, ..)| wgpu::ComputePassTimestampWrites {
                    query_set: set,
                    beginning_of_pass_write_index: (step == 0).then_some(2 * run as u32),
                    end_of_pass_write_index: (step == last).then_some(2 * run as u32 + 1),
                });
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&launch.kernel),
                timestamp_writes,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(launch.grid[0], launch.grid[1], launch.grid[2]);
        }
    };
    // The checked run alone, its outputs copied out before anything else
    // runs: a kernel that accumulates (atomics, +=) is judged on one launch.
    // Other buffers have only their guard band read back, for stray writes.
    let mut encoder = device.create_command_encoder(&Default::default());
    dispatch(&mut encoder, 0);
    let mut readbacks = Vec::new();
    for (index, (arg, buffer)) in spec.args.iter().zip(&sets[0].0).enumerate() {
        if let Arg::Buffer(b) = arg {
            let data = (b.len() * b.dtype.size()) as u64;
            let band = (GUARD_ELEMENTS * b.dtype.size()) as u64;
            let start = if b.is_output() { 0 } else { data };
            let size = data + band - start;
            let target = readback(device, size);
            encoder.copy_buffer_to_buffer(buffer, start, &target, 0, size);
            let read = ReadBack {
                arg: index,
                before: false,
                data: b.is_output(),
            };
            readbacks.push((read, target));
        }
    }
    announce(1);
    let checked_wall = submit_and_wait(gpu, encoder)?;

    // Then the warm-up and timed runs, in one submission (each launch its own deadline).
    let mut wall_ms = checked_wall;
    if runs > 1 {
        let mut encoder = device.create_command_encoder(&Default::default());
        for run in 1..runs {
            dispatch(&mut encoder, run);
        }
        if let Some((set, resolve, readback, count)) = &queries {
            encoder.resolve_query_set(set, 0..*count, resolve, 0);
            encoder.copy_buffer_to_buffer(resolve, 0, readback, 0, 8 * *count as u64);
        }
        announce((runs - 1) as u32);
        wall_ms = submit_and_wait(gpu, encoder)? / (runs - 1) as f64;
    }

    let mut blobs = Vec::new();
    let mut buffers = Vec::new();
    for (read, target) in &readbacks {
        blobs.push(read_buffer(gpu, target)?);
        buffers.push(*read);
    }
    let timing = match &queries {
        Some((_, _, readback, _)) if runs_asked.timing_samples > 0 => {
            let bytes = read_buffer(gpu, readback)?;
            let ticks: Vec<u64> = bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
                .collect();
            let period_ns = gpu.queue.get_timestamp_period() as f64;
            let samples: Vec<f64> = ticks
                .chunks_exact(2)
                .enumerate()
                // The checked run absorbs first-launch costs; warm-up runs are not timed.
                .filter(|(run, _)| timed(*run))
                .map(|(_, pair)| pair[1].saturating_sub(pair[0]) as f64 * period_ns / 1e6)
                .collect();
            Timing::from_samples(Clock::Device, &samples).map(|t| t.with_wall(&[wall_ms]))
        }
        None if runs_asked.timing_samples > 0 => Timing::from_samples(Clock::Wall, &[wall_ms]),
        _ => None,
    };
    Ok((DeviceOutcome::Ran(DeviceRun { timing, buffers }), blobs))
}

/// Submits `encoder` and waits for the device (the engine kills this
/// process if the wait outlives the deadline); the wall time in ms.
fn submit_and_wait(gpu: &Gpu, encoder: wgpu::CommandEncoder) -> Result<f64, BackendError> {
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let started = Instant::now();
    let submission = gpu.queue.submit([encoder.finish()]);
    if let Some(error) = pollster::block_on(scope.pop()) {
        return Err(BackendError::Launch(error.to_string()));
    }
    gpu.device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(submission),
            timeout: None,
        })
        .map_err(|e| BackendError::Device(e.to_string()))?;
    if let Some(error) = gpu.uncaptured.lock().ok().and_then(|mut e| e.pop()) {
        return Err(BackendError::Device(error));
    }
    Ok(started.elapsed().as_secs_f64() * 1e3)
}

fn readback(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn read_buffer(gpu: &Gpu, buffer: &wgpu::Buffer) -> Result<Vec<u8>, BackendError> {
    let slice = buffer.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| BackendError::Device(e.to_string()))?;
    rx.recv()
        .map_err(|e| BackendError::Device(e.to_string()))?
        .map_err(|e| BackendError::Device(e.to_string()))?;
    let bytes = slice
        .get_mapped_range()
        .map_err(|e| BackendError::Device(e.to_string()))?
        .to_vec();
    buffer.unmap();
    Ok(bytes)
}
