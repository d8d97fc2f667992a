//! How much memory a run may take on this machine: half of what Linux
//! reports as available, so a stress or benchmark size that cannot fit is
//! refused at its spec line instead of aborting the process mid-allocation.

/// Half of `MemAvailable` from `/proc/meminfo`, in bytes; None where the
/// kernel does not say (then no limit is applied beyond the core's own).
pub fn budget() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    available(&text).map(|bytes| bytes / 2)
}

/// `MemAvailable:   12345678 kB` as bytes.
fn available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_meminfo() {
        let table = [
            (
                "MemTotal: 100 kB\nMemAvailable:   2048 kB\n",
                Some(2048 * 1024),
            ),
            ("MemTotal: 100 kB\n", None),
            ("MemAvailable: lots\n", None),
        ];
        for (text, want) in table {
            assert_eq!(available(text), want, "{text}");
        }
    }
}
