//! The wgpu backend: WGSL on any Vulkan, Metal or DX12 device, including
//! Mesa's lavapipe on a CPU.
//!
//! The kernel goes through the shared WGSL front end first
//! ([`puzzle_core::wgsl::front`]), so a mistake comes back as naga's message
//! at the kernel file's line (not as a panic from wgpu's default error
//! handler), with its bindings and workgroup size checked against the spec.
//! Buffers get a poisoned guard band past their end to catch out-of-bounds
//! writes ([`puzzle_core::run::outcome::device_bytes`]), and runs are timed
//! with timestamp queries when the adapter has them.

use naga::AddressSpace;
use puzzle_core::run::backend::{
    Backend, BackendError, BackendKind, DeviceInfo, Job, check_launch_basics,
};
use puzzle_core::run::outcome::{Execution, GUARD_ELEMENTS, Outcome, OutputData, device_bytes};
use puzzle_core::run::timing::{Clock, Timing};
use puzzle_core::spec::model::{Arg, Launch, Spec};
use puzzle_core::wgsl::front::{self, Declared};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use wgpu::util::DeviceExt;

pub struct WgpuBackend {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: DeviceInfo,
    limits: wgpu::Limits,
    timestamps: bool,
    /// Errors wgpu reports outside an error scope (kept, never a panic).
    uncaptured: Arc<Mutex<Vec<String>>>,
    /// Set once a kernel hung: the device may still be busy with it.
    stuck: AtomicBool,
}

impl WgpuBackend {
    /// Opens the adapter wgpu prefers (`WGPU_ADAPTER_NAME` / `WGPU_BACKEND` select another).
    pub fn open() -> Result<WgpuBackend, BackendError> {
        let unavailable = |reason: String| BackendError::Unavailable {
            backend: BackendKind::Wgpu,
            reason,
        };
        let instance = wgpu::Instance::new(instance_descriptor());
        let adapter = pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(
            &instance, None,
        ))
        .map_err(|e| {
            unavailable(format!(
                "no GPU adapter found ({e}). On Linux without a GPU, install Mesa's CPU driver: \
                     `apt-get install mesa-vulkan-drivers libvulkan1`"
            ))
        })?;
        let adapter_info = adapter.get_info();
        // Timestamps for device time; subgroups (`subgroupAdd`, shuffles, …)
        // where the adapter has them, so kernels that use them run here as
        // on the CPU checker. Each is asked for only where offered.
        let wanted = wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::SUBGROUP;
        let features = adapter.features() & wanted;
        let timestamps = features.contains(wgpu::Features::TIMESTAMP_QUERY);
        // WebGPU's defaults are small (16 KiB workgroup memory, 256 invocations): ask for what the adapter has.
        let limits = adapter.limits();
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("gpu-puzzles"),
            required_features: features,
            required_limits: limits.clone(),
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&descriptor))
            .map_err(|e| unavailable(format!("the adapter refused a device: {e}")))?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            if let Ok(mut errors) = sink.lock() {
                errors.push(error.to_string());
            }
        }));
        let kind = match adapter_info.device_type {
            wgpu::DeviceType::Cpu => "CPU",
            _ => "GPU",
        };
        let info = DeviceInfo {
            backend: BackendKind::Wgpu,
            name: adapter_info.name.clone(),
            kind: kind.to_string(),
            api: format!("{:?}", adapter_info.backend),
            driver: format!("{} {}", adapter_info.driver, adapter_info.driver_info)
                .trim()
                .to_string(),
        };
        Ok(WgpuBackend {
            device,
            queue,
            info,
            limits,
            timestamps,
            uncaptured,
            stuck: AtomicBool::new(false),
        })
    }

    fn check_limits(&self, spec: &Spec) -> Result<(), BackendError> {
        check_launch_basics(spec)?;
        let l = &self.limits;
        let axes = ["x", "y", "z"];
        let max_block = [
            l.max_compute_workgroup_size_x,
            l.max_compute_workgroup_size_y,
            l.max_compute_workgroup_size_z,
        ];
        for launch in &spec.launches {
            for i in 0..3 {
                if launch.grid[i] > l.max_compute_workgroups_per_dimension {
                    return Err(BackendError::Launch(format!(
                        "a grid of {} workgroups along {}; this adapter allows at most {}",
                        launch.grid[i], axes[i], l.max_compute_workgroups_per_dimension
                    )));
                }
                if launch.block[i] > max_block[i] {
                    return Err(BackendError::Launch(format!(
                        "a block of {} threads along {}; this adapter allows at most {}",
                        launch.block[i], axes[i], max_block[i]
                    )));
                }
            }
            if launch.threads_per_block() > l.max_compute_invocations_per_workgroup as u64 {
                return Err(BackendError::Launch(format!(
                    "a block of {} threads; this adapter allows at most {} per workgroup",
                    launch.threads_per_block(),
                    l.max_compute_invocations_per_workgroup
                )));
            }
        }
        for b in spec.buffers() {
            let bytes = ((b.len() + GUARD_ELEMENTS) * b.dtype.size()) as u64;
            if bytes > l.max_storage_buffer_binding_size {
                return Err(BackendError::Launch(format!(
                    "buffer `{}` needs {bytes} bytes; this adapter binds at most {}",
                    b.name, l.max_storage_buffer_binding_size
                )));
            }
        }
        Ok(())
    }
}

/// The same instance in debug and release builds. wgpu's default turns on
/// Vulkan debugging in debug builds, which made every Mesa driver on the
/// machine (radv included) initialise slowly: 0.8 s a run instead of 0.1 s.
/// `WGPU_DEBUG=1` / `WGPU_VALIDATION=1` still turn it on when wanted.
fn instance_descriptor() -> wgpu::InstanceDescriptor {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    descriptor.flags = wgpu::InstanceFlags::empty().with_env();
    descriptor
}

impl Backend for WgpuBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Wgpu
    }

    fn device(&self) -> &DeviceInfo {
        &self.info
    }

    /// WebGPU does not say. A CPU adapter (lavapipe) runs through the CPU's
    /// L3, which Linux reports; a GPU gets a generous guess (larger than the
    /// L2 of any current NVIDIA GPU), so the rotation errs on the safe side.
    fn last_level_cache_bytes(&self) -> Option<u64> {
        if self.info.kind == "CPU" {
            let text =
                std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index3/size").ok()?;
            let kib: u64 = text.trim().trim_end_matches('K').parse().ok()?;
            Some(kib * 1024)
        } else {
            Some(128 << 20)
        }
    }

    fn max_buffer_bytes(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
    }

    fn run(&self, job: &Job) -> Result<Outcome, BackendError> {
        if self.stuck.load(Ordering::Relaxed) {
            return Err(BackendError::Device(
                "an earlier kernel on this device never finished".into(),
            ));
        }
        let spec = job.spec;
        let module = match front::compile(job.source) {
            Ok(m) => m,
            Err(errors) => return Ok(Outcome::CompileFailed(errors)),
        };
        let declared = match front::reflect(&module, spec, job.source) {
            Ok(d) => d,
            Err(errors) => return Ok(Outcome::CompileFailed(errors)),
        };
        self.check_limits(spec)?;
        let workgroup_bytes: u64 = module
            .global_variables
            .iter()
            .filter(|(_, v)| v.space == AddressSpace::WorkGroup)
            .map(|(_, v)| module.types[v.ty].inner.size(module.to_ctx()) as u64)
            .sum();
        if workgroup_bytes > self.limits.max_compute_workgroup_storage_size as u64 {
            return Err(BackendError::Launch(format!(
                "the kernel declares {workgroup_bytes} bytes of workgroup memory; this adapter allows {}",
                self.limits.max_compute_workgroup_storage_size
            )));
        }

        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let shader = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(&spec.id),
                // The module naga already parsed and validated above: no second WGSL parse.
                source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(module)),
            });

        // Device buffers: data followed by a poisoned guard band; scalars as small uniforms.
        let mut contents = Vec::new();
        let mut layout_entries = Vec::new();
        for (index, arg) in spec.args.iter().enumerate() {
            let binding = index as u32;
            let (bytes, ty) = match arg {
                Arg::Buffer(b) => {
                    let bytes = device_bytes(b, binding, false);
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
        let bind_layout = self
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("args"),
                entries: &layout_entries,
            });
        // Set 0 is the checked one; timed runs rotate through all sets (`Job::buffer_sets`).
        let sets: Vec<(Vec<wgpu::Buffer>, wgpu::BindGroup)> = (0..job.buffer_sets.max(1))
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
                        self.device
                            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
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
                let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("args"),
                    layout: &bind_layout,
                    entries: &entries,
                });
                (buffers, group)
            })
            .collect();
        drop(contents);
        let pipeline_layout = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
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
                let pipeline =
                    self.device
                        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
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
            return Ok(Outcome::CompileFailed(vec![
                job.source
                    .locate(1, format!("wgpu rejected the kernel: {error}")),
            ]));
        }

        // Run 0 is checked, then `warmup` untimed runs, then the timed ones.
        let runs = 1 + job.warmup + job.timing_samples;
        let timed = |run: usize| run > job.warmup;
        let queries = self.timestamps.then(|| {
            let count = 2 * runs as u32;
            let set = self.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count,
            });
            let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps"),
                size: 8 * count as u64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let readback = self.readback(8 * count as u64);
            (set, resolve, readback, count)
        });

        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = self.device.create_command_encoder(&Default::default());
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
        // The checked run's outputs are copied out before the timed repetitions
        // run: a kernel that accumulates (atomics, +=) is judged on one launch.
        // Other buffers have only their guard band read back, for stray writes.
        dispatch(&mut encoder, 0);
        let mut readbacks = Vec::new();
        for (index, (arg, buffer)) in spec.args.iter().zip(&sets[0].0).enumerate() {
            if let Arg::Buffer(b) = arg {
                let data = (b.len() * b.dtype.size()) as u64;
                let band = (GUARD_ELEMENTS * b.dtype.size()) as u64;
                let start = if b.is_output() { 0 } else { data };
                let size = data + band - start;
                let readback = self.readback(size);
                encoder.copy_buffer_to_buffer(buffer, start, &readback, 0, size);
                readbacks.push((b, index as u32, readback));
            }
        }
        for run in 1..runs {
            dispatch(&mut encoder, run);
        }
        if let Some((set, resolve, readback, count)) = &queries {
            encoder.resolve_query_set(set, 0..*count, resolve, 0);
            encoder.copy_buffer_to_buffer(resolve, 0, readback, 0, 8 * *count as u64);
        }
        let started = Instant::now();
        let submission = self.queue.submit([encoder.finish()]);
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(BackendError::Launch(error.to_string()));
        }
        match self.device.poll(wgpu::PollType::Wait {
            submission_index: Some(submission),
            timeout: Some(job.timeout),
        }) {
            Ok(_) => {}
            Err(wgpu::PollError::Timeout) => {
                self.stuck.store(true, Ordering::Relaxed);
                return Err(BackendError::Timeout(job.timeout));
            }
            Err(e) => return Err(BackendError::Device(e.to_string())),
        }
        let wall_ms = started.elapsed().as_secs_f64() * 1e3 / runs as f64;
        if let Some(error) = self.uncaptured.lock().ok().and_then(|mut e| e.pop()) {
            return Err(BackendError::Device(error));
        }

        let mut outputs = Vec::new();
        for (b, tag, readback) in &readbacks {
            let bytes = self.read(readback)?;
            // Outputs come back whole; other buffers only their guard band.
            let split = if b.is_output() {
                b.len() * b.dtype.size()
            } else {
                0
            };
            outputs.push(OutputData::from_device(
                b,
                *tag,
                None,
                &bytes[..split],
                &bytes[split..],
            ));
        }
        let timing = match &queries {
            Some((_, _, readback, _)) if job.timing_samples > 0 => {
                let bytes = self.read(readback)?;
                let ticks: Vec<u64> = bytes
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect();
                let period_ns = self.queue.get_timestamp_period() as f64;
                let samples: Vec<f64> = ticks
                    .chunks_exact(2)
                    .enumerate()
                    // The checked run absorbs first-launch costs; warm-up runs are not timed.
                    .filter(|(run, _)| timed(*run))
                    .map(|(_, pair)| pair[1].saturating_sub(pair[0]) as f64 * period_ns / 1e6)
                    .collect();
                Timing::from_samples(Clock::Device, &samples).map(|t| t.with_wall(&[wall_ms]))
            }
            None if job.timing_samples > 0 => Timing::from_samples(Clock::Wall, &[wall_ms]),
            _ => None,
        };
        Ok(Outcome::Ran(Execution {
            outputs,
            timing,
            hazards: vec![],
            access: None,
        }))
    }
}

impl WgpuBackend {
    fn readback(&self, size: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    fn read(&self, buffer: &wgpu::Buffer) -> Result<Vec<u8>, BackendError> {
        let slice = buffer.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device
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
}
