//! An mbarrier object in shared memory: arrivals, transaction bytes and
//! phases, what its arrivals released, and the bulk copies that count their
//! bytes on it (sent when issued, counted when a thread next waits on it,
//! landed when the phase completes; see `exec::asynchronous`).

use crate::hazard::Knowledge;

/// One mbarrier object.
#[derive(Debug, Clone, Default)]
pub struct Mbarrier {
    pub expected: u32,
    pub pending: u32,
    pub tx: i64,
    /// Completed phases.
    pub phase: u64,
    pub gathering: Knowledge,
    pub completed: Knowledge,
    /// Bulk copies counted on this phase, to land when it completes.
    pub landing: Vec<BulkLanding>,
    /// Bulk copies issued but not yet counted (see `exec::asynchronous::bulk`).
    pub inbound: Vec<Inbound>,
}

/// A bulk copy on its way: its bytes, what its issuing thread released
/// with it, and what it will write.
#[derive(Debug, Clone, Default)]
pub struct Inbound {
    pub bytes: u64,
    pub release: Knowledge,
    pub landing: BulkLanding,
}

impl Mbarrier {
    /// Counts the bulk copies on their way: each releases what its issuer
    /// knew, counts its bytes and waits to land with the phase. Returns
    /// whether there were any.
    pub fn count_inbound(&mut self) -> bool {
        let inbound = std::mem::take(&mut self.inbound);
        let any = !inbound.is_empty();
        for copy in inbound {
            self.gathering.merge(&copy.release);
            self.tx -= copy.bytes as i64;
            self.landing.push(copy.landing);
        }
        any
    }

    /// Completes the phase where every arrival and every byte is in;
    /// returns the bulk copies that land with it (see [`BlockMemory::land`]).
    #[must_use]
    pub fn complete_if_due(&mut self) -> Vec<BulkLanding> {
        if self.pending == 0 && self.tx <= 0 {
            self.phase += 1;
            self.pending = self.expected;
            self.tx = 0;
            let g = std::mem::take(&mut self.gathering);
            self.completed.merge(&g);
            return std::mem::take(&mut self.landing);
        }
        Vec::new()
    }
}

/// A bulk copy's bytes for one block's shared memory, read from global
/// memory when the copy was issued and written when its mbarrier's phase
/// completes: (shared offset, bytes as a little-endian word, width) each.
#[derive(Debug, Clone, Default)]
pub struct BulkLanding {
    pub issuer: u32,
    pub pieces: Vec<(u32, u64, u8)>,
}
