//! The adapter wgpu picks (`WGPU_ADAPTER_NAME` / `WGPU_BACKEND` select
//! another): found, described, and its limits checked against a launch. The
//! engine probes it to label results and size benchmarks; the child that
//! runs kernels opens a device on it.

use puzzle_core::backend_contract::backend::{
    BackendError, BackendKind, DeviceInfo, check_launch_basics,
};
use puzzle_core::backend_contract::outcome::GUARD_ELEMENTS;
use puzzle_core::spec::model::Spec;

/// An adapter, what it is, and what it allows.
pub struct Adapter {
    pub adapter: wgpu::Adapter,
    pub info: DeviceInfo,
    pub limits: wgpu::Limits,
    /// Timestamps and subgroups, where offered.
    pub features: wgpu::Features,
    /// The subgroup size, where the adapter has only one (lavapipe: 8).
    pub subgroup_size: Option<u32>,
}

/// Finds the adapter, or says what to install.
pub fn find() -> Result<Adapter, BackendError> {
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
    // WebGPU's defaults are small (16 KiB workgroup memory, 256 invocations): ask for what the adapter has.
    let limits = adapter.limits();
    let subgroup_size = (features.contains(wgpu::Features::SUBGROUP)
        && adapter_info.subgroup_min_size == adapter_info.subgroup_max_size)
        .then_some(adapter_info.subgroup_min_size);
    Ok(Adapter {
        adapter,
        info,
        limits,
        features,
        subgroup_size,
    })
}

/// Whether every launch of `spec` fits the adapter's limits, in words where not.
pub fn check_limits(l: &wgpu::Limits, spec: &Spec) -> Result<(), BackendError> {
    check_launch_basics(spec)?;
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

/// The same instance in debug and release builds. wgpu's default turns on
/// Vulkan debugging in debug builds, which made every Mesa driver on the
/// machine (radv included) initialise slowly: 0.8 s a run instead of 0.1 s.
/// `WGPU_DEBUG=1` / `WGPU_VALIDATION=1` still turn it on when wanted.
pub fn instance_descriptor() -> wgpu::InstanceDescriptor {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    descriptor.flags = wgpu::InstanceFlags::empty().with_env();
    descriptor
}
