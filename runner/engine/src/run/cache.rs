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

use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::judge::report::RunReport;
use puzzle_core::kernel::cut::Variant;
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
    /// The CPU checker's subgroup size, where it is set to an adapter's
    /// rather than the default (checking a lavapipe run).
    pub subgroup: Option<u32>,
    /// The checker kept who touched which element (a diagram's run).
    pub traced: bool,
}

impl ResultCache {
    pub fn new(dir: impl Into<PathBuf>) -> ResultCache {
        ResultCache { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cached report for this run, if a valid one exists: one that
    /// names this key, whose checksum matches its contents, and whose
    /// verdict agrees with its own data. Anything else (a corrupt file,
    /// another key's entry copied over, an edited value) is as good as none,
    /// and is rewritten by the run it costs.
    pub fn get(&self, key: &RunKey) -> Option<RunReport> {
        let digest = key.digest();
        let text = std::fs::read_to_string(self.dir.join(format!("{digest}.json"))).ok()?;
        // The report's JSON is checked as it lies in the file, then parsed:
        // writing it out again to compare would cost a warm build more than
        // reading it.
        let entry: Entry = serde_json::from_str(&text).ok()?;
        let genuine =
            entry.key == digest && entry.checksum == checksum(&digest, entry.report.get());
        let report: RunReport = serde_json::from_str(entry.report.get()).ok()?;
        (genuine && report.holds_up()).then_some(report)
    }

    /// Stores a report; failures to write only cost a rerun next time.
    pub fn put(&self, key: &RunKey, report: &RunReport) {
        let digest = key.digest();
        let Ok(json) = serde_json::to_string(report) else {
            return;
        };
        let Ok(raw) = serde_json::value::RawValue::from_string(json) else {
            return;
        };
        let entry = Entry {
            checksum: checksum(&digest, raw.get()),
            key: digest.clone(),
            report: raw,
        };
        if let Ok(text) = serde_json::to_string(&entry) {
            let _ = crate::atomic_file::write(
                &self.dir.join(format!("{digest}.json")),
                text.as_bytes(),
            );
        }
    }

    /// A fact about this engine on this machine that costs a device to find
    /// out (which backend runs WGSL here), read from the cache, or found by
    /// `find` and kept. A warm build then opens no device at all.
    pub fn remembered(&self, fact: &str, find: impl FnOnce() -> String) -> String {
        let mut h = blake3::Hasher::new();
        for part in [engine_identity(), machine_identity(), fact] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        let path = self.dir.join(format!("fact-{}.txt", h.finalize().to_hex()));
        if let Ok(known) = std::fs::read_to_string(&path) {
            return known;
        }
        let found = find();
        let _ = crate::atomic_file::write(&path, found.as_bytes());
        found
    }

    #[cfg(test)]
    fn path(&self, key: &RunKey) -> PathBuf {
        self.dir.join(format!("{}.json", key.digest()))
    }
}

/// One cached result, with proof that it belongs where it is.
#[derive(serde::Serialize, serde::Deserialize)]
struct Entry {
    /// The digest of the key it was stored under.
    key: String,
    /// blake3 of the key and the report's JSON, as written.
    checksum: String,
    /// The report's JSON, kept as text so that it is hashed as it lies.
    report: Box<serde_json::value::RawValue>,
}

fn checksum(key: &str, report: &str) -> String {
    let mut h = blake3::Hasher::new();
    h.update(key.as_bytes());
    h.update(report.as_bytes());
    h.finalize().to_hex().to_string()
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
        // Both checkers are `sim` to the user; the key tells them apart.
        let backend = match self.backend {
            BackendKind::PtxSim => "ptx-sim".to_string(),
            kind => kind.to_string(),
        };
        field("backend", backend.as_bytes());
        field("spec", self.spec_text.as_bytes());
        field("source", self.source.text.as_bytes());
        field("variant", self.variant.to_string().as_bytes());
        let stress = self.stress.map(|c| format!("{c:?}")).unwrap_or_default();
        field("stress", stress.as_bytes());
        field("samples", &self.timing_samples.to_le_bytes());
        field("timeout", &self.timeout_ms.to_le_bytes());
        let subgroup = self.subgroup.map(|n| n.to_string()).unwrap_or_default();
        field("subgroup", subgroup.as_bytes());
        field("traced", &[u8::from(self.traced)]);
        h.finalize().to_hex().to_string()
    }
}

/// This engine on this machine, as every cached result is keyed by: what
/// else keeps results (the book's memo) keys by it too.
pub fn engine_and_machine() -> String {
    format!("{}\n{}", engine_identity(), machine_identity())
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
    use puzzle_core::judge::verify::BufferCheck;
    use puzzle_core::lang::Lang;

    /// A report whose one output came back as `got` against [1, 2], its
    /// verdict as a run would give it.
    fn report(got: [f64; 2]) -> RunReport {
        let check = BufferCheck {
            name: "out".into(),
            dtype: puzzle_core::spec::data::Dtype::F32,
            tolerance: None,
            shape: vec![2],
            got: got.iter().map(|&v| Some(v)).collect(),
            expected: vec![1.0, 2.0],
            wrong: (0..2).filter(|&i| got[i] != [1.0, 2.0][i]).collect(),
            unwritten: vec![],
            from_poison: None,
            out_of_bounds: vec![],
            judged: true,
            abridged: None,
        };
        RunReport {
            puzzle: "p".into(),
            lang: Lang::Wgsl,
            variant: Variant::Solution,
            backend: BackendKind::Wgpu,
            device: None,
            status: if check.passed() {
                Status::Pass
            } else {
                Status::Fail
            },
            diagnostics: vec![],
            message: None,
            checks: vec![check],
            timing: None,
            access: None,
            accesses: None,
            printed: String::new(),
            error: None,
        }
    }

    /// An entry that does not belong to its key, or whose verdict does not
    /// follow from its values, is not used.
    #[test]
    fn entries_prove_they_belong() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResultCache::new(dir.path());
        let source = SourceText::new("x\n", Path::new("k.wgsl"), 1);
        let key = |text: &'static str| RunKey {
            backend: BackendKind::Wgpu,
            spec_text: text,
            source: &source,
            variant: Variant::Solution,
            stress: None,
            timing_samples: 0,
            timeout_ms: 1,
            subgroup: None,
            traced: false,
        };
        cache.put(&key("passes"), &report([1.0, 2.0]));
        cache.put(&key("fails"), &report([1.0, 5.0]));
        let (passes, fails) = (cache.path(&key("passes")), cache.path(&key("fails")));
        // (what is done to the files, whether the passing key still hits)
        type Tamper = fn(&Path, &Path);
        let cases: [(&str, Tamper, bool); 4] = [
            ("untouched", |_, _| {}, true),
            (
                "another key's entry copied over",
                |p, f| {
                    std::fs::copy(f, p).unwrap();
                },
                false,
            ),
            (
                "a value edited",
                |p, _| {
                    let text = std::fs::read_to_string(p)
                        .unwrap()
                        .replacen("2.0", "7.0", 1);
                    std::fs::write(p, text).unwrap();
                },
                false,
            ),
            (
                "a verdict edited",
                |p, _| {
                    let text = std::fs::read_to_string(p)
                        .unwrap()
                        .replace("\"pass\"", "\"fail\"");
                    std::fs::write(p, text).unwrap();
                },
                false,
            ),
        ];
        for (name, tamper, hit) in cases {
            cache.put(&key("passes"), &report([1.0, 2.0]));
            tamper(&passes, &fails);
            assert_eq!(cache.get(&key("passes")).is_some(), hit, "{name}");
        }
        assert_eq!(
            cache.get(&key("fails")).map(|r| r.status),
            Some(Status::Fail)
        );
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
            subgroup: None,
            traced: false,
        };
        assert!(cache.get(&key(Variant::Solution, "a")).is_none());
        cache.put(&key(Variant::Solution, "a"), &report([1.0, 2.0]));
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
        cache.put(&key(Variant::Solution, "a"), &report([1.0, 5.0]));
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
                        subgroup: None,
                        traced: false,
                    };
                    let got = if i % 2 == 0 { [1.0, 2.0] } else { [1.0, 5.0] };
                    for _ in 0..20 {
                        cache.put(&key, &report(got));
                        assert!(cache.get(&key).is_some(), "never a torn entry");
                    }
                });
            }
        });
    }
}
