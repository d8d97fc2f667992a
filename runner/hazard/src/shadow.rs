//! The race rule's memory: for each element (a word, in PTX), the last
//! write and the reads since it that a later write could still race with.
//!
//! Races are found from the happens-before order, not from the schedule
//! that happened to run: two accesses to one element conflict when they
//! come from different threads and at least one writes, and the conflict
//! is a race unless the language's order puts the earlier one before the
//! later (or excuses the pair, as PTX excuses two morally strong accesses).
//! What orders accesses differs between the languages, so the shadow is
//! generic over an [`Order`], the access being made with what its thread
//! knows. WGSL's whole order is [`Epochs`]: the same invocation, or a
//! barrier of its workgroup between the two; PTX's adds warps, scopes,
//! releases and acquires, and ranks.

/// The access being made now, with what its thread knows: what the shadow
/// asks of a language.
pub trait Order {
    /// An access as the shadow remembers it.
    type Access: Copy;

    /// The access itself.
    fn access(&self) -> Self::Access;

    /// Whether `earlier`, made before in the run, cannot race with this
    /// access: it is ordered before it, or the language excuses the pair.
    fn settles(&self, earlier: &Self::Access) -> bool;

    /// Whether `read`, an earlier read kept for later writers, is ordered
    /// before this read: a later writer that comes after this one comes
    /// after it too, so it need not be kept.
    fn covers(&self, read: &Self::Access) -> bool;

    /// Whether `read` was made by this access's thread.
    fn same_thread(&self, read: &Self::Access) -> bool;

    /// Whether this read, by the thread that made `own`, takes its place
    /// (PTX: it covers the same bytes; a writer must come after the later
    /// read too). Where it does not, the earlier read is kept.
    fn replaces(&self, own: &Self::Access) -> bool;

    /// Which bytes of the element it touches (bit i: byte i).
    fn bytes(&self) -> u8;
}

/// Reads kept per element: past a few distinct readers, a later writer
/// conflicts with one of them anyway, so more would only cost memory.
pub const READS_KEPT: usize = 4;

/// A conflicting earlier access: the access and whether it wrote.
pub type Conflict<A> = (A, bool);

/// One element's memory since the launch began.
#[derive(Debug, Clone)]
pub struct Shadow<A> {
    write: Option<A>,
    reads: Vec<A>,
    /// Which bytes were ever written (this launch or an earlier one).
    written: u8,
}

impl<A> Default for Shadow<A> {
    fn default() -> Self {
        Shadow {
            write: None,
            reads: Vec::new(),
            written: 0,
        }
    }
}

impl<A: Copy> Shadow<A> {
    /// Records a read; returns the unordered write it races with, if any.
    #[inline]
    pub fn read<O: Order<Access = A>>(&mut self, now: &O) -> Option<Conflict<A>> {
        let conflict = self.write.filter(|w| !now.settles(w)).map(|w| (w, true));
        self.reads.retain(|r| !now.covers(r));
        let kept = self.reads.len();
        match self.reads.iter_mut().find(|r| now.same_thread(r)) {
            Some(r) if now.replaces(r) => *r = now.access(),
            Some(_) => {}
            None if kept < READS_KEPT => self.reads.push(now.access()),
            None => {}
        }
        conflict
    }

    /// Records a write; returns an unordered earlier write or read it races with, if any.
    #[inline]
    pub fn write<O: Order<Access = A>>(&mut self, now: &O) -> Option<Conflict<A>> {
        let conflict = self
            .write
            .filter(|w| !now.settles(w))
            .map(|w| (w, true))
            .or_else(|| {
                self.reads
                    .iter()
                    .find(|r| !now.settles(r))
                    .map(|r| (*r, false))
            });
        // Whatever races with the reads dropped here also races with this write.
        self.write = Some(now.access());
        self.reads.clear();
        self.written |= now.bytes();
        conflict
    }

    /// The accesses it remembers: the last write and the reads since.
    pub fn accesses(&self) -> impl Iterator<Item = &A> {
        self.write.iter().chain(&self.reads)
    }

    /// Which bytes were ever written.
    pub fn written(&self) -> u8 {
        self.written
    }

    /// Marks bytes written without an access to race with (an mbarrier
    /// object's initialization).
    pub fn mark_written(&mut self, bytes: u8) {
        self.written |= bytes;
    }

    /// A new launch is ordered after everything before it: nothing left to
    /// race with, but what was written stays written.
    pub fn new_launch(&mut self) {
        self.write = None;
        self.reads.clear();
    }
}

/// An access in WGSL's order: by an invocation of a workgroup, after its
/// workgroup had passed `epoch` barriers; `at` is where in the kernel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Epochs<P> {
    /// The invocation's index within the dispatch (unique across workgroups).
    pub thread: u32,
    pub block: u32,
    pub epoch: u32,
    pub at: P,
}

impl<P: Copy> Epochs<P> {
    /// Whether `self`, which happened earlier in the run, is ordered before `later`.
    pub fn ordered_before(&self, later: &Epochs<P>) -> bool {
        self.thread == later.thread || (self.block == later.block && self.epoch < later.epoch)
    }
}

/// WGSL's order: nothing is excused (its atomics are not recorded here),
/// and an invocation's first read of an element in an epoch stands for its
/// later ones.
impl<P: Copy> Order for Epochs<P> {
    type Access = Epochs<P>;

    fn access(&self) -> Epochs<P> {
        *self
    }

    fn settles(&self, earlier: &Epochs<P>) -> bool {
        earlier.ordered_before(self)
    }

    fn covers(&self, read: &Epochs<P>) -> bool {
        read.block == self.block && read.epoch < self.epoch
    }

    fn same_thread(&self, read: &Epochs<P>) -> bool {
        read.thread == self.thread
    }

    fn replaces(&self, _own: &Epochs<P>) -> bool {
        false
    }

    fn bytes(&self) -> u8 {
        0xF
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy)]
    enum Op {
        /// A read or a write by (thread, block, epoch).
        R(u32, u32, u32),
        W(u32, u32, u32),
    }

    /// (case, accesses in the order run, whether the last one races), in
    /// WGSL's order.
    #[test]
    fn race_rule_table() {
        use Op::*;
        let cases: &[(&str, &[Op], bool)] = &[
            (
                "own element, read after write",
                &[W(0, 0, 0), R(0, 0, 0)],
                false,
            ),
            (
                "neighbour reads, no barrier",
                &[W(1, 0, 0), R(0, 0, 0)],
                true,
            ),
            (
                "neighbour reads after a barrier",
                &[W(1, 0, 0), R(0, 0, 1)],
                false,
            ),
            (
                "write after neighbour's read, same epoch",
                &[R(0, 0, 0), W(1, 0, 0)],
                true,
            ),
            (
                "write after neighbour's read, barrier between",
                &[R(0, 0, 0), W(1, 0, 1)],
                false,
            ),
            ("two writers, same epoch", &[W(0, 0, 0), W(1, 0, 0)], true),
            (
                "reads never race",
                &[R(0, 0, 0), R(1, 0, 0), R(2, 0, 0)],
                false,
            ),
            (
                "other workgroup, later epoch",
                &[W(0, 0, 0), R(8, 1, 5)],
                true,
            ),
            (
                "many readers, then one of them writes",
                &[R(0, 0, 0), R(1, 0, 0), R(2, 0, 0), W(0, 0, 0)],
                true,
            ),
            (
                "readers before a barrier, writer after",
                &[R(0, 0, 0), R(1, 0, 0), W(3, 0, 1)],
                false,
            ),
            (
                "reader in an old epoch is dropped, a new one is not",
                &[R(1, 0, 0), R(2, 0, 1), W(3, 0, 1)],
                true,
            ),
            (
                "more readers than are kept, then a writer",
                &[
                    R(0, 0, 0),
                    R(1, 0, 0),
                    R(2, 0, 0),
                    R(3, 0, 0),
                    R(4, 0, 0),
                    W(0, 0, 0),
                ],
                true,
            ),
            (
                "a reader's second read in a later epoch, writer after it",
                &[R(0, 0, 0), R(0, 0, 1), W(1, 0, 1)],
                true,
            ),
        ];
        for (name, ops, races) in cases {
            let mut shadow = Shadow::default();
            let mut last = None;
            for op in *ops {
                let (t, b, e, write) = match *op {
                    R(t, b, e) => (t, b, e, false),
                    W(t, b, e) => (t, b, e, true),
                };
                let now = Epochs {
                    thread: t,
                    block: b,
                    epoch: e,
                    at: 0u32,
                };
                last = if write {
                    shadow.write(&now)
                } else {
                    shadow.read(&now)
                };
            }
            assert_eq!(last.is_some(), *races, "{name}");
        }
    }

    /// What was written stays written across launches; races do not carry over.
    #[test]
    fn a_new_launch_keeps_only_what_was_written() {
        let at = |thread| Epochs {
            thread,
            block: 0,
            epoch: 0,
            at: (),
        };
        let mut shadow = Shadow::default();
        assert_eq!(shadow.written(), 0);
        shadow.write(&at(0));
        shadow.new_launch();
        assert_eq!(shadow.written(), 0xF);
        assert!(shadow.read(&at(1)).is_none());
        let mut fresh: Shadow<Epochs<()>> = Shadow::default();
        fresh.mark_written(0x3);
        assert_eq!(fresh.written(), 0x3);
    }
}
