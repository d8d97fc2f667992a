//! Memory by address. A kernel sees 64-bit generic addresses; the checker
//! gives each kind of memory a window of its own, so every address names
//! one region and an offset in it:
//!
//! - global buffers (and the module's `.global`/`.const` variables), each
//!   at its own 16 GiB stride from [`GLOBAL`], the kernel's pointer past a
//!   leading guard band;
//! - the block's shared memory at [`SHARED`] (a `.shared` address is the
//!   offset itself, as `cvta.to.shared` makes it);
//! - the thread's local memory at [`LOCAL`];
//! - the kernel's parameters at [`PARAM`].
//!
//! Each region keeps a race-check [`Shadow`] per 4-byte word.

use crate::hazard::Shadow;

pub const GLOBAL: u64 = 1 << 40;
/// Log2 of the stride between global regions.
pub const GLOBAL_SHIFT: u32 = 34;
pub const SHARED: u64 = 1 << 56;
pub const LOCAL: u64 = 2 << 56;
pub const PARAM: u64 = 3 << 56;
/// A window's size: addresses beyond it are no memory at all.
pub const WINDOW: u64 = 1 << 48;

/// A run of bytes the kernel can address.
#[derive(Debug, Clone)]
pub struct Region {
    pub name: String,
    pub bytes: Vec<u8>,
    /// The guard band before the data, and the data's length, in bytes.
    pub lead: usize,
    pub len: usize,
    pub element_bytes: usize,
    /// One per 4-byte word of `bytes`; empty where nothing can race (read-only data).
    pub shadow: Vec<Shadow>,
    /// Reads of bytes nobody wrote are reported (shared memory, poisoned outputs).
    pub starts_unwritten: bool,
}

impl Region {
    pub fn new(name: &str, bytes: Vec<u8>, lead: usize, len: usize, checked: bool) -> Region {
        let words = bytes.len().div_ceil(4);
        Region {
            name: name.to_string(),
            shadow: if checked {
                vec![Shadow::default(); words]
            } else {
                Vec::new()
            },
            bytes,
            lead,
            len,
            element_bytes: 4,
            starts_unwritten: false,
        }
    }
}

/// Where a generic address points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Global region `n`, at this offset from its first byte (guard band included).
    Global(usize, u64),
    /// The block's shared memory, at this offset; with a cluster rank where
    /// the address names another block of the cluster.
    Shared(u64, Option<u32>),
    Local(u64),
    Param(u64),
    Nowhere,
}

/// Bit 31 of a shared address marks a cluster-wide one (`mapa`): the
/// target block's rank in bits 24..31, the offset below.
pub const CLUSTER_BIT: u64 = 1 << 31;

/// Where `addr`, a generic address, points.
pub fn place(addr: u64) -> Place {
    let window = addr >> 56;
    let off = addr & (WINDOW - 1);
    match window {
        0 if addr >= GLOBAL => {
            let n = (addr - GLOBAL) >> GLOBAL_SHIFT;
            Place::Global(n as usize, (addr - GLOBAL) & ((1 << GLOBAL_SHIFT) - 1))
        }
        1 => shared_place(off),
        2 => Place::Local(off),
        3 => Place::Param(off),
        _ => Place::Nowhere,
    }
}

/// A `.shared` address (32 bits, maybe cluster-wide) as a place.
pub fn shared_place(off: u64) -> Place {
    if off & CLUSTER_BIT != 0 {
        Place::Shared(off & 0xFF_FFFF, Some(((off >> 24) & 0x7F) as u32))
    } else {
        Place::Shared(off, None)
    }
}

/// The generic address of byte `offset` of global region `n`.
pub fn global_address(n: usize, offset: u64) -> u64 {
    GLOBAL + ((n as u64) << GLOBAL_SHIFT) + offset
}

/// Little-endian bytes to a value.
pub fn load_le(bytes: &[u8]) -> u64 {
    let mut v = [0u8; 8];
    let n = bytes.len().min(8);
    v[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_table() {
        let cases = [
            (global_address(0, 12), Place::Global(0, 12)),
            (global_address(3, 0), Place::Global(3, 0)),
            (SHARED + 64, Place::Shared(64, None)),
            (
                SHARED + (CLUSTER_BIT | (1 << 24) | 8),
                Place::Shared(8, Some(1)),
            ),
            (LOCAL + 4, Place::Local(4)),
            (PARAM + 8, Place::Param(8)),
            (0, Place::Nowhere),
            (16, Place::Nowhere),
        ];
        for (addr, want) in cases {
            assert_eq!(place(addr), want, "{addr:#x}");
        }
    }
}
