//! A ```bus block as an author writes it (YAML, strict), checked against
//! itself: every puzzle a target names is one of the block's `puzzles`, and
//! every target's range of message sizes holds at least one size.
//!
//! It lives in the preprocessor, not in the engine beside
//! `runner::perf::RooflineBlock`: nothing but the page reads it (`runner
//! bench --file` holds a kernel against its roofline targets only).

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BusBlock {
    pub title: String,
    /// The collectives shown, one column and one line of the chart each.
    pub puzzles: Vec<String>,
    /// The case name in `results/baselines/*.json` of the same device, e.g. `all_reduce`.
    pub baseline: String,
    #[serde(default)]
    pub targets: Vec<BusTarget>,
}

/// `puzzle` reaches `percent` of NCCL's bus bandwidth at every message
/// size in `from_bytes..=to_bytes` (each bound optional) that it was
/// benchmarked at on a host.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BusTarget {
    pub puzzle: String,
    pub percent: f64,
    /// At message sizes of at least this many bytes (per GPU).
    #[serde(default)]
    pub from_bytes: Option<u64>,
    /// At message sizes of at most this many bytes (per GPU).
    #[serde(default)]
    pub to_bytes: Option<u64>,
}

impl BusTarget {
    /// Whether a message of `bytes` is one this target judges.
    pub fn covers(&self, bytes: u64) -> bool {
        self.from_bytes.is_none_or(|from| bytes >= from)
            && self.to_bytes.is_none_or(|to| bytes <= to)
    }
}

/// A ```bus block that does not read, or contradicts itself. The words name
/// the block by its title where it could be read, so that a page with
/// several blocks says which one. The YAML error is in the words and not a
/// `source`: a printed chain of sources would say it twice.
#[derive(Debug, thiserror::Error)]
pub enum BusBlockError {
    // Boxed: serde-saphyr's error is large, and every `Result` carries it.
    #[error("{}: {error}", block_name(title.as_deref()))]
    Yaml {
        title: Option<String>,
        error: Box<serde_saphyr::Error>,
    },
    #[error(
        "{}: `puzzles` is empty; list the collectives to chart",
        block_name(Some(title))
    )]
    NoPuzzles { title: String },
    #[error("{}: `puzzles` lists `{id}` twice", block_name(Some(title)))]
    Twice { title: String, id: String },
    #[error(
        "{}: a target names `{id}`, which is not in `puzzles`",
        block_name(Some(title))
    )]
    NotListed { title: String, id: String },
    #[error(
        "{}: the target for `{id}` has `from_bytes: {from}` above `to_bytes: {to}`, so no \
         size is in its range",
        block_name(Some(title))
    )]
    EmptyRange {
        title: String,
        id: String,
        from: u64,
        to: u64,
    },
    #[error(
        "{}: the target for `{id}` asks for `percent: {percent}`; give a share of NCCL's bus \
         bandwidth above 0",
        block_name(Some(title))
    )]
    Percent {
        title: String,
        id: String,
        percent: f64,
    },
}

/// "```bus block \"All-reduce\"", or "```bus block" where no title was read.
pub fn block_name(title: Option<&str>) -> String {
    match title {
        Some(title) => format!("```bus block \"{title}\""),
        None => "```bus block".to_string(),
    }
}

/// Only the title: read leniently first, so that an error anywhere else in
/// the block can still say which block it is.
#[derive(Deserialize)]
struct TitleOnly {
    title: Option<String>,
}

impl BusBlock {
    pub fn parse(yaml: &str) -> Result<BusBlock, BusBlockError> {
        let block: BusBlock = serde_saphyr::from_str(yaml).map_err(|error| {
            let title = serde_saphyr::from_str::<TitleOnly>(yaml)
                .ok()
                .and_then(|t| t.title);
            BusBlockError::Yaml {
                title,
                error: Box::new(error),
            }
        })?;
        let title = || block.title.clone();
        if block.puzzles.is_empty() {
            return Err(BusBlockError::NoPuzzles { title: title() });
        }
        for (i, id) in block.puzzles.iter().enumerate() {
            if block.puzzles[..i].contains(id) {
                return Err(BusBlockError::Twice {
                    title: title(),
                    id: id.clone(),
                });
            }
        }
        for t in &block.targets {
            let id = t.puzzle.clone();
            if !block.puzzles.contains(&t.puzzle) {
                return Err(BusBlockError::NotListed { title: title(), id });
            }
            // `percent: .nan` is no target either.
            if t.percent.is_nan() || t.percent <= 0.0 {
                return Err(BusBlockError::Percent {
                    title: title(),
                    id,
                    percent: t.percent,
                });
            }
            if let (Some(from), Some(to)) = (t.from_bytes, t.to_bytes)
                && from > to
            {
                return Err(BusBlockError::EmptyRange {
                    title: title(),
                    id,
                    from,
                    to,
                });
            }
        }
        Ok(block)
    }
}
