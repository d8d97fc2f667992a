//! A check cut to what a page shows: the head and tail of a long output, the
//! first entries of each index list, and exact counts of the rest.
//!
//! Recordings keep their reports this way (a 16,384-element output would
//! make each file megabytes), and so does the book's result cache (a warm
//! build would otherwise read megabytes of values it never shows). An
//! abridged check reads like the whole: the same problems, counts and shown
//! values.

use crate::judge::format::{HEAD, LONG, TAIL};
use crate::judge::verify::{Abridged, BufferCheck, close_within, compare};

/// Index lists keep this many entries when a report is abridged; the
/// sentences a learner reads name the first eight.
pub const LISTED: usize = 64;

impl BufferCheck {
    /// Keeps the head and tail of a long buffer's values and the first
    /// `listed` entries of each index list, with exact counts of the rest: a
    /// recording of a 16,384-element output then shows what a local run shows
    /// (head, tail, total, how many are wrong) in a few hundred bytes.
    pub fn abridge(&mut self, listed: usize) {
        let listed = listed.max(1);
        let long = self.got.len() > LONG || self.expected.len() > LONG;
        let lists = [
            self.wrong.len(),
            self.unwritten.len(),
            self.from_poison.as_ref().map_or(0, Vec::len),
            self.out_of_bounds.len(),
        ];
        if self.abridged.is_some() || (!long && lists.iter().all(|&n| n <= listed)) {
            return;
        }
        let first_wrong = self.wrong.first().map(|&i| {
            let got = self.got.get(i).copied().flatten();
            (got, self.expected.get(i).copied().unwrap_or(f64::NAN))
        });
        let within_tolerance = Some(self.within_tolerance_count());
        let left_out = if long {
            let left_out = self.got.len().saturating_sub(HEAD + TAIL);
            head_and_tail(&mut self.got);
            head_and_tail(&mut self.expected);
            left_out
        } else {
            0
        };
        let [wrong, unwritten, from_poison, out_of_bounds] = lists;
        self.wrong.truncate(listed);
        self.unwritten.truncate(listed);
        if let Some(list) = &mut self.from_poison {
            list.truncate(listed);
        }
        self.out_of_bounds.truncate(listed);
        self.abridged = Some(Abridged {
            left_out,
            wrong,
            unwritten,
            from_poison,
            out_of_bounds,
            first_wrong,
            within_tolerance,
        });
    }

    /// Elements never written, counted in full even where the list was abridged.
    pub fn unwritten_count(&self) -> usize {
        self.abridged
            .as_ref()
            .map_or(self.unwritten.len(), |a| a.unwritten)
    }

    pub(crate) fn wrong_count(&self) -> usize {
        self.abridged.as_ref().map_or(self.wrong.len(), |a| a.wrong)
    }

    pub(crate) fn poisoned_write_count(&self) -> usize {
        self.abridged.as_ref().map_or_else(
            || self.from_poison.as_ref().map_or(0, Vec::len),
            |a| a.from_poison,
        )
    }

    pub(crate) fn out_of_bounds_count(&self) -> usize {
        self.abridged
            .as_ref()
            .map_or(self.out_of_bounds.len(), |a| a.out_of_bounds)
    }

    /// Elements that differ from the expected value in the last digits but
    /// within the tolerance (the output type's): counted over the whole
    /// buffer where it was kept, else over the values at hand.
    pub fn within_tolerance_count(&self) -> usize {
        if let Some(n) = self.abridged.as_ref().and_then(|a| a.within_tolerance) {
            return n;
        }
        let tolerance = self.tolerance();
        self.got
            .iter()
            .zip(&self.expected)
            .filter(|(g, e)| g.is_some_and(|g| g != **e && close_within(g, **e, tolerance)))
            .count()
    }

    /// Whether an abridged check agrees with itself: each list is sorted,
    /// no longer than its count, and cut only where the count says so; and
    /// the values kept (head and tail) are wrong or unwritten exactly where
    /// the lists say, as far as the lists reach. A stored check that fails
    /// this was edited, or belongs to other values.
    pub(crate) fn abridged_holds_up(&self) -> bool {
        let Some(a) = &self.abridged else {
            return false;
        };
        if !self.judged || self.got.len() != self.expected.len() {
            return !self.judged && self.got.is_empty() && self.expected.is_empty();
        }
        let total = self.got.len() + a.left_out;
        let lists: [(&[usize], usize); 3] = [
            (&self.wrong, a.wrong),
            (&self.unwritten, a.unwritten),
            (self.from_poison.as_deref().unwrap_or(&[]), a.from_poison),
        ];
        let counted = |list: &[usize], count: usize| {
            list.len() <= count
                && (list.len() == count || !list.is_empty())
                && list.windows(2).all(|w| w[0] < w[1])
                && list.last().is_none_or(|&i| i < total)
        };
        if !lists.iter().all(|&(list, count)| counted(list, count))
            || self.out_of_bounds.len() > a.out_of_bounds
        {
            return false;
        }
        // The flat index of each value kept: the head, then the tail.
        let flat = |k: usize| if k < HEAD { k } else { k + a.left_out };
        let (wrong, poisoned) = compare(&self.got, &self.expected, self.tolerance());
        let shown = |seen: Vec<usize>| seen.into_iter().map(flat).collect::<Vec<usize>>();
        // A list cut short says nothing past its last entry.
        let reach = |list: &[usize], count: usize| {
            if list.len() < count {
                list.last().copied().unwrap_or(0)
            } else {
                usize::MAX
            }
        };
        let is_shown = |i: usize| i < HEAD || (i >= HEAD + a.left_out && i < total);
        let agrees = |seen: Vec<usize>, listed: &[usize], reach: usize| {
            let seen: Vec<usize> = seen.into_iter().filter(|&i| i <= reach).collect();
            let listed: Vec<usize> = listed
                .iter()
                .copied()
                .filter(|&i| i <= reach && is_shown(i))
                .collect();
            seen == listed
        };
        // Unwritten and poison-made elements both hold the poison: the
        // values alone cannot tell them apart, so they are checked together.
        let from_poison = self.from_poison.as_deref().unwrap_or(&[]);
        let mut poisoned_listed = self.unwritten.clone();
        poisoned_listed.extend(from_poison);
        poisoned_listed.sort_unstable();
        let poisoned_reach =
            reach(&self.unwritten, a.unwritten).min(reach(from_poison, a.from_poison));
        agrees(shown(wrong), &self.wrong, reach(&self.wrong, a.wrong))
            && agrees(shown(poisoned), &poisoned_listed, poisoned_reach)
    }
}

/// Keeps the first [`HEAD`] and the last [`TAIL`] of `values`.
fn head_and_tail<T: Copy>(values: &mut Vec<T>) {
    if values.len() > HEAD + TAIL {
        values.drain(HEAD..values.len() - TAIL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::data::Dtype;

    /// A judged check of `n` values, 1.0 expected everywhere, with the
    /// given elements left unwritten or wrong.
    fn check(n: usize, unwritten: &[usize], wrong: &[usize]) -> BufferCheck {
        let expected = vec![1.0; n];
        let mut got: Vec<Option<f64>> = vec![Some(1.0); n];
        for &i in unwritten {
            got[i] = None;
        }
        for &i in wrong {
            got[i] = Some(2.0);
        }
        let (wrong, poisoned) = compare(&got, &expected, Dtype::F32.tolerance());
        BufferCheck {
            name: "out".into(),
            dtype: Dtype::F32,
            tolerance: None,
            shape: vec![n],
            got,
            expected,
            wrong,
            unwritten: poisoned,
            from_poison: None,
            out_of_bounds: vec![],
            judged: true,
            abridged: None,
        }
    }

    #[test]
    fn abridged_checks_read_like_the_whole() {
        let cases: &[(&str, usize, &[usize], &[usize])] = &[
            ("long, passing", 16_384, &[], &[]),
            (
                "long, all unwritten",
                200,
                &(0..200).collect::<Vec<_>>(),
                &[],
            ),
            ("long, wrong in the middle only", 1_000, &[], &[500, 501]),
            ("long, wrong in head and tail", 1_000, &[3], &[0, 999]),
            ("short, many wrong", 64, &[], &(0..64).collect::<Vec<_>>()),
        ];
        for &(name, n, unwritten, wrong) in cases {
            let whole = check(n, unwritten, wrong);
            let mut cut = whole.clone();
            cut.abridge(8);
            assert!(whole.holds_up(), "{name}: the whole holds up");
            assert!(cut.holds_up(), "{name}: the abridged check holds up");
            assert_eq!(cut.problems(), whole.problems(), "{name}");
            assert_eq!(cut.shown_values(), whole.shown_values(), "{name}");
            assert_eq!(cut.passed(), whole.passed(), "{name}");
        }
    }

    #[test]
    fn an_edited_abridged_check_does_not_hold_up() {
        type Edit = fn(&mut BufferCheck);
        let edits: &[(&str, Edit)] = &[
            ("a wrong element's list emptied", |c| c.wrong.clear()),
            ("the count of wrong elements zeroed", |c| {
                c.abridged.as_mut().unwrap().wrong = 0
            }),
            ("a shown value made right", |c| c.got[0] = Some(1.0)),
            ("a shown value made wrong", |c| c.got[5] = Some(7.0)),
            ("a tail value unwritten", |c| {
                *c.got.last_mut().unwrap() = None
            }),
            ("a list out of order", |c| c.wrong.reverse()),
            ("an index past the end", |c| c.wrong.push(5_000)),
        ];
        for (what, edit) in edits {
            let mut cut = check(1_000, &[], &[0, 500, 999]);
            cut.abridge(8);
            assert!(cut.holds_up());
            edit(&mut cut);
            assert!(!cut.holds_up(), "{what} still holds up");
        }
    }

    #[test]
    fn counts_within_the_tolerance_survive_abridging() {
        let mut whole = check(1_000, &[], &[]);
        whole.got[500] = Some(1.0 + 1e-7);
        whole.got[1] = Some(1.0 + 1e-7);
        let mut cut = whole.clone();
        cut.abridge(LISTED);
        assert_eq!(whole.within_tolerance_count(), 2);
        assert_eq!(cut.within_tolerance_count(), 2);
    }

    /// Recordings of f32 outputs read as they did before checks kept their
    /// type, and load as f32; other types are named, and read back.
    #[test]
    fn the_output_type_is_recorded_only_when_not_f32() {
        let f32_check = check(4, &[1], &[2]);
        let json = serde_json::to_string(&f32_check).unwrap();
        assert!(!json.contains("dtype"), "{json}");
        let without: BufferCheck = serde_json::from_str(&json).unwrap();
        assert_eq!((without.dtype, &without), (Dtype::F32, &f32_check));
        let mut bf16_check = f32_check.clone();
        bf16_check.dtype = Dtype::Bf16;
        let json = serde_json::to_string(&bf16_check).unwrap();
        assert!(json.contains(r#""dtype":"bf16""#), "{json}");
        let back: BufferCheck = serde_json::from_str(&json).unwrap();
        assert_eq!(back, bf16_check);
    }
}
