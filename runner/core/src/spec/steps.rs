//! A multi-kernel puzzle's `steps:`: each launch's kernel, sizes and
//! arguments, where its setup steps may stand, and a spec's `repeat`.

use crate::source::diag::Located;
use crate::spec::model::{Launch, MAX_REPEAT};
use crate::spec::raw::{RawStep, Size};
use crate::spec::resolve::PuzzleSpec;
use serde_saphyr::Spanned;

impl PuzzleSpec {
    /// The launches of a multi-kernel puzzle, their args as indices into the
    /// spec's `args` as written. Each step's args must be names from the
    /// spec's `args`, and every arg must be used by some step: a buffer that
    /// no kernel touches is a spec that does not line up.
    pub(super) fn resolve_steps(
        &self,
        steps: &Spanned<Vec<Spanned<RawStep>>>,
        args: &[String],
        dims: &dyn Fn(&Spanned<Vec<Size>>, &str) -> Result<[u32; 3], Located>,
        shared_bytes: &dyn Fn(&Option<Spanned<Size>>) -> Result<u32, Located>,
    ) -> Result<Vec<Launch>, Located> {
        if steps.value.is_empty() {
            return Err(self
                .origin
                .at(steps.referenced.line(), "`steps` lists no launches"));
        }
        let mut used = vec![false; args.len()];
        let mut launches: Vec<Launch> = Vec::new();
        for step in &steps.value {
            let raw = &step.value;
            let setup = raw.setup.as_ref().is_some_and(|s| s.value);
            if let Some(line) = raw
                .setup
                .as_ref()
                .filter(|_| setup)
                .map(|s| s.referenced.line())
                && launches.last().is_some_and(|l| !l.setup)
            {
                return Err(self.origin.at(
                    line,
                    format!(
                        "step `{}` is a setup step after a timed one: setup steps come first",
                        raw.kernel
                    ),
                ));
            }
            let indices = match &raw.args {
                None => (0..args.len()).collect(),
                Some(names) => {
                    let mut indices = Vec::new();
                    for name in &names.value {
                        let index = args.iter().position(|a| a == name).ok_or_else(|| {
                            self.origin.at(
                                names.referenced.line(),
                                format!(
                                    "step `{}` passes `{name}`, which is not in the spec's `args` ({})",
                                    raw.kernel,
                                    args.join(", ")
                                ),
                            )
                        })?;
                        if indices.contains(&index) {
                            return Err(self.origin.at(
                                names.referenced.line(),
                                format!("step `{}` passes `{name}` twice", raw.kernel),
                            ));
                        }
                        indices.push(index);
                    }
                    indices
                }
            };
            for &i in &indices {
                used[i] = true;
            }
            launches.push(Launch {
                kernel: raw.kernel.clone(),
                grid: dims(&raw.grid, "grid")?,
                block: dims(&raw.block, "block")?,
                dynamic_shared_bytes: shared_bytes(&raw.dynamic_shared_bytes)?,
                args: indices,
                rank: 0,
                setup,
            });
        }
        if launches.iter().all(|l| l.setup) {
            return Err(self.origin.at(
                steps.referenced.line(),
                "every step is a setup step: nothing would be timed",
            ));
        }
        if let Some(i) = used.iter().position(|u| !u) {
            return Err(self.origin.at(
                steps.referenced.line(),
                format!("no step passes `{}` to its kernel", args[i]),
            ));
        }
        Ok(launches)
    }

    /// The launches with the timed ones run `repeat` times in a row (a
    /// training loop's rounds), the setup steps once before them, and the
    /// number of rounds. Each
    /// round is a kernel boundary like any other, so a round sees every
    /// write of the one before.
    pub(super) fn repeated(
        &self,
        launches: Vec<Launch>,
        repeat: &Option<Spanned<Size>>,
        eval: &dyn Fn(&Size, u64, &str) -> Result<i64, Located>,
    ) -> Result<(Vec<Launch>, u32), Located> {
        let Some(repeat) = repeat else {
            return Ok((launches, 1));
        };
        let line = repeat.referenced.line();
        let rounds = eval(&repeat.value, line, "repeat")?;
        if !(1..=MAX_REPEAT).contains(&rounds) {
            return Err(self.origin.at(
                line,
                format!("`repeat` is {rounds}; it must be 1 to {MAX_REPEAT}"),
            ));
        }
        let (setup, timed): (Vec<Launch>, Vec<Launch>) =
            launches.into_iter().partition(|l| l.setup);
        let mut out = setup;
        for _ in 0..rounds {
            out.extend(timed.iter().cloned());
        }
        Ok((out, rounds as u32))
    }
}
