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
    /// The block's puzzles that do the library's work (default: all of
    /// them). A sum's chapter may also list a dot product, which runs at
    /// the same sizes but is not what `torch.sum` computes.
    pub puzzles: Option<Vec<String>>,
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

/// A ```roofline block that does not read, or names a puzzle it does not list.
/// The YAML error is in the words and not a `source`: the CLI prints a chain
/// of sources after the message, which would say it twice.
#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    // Boxed: serde-saphyr's error is large, and every `Result` carries it.
    #[error("```roofline block: {0}")]
    Yaml(Box<serde_saphyr::Error>),
    #[error("```roofline block: a `baseline` is compared at `sizes: bench` only")]
    BaselineNotAtBench,
    /// `what`: "target", "speedup", "baseline target" or "baseline".
    #[error("```roofline block: the {what} names `{id}`, which is not in `puzzles`")]
    NotListed { what: &'static str, id: String },
    #[error(
        "```roofline block: the baseline target names `{0}`, which is not in the baseline's `puzzles`"
    )]
    NotCompared(String),
}

pub(crate) fn cuda() -> Lang {
    Lang::Cuda
}

impl RooflineBlock {
    /// Parses the block's YAML and checks that every puzzle its targets,
    /// speed-ups and baseline name is one of its `puzzles`.
    pub fn parse(yaml: &str) -> Result<RooflineBlock, BlockError> {
        let block: RooflineBlock =
            serde_saphyr::from_str(yaml).map_err(|e| BlockError::Yaml(Box::new(e)))?;
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
            )
            .chain(
                block
                    .baseline
                    .iter()
                    .flat_map(|b| b.puzzles.iter().flatten())
                    .map(|id| ("baseline", id)),
            );
        if block.baseline.is_some() && block.sizes != Sizes::Bench {
            return Err(BlockError::BaselineNotAtBench);
        }
        for (what, id) in named {
            if !block.puzzles.contains(id) {
                return Err(BlockError::NotListed {
                    what,
                    id: id.clone(),
                });
            }
        }
        if let Some(b) = &block.baseline
            && let Some(compared) = &b.puzzles
            && let Some(t) = b.targets.iter().find(|t| !compared.contains(&t.puzzle))
        {
            return Err(BlockError::NotCompared(t.puzzle.clone()));
        }
        Ok(block)
    }

    /// Whether `puzzle`'s rows are compared with the library.
    pub fn compared_with_baseline(&self, puzzle: &str) -> bool {
        self.baseline.as_ref().is_some_and(|b| {
            b.puzzles
                .as_ref()
                .is_none_or(|ids| ids.iter().any(|id| id == puzzle))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "title: t\nsizes: bench\npuzzles: [sum, dot]\n";

    #[test]
    fn baseline_puzzles_table() {
        // (baseline YAML, the error it must give or None, whether `dot` is compared)
        let cases: [(&str, Option<&str>, bool); 5] = [
            ("baseline: { name: sum }", None, true),
            ("baseline: { name: sum, puzzles: [sum] }", None, false),
            (
                "baseline: { name: sum, puzzles: [sum], targets: [{ puzzle: sum, percent: 100 }] }",
                None,
                false,
            ),
            (
                "baseline: { name: sum, puzzles: [scan] }",
                Some("the baseline names `scan`, which is not in `puzzles`"),
                false,
            ),
            (
                "baseline: { name: sum, puzzles: [sum], targets: [{ puzzle: dot, percent: 100 }] }",
                Some("the baseline target names `dot`, which is not in the baseline's `puzzles`"),
                false,
            ),
        ];
        for (yaml, error, dot_compared) in cases {
            match (RooflineBlock::parse(&format!("{HEAD}{yaml}")), error) {
                (Ok(block), None) => {
                    assert!(block.compared_with_baseline("sum"), "{yaml}");
                    assert_eq!(block.compared_with_baseline("dot"), dot_compared, "{yaml}");
                }
                (Err(e), Some(want)) => assert!(e.to_string().contains(want), "{yaml}: {e}"),
                (got, want) => panic!("{yaml}: got {got:?}, wanted the error {want:?}"),
            }
        }
    }
}
