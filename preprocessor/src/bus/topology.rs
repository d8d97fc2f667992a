//! The links between a recorded host's GPUs, shown under a ```bus block:
//! what `nvidia-smi topo -m` printed on the host the runs were made on.

use runner::perf::record::{Recording, file_stem};
use std::path::Path;

/// The links of the host a recording's runs were made on, as
/// `nvidia-smi topo -m` printed them there: `.ci/gpu/remote multi` saves
/// them as `results/baselines/topology-<n>-<gpu>.txt` beside NCCL's times.
/// Of that GPU's files, the smallest host with as many GPUs as the runs
/// took; none where no such file is.
pub(super) fn of_host(root: &Path, recording: &Recording) -> Option<(u32, String)> {
    let name = &recording.device.name;
    let gpu = name.split_once(" × ").map_or(name.as_str(), |(_, g)| g);
    let mut one = recording.device.clone();
    one.name = gpu.to_string();
    let stem = file_stem(&one);
    let (_, gpu_stem) = stem.split_once('-')?;
    let dir = root.join("results").join("baselines");
    let host = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| {
            let rest = f.strip_prefix("topology-")?.strip_suffix(".txt")?;
            let (n, g) = rest.split_once('-')?;
            (g == gpu_stem).then_some(n.parse::<u32>().ok()?)
        })
        .filter(|&n| n >= recording.device.gpus())
        .min()?;
    let text = std::fs::read_to_string(dir.join(format!("topology-{host}-{gpu_stem}.txt"))).ok()?;
    Some((host, without_escapes(&text).trim_end().to_string()))
}

/// `text` without its terminal's escape sequences (`nvidia-smi` underlines
/// its header with them).
pub(super) fn without_escapes(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            // CSI: parameters up to a final letter.
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
