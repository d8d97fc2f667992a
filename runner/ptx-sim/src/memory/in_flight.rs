//! The shared words of a block that asynchronous copies in flight will
//! write (see `exec::asynchronous`): set when a copy is issued, cleared when it
//! lands (a `cp.async` at its wait, a bulk copy when its mbarrier's phase
//! completes), and checked by every shared access.

/// The shared words of a block that `cp.async` copies in flight will
/// write: a bit per word for the check every shared access makes (most of
/// a pipelined kernel's accesses happen while some copy is in flight), and
/// the issuing thread and line of each, for the message.
#[derive(Debug, Default)]
pub struct InFlight {
    bits: Vec<u64>,
    /// By word: the copy in flight to it, where its bit is set.
    who: Vec<Copy>,
    count: usize,
}

/// A copy in flight: who issued it, at which `.loc` line, and whether it
/// is a bulk copy (landed by its mbarrier) or a `cp.async` (by its wait).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Copy {
    pub issuer: u32,
    pub line: u32,
    pub bulk: bool,
}

impl InFlight {
    /// Whether no word is in flight (the tests' check of the count).
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn insert(&mut self, word: usize, copy: Copy) {
        if self.who.len() <= word {
            self.who.resize(word + 1, Copy::default());
            self.bits.resize(word / 64 + 1, 0);
        }
        if self.bits[word / 64] & (1 << (word % 64)) == 0 {
            self.count += 1;
        }
        self.bits[word / 64] |= 1 << (word % 64);
        self.who[word] = copy;
    }

    /// Lands `word` where `issuer`'s copy holds it.
    pub fn land(&mut self, word: usize, issuer: u32) {
        if self.any(word..=word) && self.who[word].issuer == issuer {
            self.bits[word / 64] &= !(1 << (word % 64));
            self.count -= 1;
        }
    }

    /// Whether a copy is in flight to any of `words`: the check every
    /// shared access makes.
    #[inline]
    pub fn any(&self, words: std::ops::RangeInclusive<usize>) -> bool {
        !self.bits.is_empty()
            && words.into_iter().any(|w| {
                self.bits
                    .get(w / 64)
                    .is_some_and(|b| b & (1 << (w % 64)) != 0)
            })
    }

    /// A copy in flight to any of `words`.
    pub fn find(&self, words: std::ops::RangeInclusive<usize>) -> Option<Copy> {
        words
            .into_iter()
            .find(|&w| self.any(w..=w))
            .map(|w| self.who[w])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (case, copies issued as (first word, words, issuer), landed as
    /// (word, by), words in flight after).
    #[test]
    fn words_in_flight_table() {
        type Case = (
            &'static str,
            &'static [(usize, usize, u32)],
            &'static [(usize, u32)],
            &'static [usize],
        );
        let cases: &[Case] = &[
            ("one word, not landed", &[(5, 1, 1)], &[], &[5]),
            ("its neighbours stay free", &[(5, 1, 1)], &[], &[5]),
            ("landed by its issuer", &[(5, 1, 1)], &[(5, 1)], &[]),
            (
                "not landed by another thread",
                &[(5, 1, 1)],
                &[(5, 2)],
                &[5],
            ),
            (
                "16 bytes, far out",
                &[(200, 4, 3)],
                &[],
                &[200, 201, 202, 203],
            ),
            (
                "two copies, one lands",
                &[(0, 1, 1), (1, 1, 2)],
                &[(0, 1)],
                &[1],
            ),
        ];
        for (case, issued, landed, left) in cases {
            let mut f = InFlight::default();
            for &(first, words, issuer) in *issued {
                for w in first..first + words {
                    let copy = Copy {
                        issuer,
                        line: 9,
                        bulk: false,
                    };
                    f.insert(w, copy);
                }
            }
            for &(w, by) in *landed {
                f.land(w, by);
            }
            let now: Vec<usize> = (0..256).filter(|&w| f.any(w..=w)).collect();
            assert_eq!(now, *left, "{case}");
            assert_eq!(f.is_empty(), left.is_empty(), "{case}");
            if let Some(&w) = left.first() {
                assert!(
                    f.find(0..=255).is_some_and(|copy| copy.line == 9),
                    "{case}: {w}"
                );
            }
        }
    }
}
