//! Judging a run: outputs against expected values, element by element.
//!
//! Outputs start poisoned, so an element the kernel never wrote is reported
//! as unwritten rather than compared; a write into a buffer's guard band is
//! reported as out of bounds, by buffer and index.

use crate::backend_contract::outcome::OutputData;
use crate::judge::format::{format_head_tail, format_value, format_values_short};
use crate::spec::data::Dtype;
use crate::spec::model::{Buffer, Spec};
use serde::{Deserialize, Serialize};

/// f32 outputs are compared with this absolute-plus-relative tolerance;
/// each element type has its own ([`Dtype::tolerance`]), used by every
/// judging path through the output's [`BufferCheck::dtype`].
pub const TOLERANCE: f64 = Dtype::F32.tolerance();

/// One output buffer, checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BufferCheck {
    pub name: String,
    /// The output's element type, which sets the tolerance its values are
    /// judged with. Left out for f32, so recordings of f32 outputs read as
    /// they did before it was kept, and those recordings load as f32.
    #[serde(default, skip_serializing_if = "is_f32")]
    pub dtype: Dtype,
    /// The output's own tolerance, where its spec gives one (see
    /// [`Buffer::tolerance`]); its type's otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    pub shape: Vec<usize>,
    pub got: Vec<Option<f64>>,
    pub expected: Vec<f64>,
    /// Written, but with the wrong value.
    pub wrong: Vec<usize>,
    /// Never written (still poisoned).
    pub unwritten: Vec<usize>,
    /// Where the backend saw every store (the CPU checker): elements that
    /// were written, but with a value computed from the poison, so they
    /// still hold it. None where it cannot tell them from `unwritten`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_poison: Option<Vec<usize>>,
    /// Written outside the buffer: past the end, or before the start (negative).
    pub out_of_bounds: Vec<i64>,
    /// False for an input or scratch buffer, whose guard bands alone are checked.
    #[serde(default = "yes")]
    pub judged: bool,
    /// Set when the lists above keep only part of the buffer (a recording):
    /// see [`BufferCheck::abridge`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abridged: Option<Abridged>,
}

/// What an abridged check left out, so that it still reads like the whole:
/// `got` and `expected` keep their head and tail, the index lists their
/// first entries, and this keeps the exact counts (see `judge::abridge`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Abridged {
    /// Values left out between the head and the tail.
    pub left_out: usize,
    pub wrong: usize,
    pub unwritten: usize,
    pub from_poison: usize,
    pub out_of_bounds: usize,
    /// The first wrong element's value and expected value, wherever it lies.
    pub first_wrong: Option<(Option<f64>, f64)>,
    /// Elements that differ from the expected value within the tolerance,
    /// over the whole buffer. Recordings made before it was kept lack it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_tolerance: Option<usize>,
}

fn yes() -> bool {
    true
}

fn is_f32(dtype: &Dtype) -> bool {
    *dtype == Dtype::F32
}

impl BufferCheck {
    pub fn passed(&self) -> bool {
        self.wrong.is_empty()
            && self.unwritten.is_empty()
            && self.out_of_bounds.is_empty()
            && self.from_poison.as_ref().is_none_or(Vec::is_empty)
    }

    /// Sentences a learner can act on, empty when the buffer passed.
    pub fn problems(&self) -> Vec<String> {
        [
            self.unwritten_problem(),
            self.from_poison_problem(),
            self.wrong_problem(),
            self.out_of_bounds_problem(),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// Judges the wrong elements again with [`close_at_scale`], the scale
    /// being the largest expected value: how a benchmark on full-mantissa
    /// inputs is judged. Nothing changes in a check kept abridged.
    pub fn rejudge_at_scale(&mut self) {
        if self.abridged.is_some() {
            return;
        }
        let scale = largest(self.expected.iter().copied());
        let tolerance = self.tolerance();
        let (got, expected) = (&self.got, &self.expected);
        self.wrong.retain(
            |&i| match (got.get(i).copied().flatten(), expected.get(i)) {
                (Some(got), Some(&want)) => !close_at_scale(got, want, tolerance, scale),
                _ => true,
            },
        );
    }

    pub(crate) fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// The values as they are shown: `[0.0, 1.0, …, 99.0] (100 values)` for a
    /// long buffer, whole or abridged alike.
    pub fn shown_values(&self) -> (String, String) {
        let expected: Vec<Option<f64>> = self.expected.iter().copied().map(Some).collect();
        match &self.abridged {
            Some(a) if a.left_out > 0 => (
                format_head_tail(&self.got, a.left_out),
                format_head_tail(&expected, a.left_out),
            ),
            _ => (
                format_values_short(&self.got),
                format_values_short(&expected),
            ),
        }
    }

    /// Elements never written, and the usual reasons.
    pub fn unwritten_problem(&self) -> Option<String> {
        if self.unwritten.is_empty() {
            return None;
        }
        if self.unwritten_count() == self.len() {
            // An untouched skeleton, most often: one short line, not the reasons.
            return Some(format!(
                "Nothing was written to `{}` (none of its {} elements): the kernel does not \
                 store to it yet, or a guard stops every thread.",
                self.name,
                self.len()
            ));
        }
        let head = format!(
            "{} of {} elements of `{}` were never written: {}.",
            self.unwritten_count(),
            self.len(),
            self.name,
            self.indices(&self.unwritten, self.unwritten_count())
        );
        let why = if self.from_poison.is_some() {
            // The checker saw every store: nothing was stored to these.
            " No thread stored to them: is a guard too strict, or the grid or a tile loop too \
             small to cover the data?"
        } else {
            " They still hold the poison they started with: either no thread stored to them \
             (is a guard too strict, or the grid or a tile loop too small to cover the data?), \
             or what was stored was computed from the poison (`out[i] += …` reads out[i] \
             before anything set it; a read past the end of an input reads a guard band, \
             which is poison too)"
        };
        Some(format!("{head}{why}"))
    }

    /// Elements written with a value made from the poison (known to the checker only).
    pub fn from_poison_problem(&self) -> Option<String> {
        let elements = self.from_poison.as_ref().filter(|e| !e.is_empty())?;
        Some(format!(
            "{} of {} elements of `{}` were written, but with a value computed from the poison \
             they started with, so they still hold it: {}. Something read an element before \
             anything set it (`out[i] += …` reads out[i] first; outputs start as NaN, and NaN \
             plus anything is NaN), or read past the end of an input (guard bands hold poison too)",
            self.poisoned_write_count(),
            self.len(),
            self.name,
            self.indices(elements, self.poisoned_write_count())
        ))
    }

    /// Elements written with the wrong value, the first one spelled out.
    pub fn wrong_problem(&self) -> Option<String> {
        let &first = self.wrong.first()?;
        let (got, want) = match &self.abridged {
            Some(a) => a.first_wrong?,
            None => (*self.got.get(first)?, *self.expected.get(first)?),
        };
        let got = got.unwrap_or_default();
        // GPUs replace a NaN's payload with their own, so a value computed from
        // the poison arrives as a plain NaN: say where NaNs come from here.
        let why = if got.is_nan() {
            ". A NaN is computed from a NaN: an element never written (outputs start as NaN; \
             `out[i] += …` reads out[i] before anything set it), a read past the end of an \
             input (guard bands hold NaN), or in CUDA a variable read before it is set (the \
             CPU checker starts registers as NaN, where a GPU's hold whatever was there)"
        } else {
            ""
        };
        Some(format!(
            "{} of {} elements of `{}` are wrong: {} (first: {} is {}, expected {}){why}",
            self.wrong_count(),
            self.len(),
            self.name,
            self.indices(&self.wrong, self.wrong_count()),
            self.index(first),
            format_value(got),
            format_value(want)
        ))
    }

    /// Writes into the guard bands around the buffer.
    pub fn out_of_bounds_problem(&self) -> Option<String> {
        (!self.out_of_bounds.is_empty()).then(|| {
            format!(
                "out-of-bounds write: `{}` has {} elements, but something wrote index {}",
                self.name,
                self.len(),
                list(&self.out_of_bounds, self.out_of_bounds_count(), |i| {
                    i.to_string()
                })
            )
        })
    }

    /// The coordinates of a flat index: `[i]` for vectors, `[row, col]` for matrices.
    pub fn coordinates(&self, flat: usize) -> Vec<usize> {
        let mut coords = Vec::new();
        let mut rest = flat;
        for &dim in self.shape.iter().rev() {
            coords.push(rest % dim.max(1));
            rest /= dim.max(1);
        }
        coords.reverse();
        coords
    }

    /// `[i]` for vectors, `[row, col]` for matrices.
    pub fn index(&self, flat: usize) -> String {
        let coords: Vec<String> = self
            .coordinates(flat)
            .iter()
            .map(usize::to_string)
            .collect();
        format!("{}[{}]", self.name, coords.join(", "))
    }

    /// The first few of `flat`, which stands for `count` elements in all.
    fn indices(&self, flat: &[usize], count: usize) -> String {
        list(flat, count, |i| self.index(i))
    }
}

/// The first few of `items`, which stand for `count` in all.
fn list<T: Copy>(items: &[T], count: usize, show: impl Fn(T) -> String) -> String {
    const SHOWN: usize = 8;
    let mut text: Vec<String> = items.iter().take(SHOWN).map(|&i| show(i)).collect();
    let count = count.max(items.len());
    if count > text.len() {
        text.push(format!("… {} more", count - text.len()));
    }
    text.join(", ")
}

/// Checks every output of `spec` against what the run produced, and the
/// guard bands of every other buffer the backend reported on.
pub fn check(spec: &Spec, outputs: &[OutputData]) -> Vec<BufferCheck> {
    spec.outputs()
        .map(|buffer| {
            let mut check = match outputs.iter().find(|o| o.name == buffer.name) {
                Some(data) => check_buffer(buffer, data),
                None => check_buffer(
                    buffer,
                    &OutputData {
                        name: buffer.name.clone(),
                        values: vec![None; buffer.len()],
                        out_of_bounds: vec![],
                        poison_written: None,
                    },
                ),
            };
            // A hazards-only spec compares its outputs with nothing: only
            // writes past their ends are judged.
            check.judged = !spec.hazards_only;
            check
        })
        .chain(strays(spec, outputs))
        .collect()
}

/// Inputs and scratch buffers that something wrote past: their guard bands
/// are all that is checked of them.
fn strays<'a>(spec: &'a Spec, outputs: &'a [OutputData]) -> impl Iterator<Item = BufferCheck> + 'a {
    spec.buffers()
        .filter(|b| !b.is_output())
        .filter_map(|buffer| {
            let data = outputs.iter().find(|o| o.name == buffer.name)?;
            (!data.out_of_bounds.is_empty()).then(|| BufferCheck {
                name: buffer.name.clone(),
                dtype: buffer.dtype,
                tolerance: None,
                shape: buffer.shape.clone(),
                got: vec![],
                expected: vec![],
                wrong: vec![],
                unwritten: vec![],
                from_poison: None,
                out_of_bounds: data.out_of_bounds.clone(),
                judged: false,
                abridged: None,
            })
        })
}

fn check_buffer(buffer: &Buffer, data: &OutputData) -> BufferCheck {
    let expected = buffer.expect.clone().unwrap_or_default();
    let (wrong, poisoned) = compare(&data.values, &expected, buffer.tolerance());
    let (unwritten, from_poison) = split_poisoned(poisoned, data.poison_written.as_deref());
    BufferCheck {
        name: buffer.name.clone(),
        dtype: buffer.dtype,
        tolerance: buffer.tolerance,
        shape: buffer.shape.clone(),
        got: data.values.clone(),
        expected,
        wrong,
        unwritten,
        from_poison,
        out_of_bounds: data.out_of_bounds.clone(),
        judged: true,
        abridged: None,
    }
}

/// The poisoned elements, as never written and (where the backend knows
/// which were stored to) written from the poison.
fn split_poisoned(
    poisoned: Vec<usize>,
    written: Option<&[usize]>,
) -> (Vec<usize>, Option<Vec<usize>>) {
    match written {
        None => (poisoned, None),
        Some(written) => {
            let (from_poison, unwritten) = poisoned
                .into_iter()
                .partition(|i| written.binary_search(i).is_ok());
            (unwritten, Some(from_poison))
        }
    }
}

/// The elements of `got` that are wrong (beyond `tolerance`), and those
/// still poisoned, against `expected`.
pub(crate) fn compare(
    got: &[Option<f64>],
    expected: &[f64],
    tolerance: f64,
) -> (Vec<usize>, Vec<usize>) {
    let mut wrong = Vec::new();
    let mut unwritten = Vec::new();
    for (i, want) in expected.iter().enumerate() {
        match got.get(i).copied().flatten() {
            None => unwritten.push(i),
            Some(got) if !close_within(got, *want, tolerance) => wrong.push(i),
            Some(_) => {}
        }
    }
    (wrong, unwritten)
}

impl BufferCheck {
    /// The tolerance its values are judged with: the output's own, else its type's.
    pub fn tolerance(&self) -> f64 {
        self.tolerance.unwrap_or(self.dtype.tolerance())
    }

    /// Whether the lists of wrong and unwritten elements are what the
    /// values say: a stored check (a cached result) that was edited, or
    /// that belongs to other values, does not hold up.
    pub fn holds_up(&self) -> bool {
        if self.abridged.is_some() {
            return self.abridged_holds_up();
        }
        if !self.judged {
            return self.got.is_empty() && self.expected.is_empty();
        }
        let (wrong, poisoned) = compare(&self.got, &self.expected, self.tolerance());
        let (unwritten, from_poison) = split_poisoned(poisoned, self.from_poison.as_deref());
        wrong == self.wrong && unwritten == self.unwritten && from_poison == self.from_poison
    }
}

/// Output `name` judged at the sampled elements only, as `(flat index,
/// expected value)` pairs, from the `checks` of a run whose spec had no
/// expected values: the problems found, each a sentence, and the
/// out-of-bounds writes of every buffer too. Empty when all is well.
/// `at_scale`: judged by [`close_at_scale`] with the sample's largest
/// value as the scale (a benchmark's full-mantissa inputs).
pub fn check_sample(
    spec: &Spec,
    checks: &[BufferCheck],
    name: &str,
    sample: &[(usize, f64)],
    at_scale: bool,
) -> Vec<String> {
    let Some(buffer) = spec.outputs().find(|b| b.name == name) else {
        return vec![format!("no output named `{name}` to check")];
    };
    let data = checks.iter().find(|c| c.name == name && c.judged);
    let got = |i: usize| data.and_then(|d| d.got.get(i).copied().flatten());
    let mut partial = BufferCheck {
        name: buffer.name.clone(),
        dtype: buffer.dtype,
        tolerance: buffer.tolerance,
        shape: buffer.shape.clone(),
        got: vec![],
        expected: vec![],
        wrong: vec![],
        unwritten: vec![],
        from_poison: None,
        out_of_bounds: data.map(|d| d.out_of_bounds.clone()).unwrap_or_default(),
        judged: true,
        abridged: None,
    };
    let mut problems = Vec::new();
    let scale = if at_scale {
        largest(sample.iter().map(|&(_, want)| want))
    } else {
        0.0
    };
    for &(i, want) in sample {
        match got(i) {
            None => partial.unwritten.push(i),
            Some(v) if !close_at_scale(v, want, buffer.tolerance(), scale) => {
                partial.wrong.push(i);
                if partial.wrong.len() <= 3 {
                    problems.push(format!(
                        "{} is {}, expected {}",
                        partial.index(i),
                        format_value(v),
                        format_value(want)
                    ));
                }
            }
            Some(_) => {}
        }
    }
    if partial.wrong.len() > 3 {
        problems.push(format!(
            "{} of {} sampled elements of {name} are wrong",
            partial.wrong.len(),
            sample.len()
        ));
    }
    if !partial.unwritten.is_empty() {
        problems.push(format!(
            "{} of {} sampled elements of {name} were never written (first: {})",
            partial.unwritten.len(),
            sample.len(),
            partial.index(partial.unwritten[0])
        ));
    }
    problems.extend(partial.out_of_bounds_problem());
    problems.extend(
        checks
            .iter()
            .filter(|c| !c.judged)
            .flat_map(|c| c.out_of_bounds_problem()),
    );
    problems
}

/// Whether `got` equals `want` within `tolerance` of the larger of
/// `|want|` and `scale` (the output's largest value): the rule for results
/// of inputs with full mantissas. Their sums round, by an amount that
/// grows with the terms and not with the result: an element that cancels
/// to near zero carries the rounding of the large terms it came from, which
/// no rule relative to the element itself allows for.
pub fn close_at_scale(got: f64, want: f64, tolerance: f64, scale: f64) -> bool {
    (got - want).abs() <= tolerance * (1.0 + want.abs().max(scale))
}

/// The largest magnitude among `values` (0 for none).
fn largest(values: impl Iterator<Item = f64>) -> f64 {
    values.map(f64::abs).fold(0.0, f64::max)
}

/// Whether `got` equals `want` within [`TOLERANCE`] (an f32 output's).
pub fn close(got: f64, want: f64) -> bool {
    close_within(got, want, TOLERANCE)
}

/// Whether `got` equals `want` within `tolerance`, absolute near zero and
/// relative beyond: `|got − want| ≤ tolerance · (1 + |want|)`. An output's
/// tolerance is its element type's ([`Dtype::tolerance`]).
pub fn close_within(got: f64, want: f64, tolerance: f64) -> bool {
    (got - want).abs() <= tolerance * (1.0 + want.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (got, want, scale, close): the scale lets near-zero results carry
    /// the rounding of large terms, and nothing else.
    #[test]
    fn close_at_scale_table() {
        let t = TOLERANCE;
        let cases = [
            (1e-3, 0.0, 1000.0, true),
            (1e-3, 0.0, 0.0, false),
            (100.0 + 5e-4, 100.0, 0.0, true),
            (100.0 + 5e-2, 100.0, 1000.0, false),
            (1.0, 0.0, 1000.0, false),
        ];
        for (got, want, scale, close) in cases {
            assert_eq!(
                close_at_scale(got, want, t, scale),
                close,
                "{got} {want} {scale}"
            );
        }
        assert_eq!(largest([-3.0, 2.0].into_iter()), 3.0);
    }

    /// A spec whose one argument is the output `out`, of this type and shape.
    fn spec_of(dtype: Dtype, shape: Vec<usize>) -> Spec {
        let out = Buffer {
            name: "out".into(),
            dtype,
            shape,
            init: None,
            expect: None,
            scratch: false,
            tensor_map: None,
            rank: None,
            tolerance: None,
        };
        Spec {
            id: "t".into(),
            title: String::new(),
            reference: "matmul".into(),
            constants: Default::default(),
            launches: vec![],
            args: vec![crate::spec::model::Arg::Buffer(out)],
            flops: None,
            math: Default::default(),
            gpus: 1,
            bus_bytes: None,
            hazards_only: false,
            rounds: 1,
        }
    }

    #[test]
    fn sampled_checks_judge_the_sampled_elements_only() {
        let spec = spec_of(Dtype::F32, vec![2, 3]);
        let run = |values: Vec<Option<f64>>, oob: Vec<i64>| {
            vec![OutputData {
                name: "out".into(),
                values,
                out_of_bounds: oob,
                poison_written: None,
            }]
        };
        let sample = [(1, 2.0), (5, 6.0)];
        // (outputs, phrase of the problem, or "" for none)
        let cases = [
            (
                run(
                    vec![Some(9.0), Some(2.0), None, None, None, Some(6.0)],
                    vec![],
                ),
                "",
            ),
            (
                run(vec![None, Some(2.5), None, None, None, Some(6.0)], vec![]),
                "out[0, 1] is 2.5, expected 2.0",
            ),
            (
                run(vec![None, Some(2.0), None, None, None, None], vec![]),
                "1 of 2 sampled elements of out were never written (first: out[1, 2])",
            ),
            (
                run(vec![None, Some(2.0), None, None, None, Some(6.0)], vec![6]),
                "out-of-bounds write",
            ),
        ];
        for (outputs, phrase) in cases {
            let problems = check_sample(&spec, &check(&spec, &outputs), "out", &sample, false);
            if phrase.is_empty() {
                assert!(problems.is_empty(), "{problems:?}");
            } else {
                assert_eq!(problems.len(), 1, "{problems:?}");
                assert!(problems[0].contains(phrase), "{problems:?}");
            }
        }
    }

    /// Each output is judged with its type's tolerance, on every path: the
    /// whole check, a stored one rechecked, the count within tolerance, a sample.
    #[test]
    fn the_output_type_sets_the_tolerance_table() {
        let (bf16_ulp, f16_ulp) = (2f64.powi(-7), 2f64.powi(-10)); // at 1.5
        // (output type, value written, value expected (the reference's, in f64), passes)
        let cases = [
            (Dtype::Bf16, 1.5, 1.5 + bf16_ulp / 2.0, true),
            (Dtype::Bf16, 1.5 - 4.0 * bf16_ulp, 1.5, false),
            (Dtype::F16, 1.5, 1.5 - f16_ulp / 2.0, true),
            (Dtype::F16, 1.5 + 4.0 * f16_ulp, 1.5, false),
            (Dtype::F32, 1.5 + 2e-5, 1.5, true),
            (Dtype::F32, 1.5 + 3e-5, 1.5, false),
            (Dtype::F32, 1.5, 1.5 + bf16_ulp / 2.0, false),
        ];
        for (dtype, got, want, passes) in cases {
            let mut spec = spec_of(dtype, vec![1]);
            let crate::spec::model::Arg::Buffer(b) = &mut spec.args[0] else {
                unreachable!()
            };
            b.expect = Some(vec![want]);
            let data = OutputData::from_device(b, 0, None, &dtype.encode(&[got]), &[]);
            let run = check(&spec, &[data]);
            let what = format!("{dtype:?} {got} against {want}");
            assert_eq!((run[0].dtype, run[0].passed()), (dtype, passes), "{what}");
            assert!(run[0].holds_up(), "{what}");
            assert_eq!(run[0].within_tolerance_count(), passes as usize, "{what}");
            let sample = check_sample(&spec, &run, "out", &[(0, want)], false);
            assert_eq!(sample.is_empty(), passes, "{what}: {sample:?}");
        }
    }

    /// An output's own tolerance replaces its type's on every path, and a
    /// recorded check keeps it, so it still holds up when read back.
    #[test]
    fn an_outputs_own_tolerance_judges_it() {
        // (its own tolerance, value written, value expected, passes)
        let cases = [
            (None, 1.5 + 3e-5, 1.5, false),
            (Some(1e-4), 1.5 + 3e-5, 1.5, true),
            (Some(1e-4), 1.5 + 2e-4, 1.5, true),
            (Some(1e-4), 1.5 + 3e-4, 1.5, false),
        ];
        for (tolerance, got, want, passes) in cases {
            let mut spec = spec_of(Dtype::F32, vec![1]);
            let crate::spec::model::Arg::Buffer(b) = &mut spec.args[0] else {
                unreachable!()
            };
            b.expect = Some(vec![want]);
            b.tolerance = tolerance;
            let data = OutputData::from_device(b, 0, None, &Dtype::F32.encode(&[got]), &[]);
            let run = check(&spec, &[data]);
            let what = format!("{tolerance:?}: {got} against {want}");
            assert_eq!(run[0].passed(), passes, "{what}");
            let stored: BufferCheck =
                serde_json::from_str(&serde_json::to_string(&run[0]).unwrap()).unwrap();
            assert!(stored.holds_up(), "{what}");
            assert_eq!(stored.within_tolerance_count(), passes as usize, "{what}");
            let sample = check_sample(&spec, &run, "out", &[(0, want)], false);
            assert_eq!(sample.is_empty(), passes, "{what}: {sample:?}");
        }
    }

    fn buffer(shape: Vec<usize>, expect: Vec<f64>) -> Buffer {
        Buffer {
            name: "out".into(),
            dtype: Dtype::F32,
            shape,
            init: None,
            expect: Some(expect),
            scratch: false,
            tensor_map: None,
            rank: None,
            tolerance: None,
        }
    }

    /// (case, values read back, guard-band writes, expected (wrong, unwritten, out of bounds) counts).
    type Case = (
        &'static str,
        Vec<Option<f64>>,
        Vec<i64>,
        (usize, usize, usize),
    );

    #[test]
    fn verdict_table() {
        let want = vec![10.0, 11.0, 12.0, 13.0];
        let cases: &[Case] = &[
            (
                "exact",
                vec![Some(10.0), Some(11.0), Some(12.0), Some(13.0)],
                vec![],
                (0, 0, 0),
            ),
            (
                "within tolerance",
                vec![Some(10.000001), Some(11.0), Some(12.0), Some(13.0)],
                vec![],
                (0, 0, 0),
            ),
            (
                "one wrong",
                vec![Some(10.0), Some(11.0), Some(2.0), Some(13.0)],
                vec![],
                (1, 0, 0),
            ),
            ("never written", vec![None; 4], vec![], (0, 4, 0)),
            (
                "computed nan is wrong, not unwritten",
                vec![Some(f64::NAN), Some(11.0), Some(12.0), Some(13.0)],
                vec![],
                (1, 0, 0),
            ),
            (
                "past the end",
                vec![Some(10.0), Some(11.0), Some(12.0), Some(13.0)],
                vec![4, 5],
                (0, 0, 2),
            ),
        ];
        for (name, got, oob, (wrong, unwritten, out_of_bounds)) in cases {
            let data = OutputData {
                name: "out".into(),
                values: got.clone(),
                out_of_bounds: oob.clone(),
                poison_written: None,
            };
            let c = check_buffer(&buffer(vec![4], want.clone()), &data);
            assert_eq!(
                (c.wrong.len(), c.unwritten.len(), c.out_of_bounds.len()),
                (*wrong, *unwritten, *out_of_bounds),
                "{name}"
            );
            assert_eq!(c.passed(), wrong + unwritten + out_of_bounds == 0, "{name}");
        }
    }

    #[test]
    fn problems_name_elements_by_row_and_column() {
        let data = OutputData {
            name: "out".into(),
            values: vec![Some(0.0), Some(1.0), None, Some(9.0)],
            out_of_bounds: vec![4],
            poison_written: None,
        };
        let c = check_buffer(&buffer(vec![2, 2], vec![0.0, 1.0, 1.0, 2.0]), &data);
        assert_eq!(
            c.problems(),
            [
                "1 of 4 elements of `out` were never written: out[1, 0]. They still hold the poison \
                 they started with: either no thread stored to them (is a guard too strict, or \
                 the grid or a tile loop too small to cover the data?), or what was stored was \
                 computed from the poison (`out[i] += …` reads out[i] before anything set it; \
                 a read past the end of an input reads a guard band, which is poison too)",
                "1 of 4 elements of `out` are wrong: out[1, 1] (first: out[1, 1] is 9.0, expected 2.0)",
                "out-of-bounds write: `out` has 4 elements, but something wrote index 4",
            ]
        );
    }

    /// Where the backend saw every store, a poisoned element is told apart:
    /// never stored to, or stored with a value made from the poison.
    #[test]
    fn poisoned_elements_are_told_apart_where_stores_were_seen() {
        let got = vec![Some(10.0), None, None, Some(13.0)];
        type Case = (
            &'static str,
            Option<Vec<usize>>,
            Vec<usize>,
            Option<Vec<usize>>,
            &'static str,
        );
        let cases: [Case; 3] = [
            (
                "backend cannot tell",
                None,
                vec![1, 2],
                None,
                "either no thread stored",
            ),
            (
                "nothing stored",
                Some(vec![0, 3]),
                vec![1, 2],
                Some(vec![]),
                "No thread stored",
            ),
            (
                "one stored from poison",
                Some(vec![0, 2, 3]),
                vec![1],
                Some(vec![2]),
                "computed from the poison",
            ),
        ];
        for (name, written, unwritten, from_poison, words) in cases {
            let data = OutputData {
                name: "out".into(),
                values: got.clone(),
                out_of_bounds: vec![],
                poison_written: written,
            };
            let c = check_buffer(&buffer(vec![4], vec![10.0, 11.0, 12.0, 13.0]), &data);
            assert_eq!(c.unwritten, unwritten, "{name}");
            assert_eq!(c.from_poison, from_poison, "{name}");
            assert!(!c.passed(), "{name}");
            assert!(c.holds_up(), "{name}");
            assert!(
                c.problems().join(" ").contains(words),
                "{name}: {:?}",
                c.problems()
            );
        }
    }
}
