//! The two proxies of shared memory. Threads' loads and stores (and
//! `cp.async`'s copies) go through the *generic* proxy; wgmma's operand
//! reads go through the *async* proxy, as the TMA's copies do. The PTX ISA
//! orders a generic write before an async read of the same memory only
//! through a proxy fence, `fence.proxy.async`, by the writing thread between
//! the write and whatever hands the memory over. So a block remembers, for
//! each shared word, the last generic write and how many proxy fences its
//! thread had made then; a wgmma that reads a word whose writer has made no
//! proxy fence since reads what shared memory held before, as far as the
//! ISA promises. Words the TMA wrote (the async proxy itself) need none.
//!
//! Kept only for kernels that issue `wgmma` (the one async reader the
//! checker runs): the record costs 12 bytes a word.

use std::collections::HashMap;

/// A generic write not yet fenced for the async proxy: (thread index + 1,
/// the thread's proxy fences at the write, `.loc` line); thread 0 is none.
type Write = (u32, u32, u32);

/// One block's generic writes to shared memory, by word, and its threads'
/// proxy fences.
#[derive(Debug, Default)]
pub struct ProxyWrites {
    words: Vec<Write>,
    fences: HashMap<u32, u32>,
}

impl ProxyWrites {
    /// A generic write of `words` by `thread`, which had made `fences` proxy
    /// fences then, at `line`.
    #[inline]
    pub fn write(
        &mut self,
        words: std::ops::RangeInclusive<usize>,
        thread: u32,
        fences: u32,
        line: usize,
    ) {
        if self.words.len() <= *words.end() {
            self.words.resize(words.end() + 1, (0, 0, 0));
        }
        for w in words {
            self.words[w] = (thread + 1, fences, line as u32);
        }
    }

    /// The async proxy wrote `words` (a bulk copy landed): no generic write
    /// is pending there.
    pub fn async_write(&mut self, words: std::ops::RangeInclusive<usize>) {
        for w in words {
            if let Some(x) = self.words.get_mut(w) {
                *x = (0, 0, 0);
            }
        }
    }

    /// `thread` made a proxy fence.
    pub fn fence(&mut self, thread: u32) {
        *self.fences.entry(thread).or_insert(0) += 1;
    }

    /// The generic write to `word` that no proxy fence by its thread has
    /// followed yet: (thread index, `.loc` line).
    pub fn unfenced(&self, word: usize) -> Option<(u32, usize)> {
        let &(writer, fences, line) = self.words.get(word)?;
        let thread = writer.checked_sub(1)?;
        let now = self.fences.get(&thread).copied().unwrap_or(0);
        (now <= fences).then_some((thread, line as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (case, events in order, whether word 0 is unfenced after them)
    #[test]
    fn proxy_fence_table() {
        #[derive(Clone, Copy)]
        enum E {
            /// A generic write of word 0 by a thread, with its fences so far.
            Write(u32, u32),
            Fence(u32),
            Async,
        }
        use E::*;
        let cases: &[(&str, &[E], bool)] = &[
            ("never written", &[], false),
            ("written, no fence", &[Write(3, 0)], true),
            (
                "written, then its writer fences",
                &[Write(3, 0), Fence(3)],
                false,
            ),
            (
                "another thread's fence does not count",
                &[Write(3, 0), Fence(4)],
                true,
            ),
            (
                "fenced before the write only",
                &[Fence(3), Write(3, 1)],
                true,
            ),
            ("the TMA wrote it last", &[Write(3, 0), Async], false),
            (
                "written again after its fence",
                &[Write(3, 0), Fence(3), Write(3, 1)],
                true,
            ),
        ];
        for (name, events, unfenced) in cases {
            let mut p = ProxyWrites::default();
            for e in *events {
                match *e {
                    Write(t, f) => p.write(0..=0, t, f, 7),
                    Fence(t) => p.fence(t),
                    Async => p.async_write(0..=0),
                }
            }
            assert_eq!(p.unfenced(0).is_some(), *unfenced, "{name}");
        }
    }
}
