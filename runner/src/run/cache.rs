//! A result cache for book builds: a run is looked up by everything that can
//! change its outcome, so an unchanged puzzle is never run twice.
//!
//! The key hashes the engine (the running executable's path, size and
//! modification time: a rebuilt runner never reuses old results), the machine (hostname, boot, and the
//! environment that picks drivers and devices), the backend, the spec text,
//! the kernel source, the variant, the stress case and the run settings.
//! The machine part is known without opening a device, so a warm build opens
//! none.
//!
//! Entries are JSON files written atomically (a temporary file in the same
//! folder, then a rename), so parallel builds never see half an entry; an
//! entry that does not parse is ignored and recomputed.

use puzzle_core::judge::report::RunReport;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::run::backend::BackendKind;
use puzzle_core::source::text::SourceText;
use puzzle_core::spec::expr::Constants;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Environment variables that change which driver, device or headers a run
/// uses, or how the CPU checker runs.
const MACHINE_ENV: &[&str] = &[
    "VK_DRIVER_FILES",
    "VK_ICD_FILENAMES",
    "WGPU_BACKEND",
    "WGPU_ADAPTER_NAME",
    "CUDA_VISIBLE_DEVICES",
    "LD_LIBRARY_PATH",
    "NVRTC_LIB_DIR",
    "GPU_PUZZLES_CUDA_ARCH",
    "GPU_PUZZLES_CUDA_INCLUDE",
    // The CPU checker's schedule and subgroup size change what a sim run reports.
    "GPU_PUZZLES_SIM_SEED",
    "GPU_PUZZLES_SIM_SUBGROUP",
];

/// Where cached reports live, and the identity of this engine and machine.
#[derive(Debug, Clone)]
pub struct ResultCache {
    dir: PathBuf,
}

/// Everything about one run that can change its report.
pub struct RunKey<'a> {
    pub backend: BackendKind,
    pub spec_text: &'a str,
    pub source: &'a SourceText,
    pub variant: Variant,
    pub stress: Option<&'a Constants>,
    pub timing_samples: usize,
    pub timeout_ms: u128,
}

impl ResultCache {
    pub fn new(dir: impl Into<PathBuf>) -> ResultCache {
        ResultCache { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cached report for this run, if a valid one exists.
    pub fn get(&self, key: &RunKey) -> Option<RunReport> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        // A corrupt or outdated entry is as good as none: it will be rewritten.
        serde_json::from_str(&text).ok()
    }

    /// Stores a report; failures to write only cost a rerun next time.
    pub fn put(&self, key: &RunKey, report: &RunReport) {
        let _ = self.write(&self.path(key), report);
    }

    fn write(&self, path: &Path, report: &RunReport) -> std::io::Result<()> {
        crate::atomic_file::write(path, serde_json::to_string(report)?.as_bytes())
    }

    fn path(&self, key: &RunKey) -> PathBuf {
        self.dir.join(format!("{}.json", key.digest()))
    }
}

impl RunKey<'_> {
    fn digest(&self) -> String {
        let mut h = blake3::Hasher::new();
        let mut field = |name: &str, bytes: &[u8]| {
            // Length-prefixed, so no two different keys hash the same bytes.
            h.update(name.as_bytes());
            h.update(&(bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field("engine", engine_identity().as_bytes());
        field("machine", machine_identity().as_bytes());
        field("backend", self.backend.to_string().as_bytes());
        field("spec", self.spec_text.as_bytes());
        field("source", self.source.text.as_bytes());
        field("variant", self.variant.to_string().as_bytes());
        let stress = self.stress.map(|c| format!("{c:?}")).unwrap_or_default();
        field("stress", stress.as_bytes());
        field("samples", &self.timing_samples.to_le_bytes());
        field("timeout", &self.timeout_ms.to_le_bytes());
        h.finalize().to_hex().to_string()
    }
}

/// The running executable: its path, size and modification time. Any rebuild
/// of the engine relinks it and so changes the identity; reading the file's
/// metadata, not its 40 MB of contents, keeps a warm build's start cheap.
fn engine_identity() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let exe = std::env::current_exe().ok();
        let stamp = exe.as_ref().and_then(|p| {
            let meta = std::fs::metadata(p).ok()?;
            let modified = meta
                .modified()
                .ok()?
                .duration_since(std::time::UNIX_EPOCH)
                .ok()?;
            Some(format!(
                "{}|{}|{}",
                p.display(),
                meta.len(),
                modified.as_nanos()
            ))
        });
        // Unknown engine: a fresh identity per process, so nothing stale is reused.
        stamp.unwrap_or_else(|| format!("unknown-{}", std::process::id()))
    })
}

/// This machine, this boot, and the environment that selects devices.
fn machine_identity() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let mut id = format!(
            "{}|{}",
            read("/etc/hostname").trim(),
            read("/proc/sys/kernel/random/boot_id").trim()
        );
        for name in MACHINE_ENV {
            id.push_str(&format!(
                "|{name}={}",
                std::env::var(name).unwrap_or_default()
            ));
        }
        id
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzle_core::judge::report::Status;
    use puzzle_core::lang::Lang;

    fn report(status: Status) -> RunReport {
        RunReport {
            puzzle: "p".into(),
            lang: Lang::Wgsl,
            variant: Variant::Solution,
            backend: BackendKind::Wgpu,
            device: None,
            status,
            diagnostics: vec![],
            message: None,
            checks: vec![],
            timing: None,
            access: None,
            error: None,
        }
    }

    #[test]
    fn stores_reads_and_survives_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResultCache::new(dir.path().join("cache"));
        let source = SourceText::new("fn k() {}\n", Path::new("k.wgsl"), 1);
        let key = |variant, text: &'static str| RunKey {
            backend: BackendKind::Wgpu,
            spec_text: text,
            source: &source,
            variant,
            stress: None,
            timing_samples: 10,
            timeout_ms: 10_000,
        };
        assert!(cache.get(&key(Variant::Solution, "a")).is_none());
        cache.put(&key(Variant::Solution, "a"), &report(Status::Pass));
        assert_eq!(
            cache.get(&key(Variant::Solution, "a")).map(|r| r.status),
            Some(Status::Pass)
        );
        // Any part of the key that changes misses.
        assert!(cache.get(&key(Variant::Skeleton, "a")).is_none());
        assert!(cache.get(&key(Variant::Solution, "b")).is_none());
        // A corrupt entry is ignored, then rewritten.
        let path = cache.path(&key(Variant::Solution, "a"));
        std::fs::write(&path, "{ not json").unwrap();
        assert!(cache.get(&key(Variant::Solution, "a")).is_none());
        cache.put(&key(Variant::Solution, "a"), &report(Status::Fail));
        assert_eq!(
            cache.get(&key(Variant::Solution, "a")).map(|r| r.status),
            Some(Status::Fail)
        );
        // Only finished entries are left behind: no temporary files.
        let names: Vec<_> = std::fs::read_dir(cache.dir()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn parallel_writers_leave_one_valid_entry() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResultCache::new(dir.path());
        let source = SourceText::new("x\n", Path::new("k.wgsl"), 1);
        std::thread::scope(|s| {
            for i in 0..8 {
                let (cache, source) = (&cache, &source);
                s.spawn(move || {
                    let key = RunKey {
                        backend: BackendKind::Wgpu,
                        spec_text: "same",
                        source,
                        variant: Variant::Solution,
                        stress: None,
                        timing_samples: 0,
                        timeout_ms: 1,
                    };
                    let status = if i % 2 == 0 {
                        Status::Pass
                    } else {
                        Status::Fail
                    };
                    for _ in 0..20 {
                        cache.put(&key, &report(status));
                        assert!(cache.get(&key).is_some(), "never a torn entry");
                    }
                });
            }
        });
    }
}
