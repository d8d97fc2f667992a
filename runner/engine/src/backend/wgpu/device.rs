//! The child's side of the wgpu backend: a device opened once per child
//! process, and each job run on it. The kernel is compiled here (its time
//! counts against the deadline like a launch's), its buffers made from the
//! attachments the engine sent, the checked run made and read back, then
//! the warm-up and timed runs, announced before each batch so the engine
//! can give every launch its own deadline.

use crate::backend::wgpu::adapter::{self, Adapter};
use crate::child::job::{DeviceOutcome, DeviceRun, ReadBack, Runs, WgpuRun};
use naga::AddressSpace;
use puzzle_core::backend_contract::backend::BackendError;
use puzzle_core::backend_contract::outcome::GUARD_ELEMENTS;
use puzzle_core::backend_contract::timing::{Clock, Timing};
use puzzle_core::source::diag::Located;
use puzzle_core::spec::model::{Arg, Launch, Spec};
use puzzle_core::wgsl::front::{self, Declared};
use std::collections::BTreeMap;
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
                    backend: puzzle_core::backend_contract::backend::BackendKind::Wgpu,
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
    match run(job, inputs, announce) {
        Ok((run, blobs)) => Ok((DeviceOutcome::Ran(run), blobs)),
        Err(Stop::CompileFailed(errors)) => Ok((DeviceOutcome::CompileFailed(errors), vec![])),
        Err(Stop::Error(error)) => Err(error),
    }
}

/// Why a job ends before its run: its kernel did not compile (the learner's
/// mistake, so an outcome), or the tool or the device failed (an error).
enum Stop {
    CompileFailed(Vec<Located>),
    Error(BackendError),
}

impl From<BackendError> for Stop {
    fn from(error: BackendError) -> Stop {
        Stop::Error(error)
    }
}

/// [`execute`]'s steps, in order; each may stop the job.
fn run(
    job: &WgpuRun,
    inputs: Vec<Vec<u8>>,
    announce: &mut dyn FnMut(u32),
) -> Result<(DeviceRun, Vec<Vec<u8>>), Stop> {
    let gpu = gpu()?;
    let (module, declared) = compile(gpu, job)?;
    let prepared = prepare(gpu, job, module, &declared, inputs)?;
    let schedule = Schedule::new(gpu, prepared, job.runs);
    let (readbacks, checked_wall) = schedule.checked_run(&job.spec, announce)?;
    let wall_ms = schedule.further_runs(checked_wall, announce)?;
    let (buffers, blobs) = read_back(gpu, &readbacks)?;
    let timing = schedule.timing(wall_ms)?;
    Ok((DeviceRun { timing, buffers }, blobs))
}

/// The job's kernel compiled, its entry points and bindings checked against
/// the spec, and its launch and workgroup memory against this device's
/// limits; with how each binding is declared.
fn compile(gpu: &Gpu, job: &WgpuRun) -> Result<(naga::Module, BTreeMap<u32, Declared>), Stop> {
    let (spec, source) = (&job.spec, &job.source);
    let module = front::compile(source).map_err(Stop::CompileFailed)?;
    let declared = front::reflect(&module, spec, source).map_err(Stop::CompileFailed)?;
    adapter::check_limits(&gpu.limits, spec)?;
    let workgroup_bytes: u64 = module
        .global_variables
        .iter()
        .filter(|(_, v)| v.space == AddressSpace::WorkGroup)
        .map(|(_, v)| module.types[v.ty].inner.size(module.to_ctx()) as u64)
        .sum();
    if workgroup_bytes > gpu.limits.max_compute_workgroup_storage_size as u64 {
        return Err(Stop::Error(BackendError::Launch(format!(
            "the kernel declares {workgroup_bytes} bytes of workgroup memory; this adapter allows {}",
            gpu.limits.max_compute_workgroup_storage_size
        ))));
    }
    Ok((module, declared))
}

/// The kernel made ready on the device: its buffer sets and one pipeline per
/// launch.
struct Prepared<'a> {
    /// Set 0 is the checked one; timed runs rotate through all sets (`Runs::buffer_sets`).
    sets: Vec<(Vec<wgpu::Buffer>, wgpu::BindGroup)>,
    /// One per launch, in the spec's order.
    pipelines: Vec<(&'a Launch, wgpu::ComputePipeline)>,
}

/// The shader, the buffers and the pipelines, made under one validation
/// scope: whatever wgpu rejects among them is the kernel's compile error.
fn prepare<'a>(
    gpu: &Gpu,
    job: &'a WgpuRun,
    module: naga::Module,
    declared: &BTreeMap<u32, Declared>,
    inputs: Vec<Vec<u8>>,
) -> Result<Prepared<'a>, Stop> {
    let (spec, device) = (&job.spec, &gpu.device);
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(&spec.id),
        // The module naga already parsed and validated (`compile`): no second WGSL parse.
        source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(module)),
    });
    let (contents, layout_entries) = contents(spec, declared, inputs)?;
    // An explicit layout from the spec: a skeleton that does not touch `out` yet still binds it.
    let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("args"),
        entries: &layout_entries,
    });
    let sets = (0..job.runs.buffer_sets.max(1))
        .map(|_| buffer_set(device, spec, &contents, &bind_layout))
        .collect();
    drop(contents);
    let pipelines = pipelines(device, spec, &shader, &bind_layout);
    if let Some(error) = pollster::block_on(scope.pop()) {
        let message = format!("wgpu rejected the kernel: {error}");
        return Err(Stop::CompileFailed(vec![job.source.locate(1, message)]));
    }
    Ok(Prepared { sets, pipelines })
}

/// Each argument's bytes (the bytes the engine sent for a buffer, data and
/// guard band; a scalar as a small uniform) and how it is bound.
type Contents = Vec<(Vec<u8>, wgpu::BufferBindingType)>;

/// Each argument's [`Contents`], and its entry in the bind group's layout.
fn contents(
    spec: &Spec,
    declared: &BTreeMap<u32, Declared>,
    inputs: Vec<Vec<u8>>,
) -> Result<(Contents, Vec<wgpu::BindGroupLayoutEntry>), BackendError> {
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
            Arg::Peers { name, .. } => {
                return Err(BackendError::Launch(format!(
                    "`{name}` is a table of other GPUs' addresses; WebGPU drives one GPU"
                )));
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
    Ok((contents, layout_entries))
}

/// One set of device buffers made from `contents`, and its bind group.
fn buffer_set(
    device: &wgpu::Device,
    spec: &Spec,
    contents: &[(Vec<u8>, wgpu::BufferBindingType)],
    bind_layout: &wgpu::BindGroupLayout,
) -> (Vec<wgpu::Buffer>, wgpu::BindGroup) {
    let buffers: Vec<wgpu::Buffer> = spec
        .args
        .iter()
        .zip(contents)
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
        layout: bind_layout,
        entries: &entries,
    });
    (buffers, group)
}

/// One pipeline per launch, all sharing the one bind group: WGSL bindings
/// are numbered by the spec's `args`, whichever entry point uses them.
fn pipelines<'a>(
    device: &wgpu::Device,
    spec: &'a Spec,
    shader: &wgpu::ShaderModule,
    bind_layout: &wgpu::BindGroupLayout,
) -> Vec<(&'a Launch, wgpu::ComputePipeline)> {
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("args"),
        bind_group_layouts: &[Some(bind_layout)],
        immediate_size: 0,
    });
    spec.launches
        .iter()
        .map(|launch| {
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&launch.kernel),
                layout: Some(&pipeline_layout),
                module: shader,
                entry_point: Some(&launch.kernel),
                compilation_options: Default::default(),
                cache: None,
            });
            (launch, pipeline)
        })
        .collect()
}

/// Every run of a prepared kernel: run 0 is checked, then `warmup` untimed
/// runs, then the timed ones; with the timestamp queries that bracket them,
/// where the adapter has them.
struct Schedule<'a> {
    gpu: &'a Gpu,
    prepared: Prepared<'a>,
    asked: Runs,
    /// The checked run, the warm-up runs and the timed runs, together.
    runs: usize,
    queries: Option<Queries>,
}

/// Two timestamps a run (its start and its end), resolved into a buffer and
/// read back through another.
struct Queries {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    count: u32,
}

impl<'a> Schedule<'a> {
    fn new(gpu: &'a Gpu, prepared: Prepared<'a>, asked: Runs) -> Schedule<'a> {
        let runs = 1 + asked.warmup + asked.timing_samples;
        let device = &gpu.device;
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
            Queries {
                set,
                resolve,
                readback,
                count,
            }
        });
        Schedule {
            gpu,
            prepared,
            asked,
            runs,
            queries,
        }
    }

    /// Whether run `run` is one of the timed ones.
    fn timed(&self, run: usize) -> bool {
        run > self.asked.warmup
    }

    /// Encodes run `run`: every launch in order, each in its own pass (so
    /// each sees the last one's writes); the timestamps bracket the whole
    /// sequence.
    fn dispatch(&self, encoder: &mut wgpu::CommandEncoder, run: usize) {
        let Prepared { sets, pipelines } = &self.prepared;
        let last = pipelines.len() - 1;
        let bind_group = &sets[run % sets.len()].1;
        for (step, (launch, pipeline)) in pipelines.iter().enumerate() {
            let timestamp_writes = self
                .queries
                .as_ref()
                .filter(|_| run == 0 || self.timed(run))
                // A middle step of three or more writes no timestamp:
                // wgpu refuses a pass that names neither index.
                .filter(|_| step == 0 || step == last)
                .map(|queries| wgpu::ComputePassTimestampWrites {
                    query_set: &queries.set,
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
    }

    /// The checked run alone, its outputs copied out before anything else
    /// runs: a kernel that accumulates (atomics, +=) is judged on one launch.
    /// Other buffers have only their guard band read back, for stray writes.
    /// What is to be read back, and the run's wall time in ms.
    fn checked_run(
        &self,
        spec: &Spec,
        announce: &mut dyn FnMut(u32),
    ) -> Result<(Vec<(ReadBack, wgpu::Buffer)>, f64), BackendError> {
        let device = &self.gpu.device;
        let mut encoder = device.create_command_encoder(&Default::default());
        self.dispatch(&mut encoder, 0);
        let mut readbacks = Vec::new();
        for (index, (arg, buffer)) in spec.args.iter().zip(&self.prepared.sets[0].0).enumerate() {
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
        let checked_wall = submit_and_wait(self.gpu, encoder)?;
        Ok((readbacks, checked_wall))
    }

    /// Then the warm-up and timed runs, in one submission (each launch its
    /// own deadline); the wall time of one run in ms, the checked run's
    /// where there are no others.
    fn further_runs(
        &self,
        checked_wall: f64,
        announce: &mut dyn FnMut(u32),
    ) -> Result<f64, BackendError> {
        let runs = self.runs;
        if runs <= 1 {
            return Ok(checked_wall);
        }
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        for run in 1..runs {
            self.dispatch(&mut encoder, run);
        }
        if let Some(q) = &self.queries {
            encoder.resolve_query_set(&q.set, 0..q.count, &q.resolve, 0);
            encoder.copy_buffer_to_buffer(&q.resolve, 0, &q.readback, 0, 8 * q.count as u64);
        }
        announce((runs - 1) as u32);
        Ok(submit_and_wait(self.gpu, encoder)? / (runs - 1) as f64)
    }

    /// The timed runs' timing: the device's timestamps where the adapter has
    /// them (with the wall time beside), else the wall clock; none when no
    /// run was timed.
    fn timing(&self, wall_ms: f64) -> Result<Option<Timing>, BackendError> {
        let samples_asked = self.asked.timing_samples;
        Ok(match &self.queries {
            Some(q) if samples_asked > 0 => {
                let bytes = read_buffer(self.gpu, &q.readback)?;
                let ticks: Vec<u64> = bytes
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect();
                let period_ns = self.gpu.queue.get_timestamp_period() as f64;
                let samples: Vec<f64> = ticks
                    .chunks_exact(2)
                    .enumerate()
                    // The checked run absorbs first-launch costs; warm-up runs are not timed.
                    .filter(|(run, _)| self.timed(*run))
                    .map(|(_, pair)| pair[1].saturating_sub(pair[0]) as f64 * period_ns / 1e6)
                    .collect();
                Timing::from_samples(Clock::Device, &samples).map(|t| t.with_wall(&[wall_ms]))
            }
            None if samples_asked > 0 => Timing::from_samples(Clock::Wall, &[wall_ms]),
            _ => None,
        })
    }
}

/// Each buffer of the checked run read back, in order: what was read, and
/// its bytes.
fn read_back(
    gpu: &Gpu,
    readbacks: &[(ReadBack, wgpu::Buffer)],
) -> Result<(Vec<ReadBack>, Vec<Vec<u8>>), BackendError> {
    let mut blobs = Vec::new();
    let mut buffers = Vec::new();
    for (read, target) in readbacks {
        blobs.push(read_buffer(gpu, target)?);
        buffers.push(*read);
    }
    Ok((buffers, blobs))
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
