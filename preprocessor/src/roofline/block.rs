//! A ```roofline block as an author writes it (YAML, strict), and the
//! names it uses checked against the puzzles it lists.

use puzzle_core::lang::Lang;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RooflineBlock {
    pub title: String,
    #[serde(default = "cuda")]
    pub lang: Lang,
    pub puzzles: Vec<String>,
    #[serde(default)]
    pub sizes: Sizes,
    #[serde(default)]
    pub targets: Vec<Target>,
    #[serde(default)]
    pub speedups: Vec<Speedup>,
    pub baseline: Option<BaselineRef>,
}

/// The kernels against a library's time at the same size on the same GPU.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineRef {
    /// The case name in the baseline file, e.g. "sgemm".
    pub name: String,
    /// `puzzle` reaches `percent` of the library's speed (headline case).
    #[serde(default)]
    pub targets: Vec<Target>,
}

/// How much faster `of` ran than `over`, at each size both were recorded at.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Speedup {
    pub of: String,
    pub over: String,
}

/// Which recorded runs the block shows.
#[derive(Debug, Default, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sizes {
    /// The puzzles' own sizes, from the recorded puzzle runs.
    #[default]
    Teaching,
    /// Each spec's `bench` size, from the recorded benchmarks.
    Bench,
}

/// A performance target: `puzzle` reaches `percent` of its binding measured roof.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub puzzle: String,
    pub percent: f64,
}

pub(crate) fn cuda() -> Lang {
    Lang::Cuda
}

impl RooflineBlock {
    /// Parses the block's YAML and checks that every puzzle its targets,
    /// speed-ups and baseline name is one of its `puzzles`.
    pub fn parse(yaml: &str) -> Result<RooflineBlock, String> {
        let block: RooflineBlock =
            serde_saphyr::from_str(yaml).map_err(|e| format!("```roofline block: {e}"))?;
        let named = block
            .targets
            .iter()
            .map(|t| ("target", &t.puzzle))
            .chain(
                block
                    .speedups
                    .iter()
                    .flat_map(|s| [("speedup", &s.of), ("speedup", &s.over)]),
            )
            .chain(
                block
                    .baseline
                    .iter()
                    .flat_map(|b| &b.targets)
                    .map(|t| ("baseline target", &t.puzzle)),
            );
        if block.baseline.is_some() && block.sizes != Sizes::Bench {
            return Err(
                "```roofline block: a `baseline` is compared at `sizes: bench` only".into(),
            );
        }
        for (what, id) in named {
            if !block.puzzles.contains(id) {
                return Err(format!(
                    "```roofline block: the {what} names `{id}`, which is not in `puzzles`"
                ));
            }
        }
        Ok(block)
    }
}
