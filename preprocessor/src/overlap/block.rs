//! A ```overlap block as an author writes it (YAML, strict), checked against
//! itself: four different puzzles, and a margin that can be met.
//!
//! Like the ```bus block's, it lives in the preprocessor: nothing but the
//! page reads it.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OverlapBlock {
    pub title: String,
    /// The computation alone, on every rank, with no communication.
    pub compute: String,
    /// The communication alone, of a buffer the size of the computation's output.
    pub communication: String,
    /// The computation, then the communication.
    pub serial: String,
    /// The communication of each chunk overlapped with the computation of the next.
    pub overlapped: String,
    /// The target, where given: the overlapped time at most this many percent
    /// over the slower of compute and communication alone, and faster than serial.
    #[serde(default)]
    pub within_percent: Option<f64>,
}

/// The four roles, in the table's order.
pub const ROLES: [&str; 4] = ["compute", "communication", "serial", "overlapped"];

impl OverlapBlock {
    /// The four puzzles' ids, in [`ROLES`]' order.
    pub fn puzzles(&self) -> [&str; 4] {
        [
            &self.compute,
            &self.communication,
            &self.serial,
            &self.overlapped,
        ]
    }
}

/// A ```overlap block that does not read, or contradicts itself. The words
/// name the block by its title where it could be read, so that a page with
/// several blocks says which one. The YAML error is in the words and not a
/// `source`: a printed chain of sources would say it twice.
#[derive(Debug, thiserror::Error)]
pub enum OverlapBlockError {
    // Boxed: serde-saphyr's error is large, and every `Result` carries it.
    #[error("{}: {error}", block_name(title.as_deref()))]
    Yaml {
        title: Option<String>,
        error: Box<serde_saphyr::Error>,
    },
    /// One puzzle in two roles: a comparison of a kernel with itself.
    #[error(
        "{}: `{id}` is both `{first}` and `{second}`; each role is its own puzzle",
        block_name(Some(title))
    )]
    Twice {
        title: String,
        id: String,
        first: &'static str,
        second: &'static str,
    },
    #[error(
        "{}: `within_percent: {percent}`; give how far over max(compute, communication) the \
         overlapped time may be, 0 or more",
        block_name(Some(title))
    )]
    Percent { title: String, percent: f64 },
}

/// "```overlap block \"MLP\"", or "```overlap block" where no title was read.
pub fn block_name(title: Option<&str>) -> String {
    match title {
        Some(title) => format!("```overlap block \"{title}\""),
        None => "```overlap block".to_string(),
    }
}

/// Only the title: read leniently first, so that an error anywhere else in
/// the block can still say which block it is.
#[derive(Deserialize)]
struct TitleOnly {
    title: Option<String>,
}

impl OverlapBlock {
    pub fn parse(yaml: &str) -> Result<OverlapBlock, OverlapBlockError> {
        let block: OverlapBlock = serde_saphyr::from_str(yaml).map_err(|error| {
            let title = serde_saphyr::from_str::<TitleOnly>(yaml)
                .ok()
                .and_then(|t| t.title);
            OverlapBlockError::Yaml {
                title,
                error: Box::new(error),
            }
        })?;
        let puzzles = block.puzzles();
        for (i, id) in puzzles.iter().enumerate() {
            if let Some(j) = puzzles[..i].iter().position(|p| p == id) {
                return Err(OverlapBlockError::Twice {
                    title: block.title.clone(),
                    id: id.to_string(),
                    first: ROLES[j],
                    second: ROLES[i],
                });
            }
        }
        // `within_percent: .nan` or `.inf` is no target either.
        if let Some(percent) = block.within_percent
            && (!percent.is_finite() || percent < 0.0)
        {
            return Err(OverlapBlockError::Percent {
                title: block.title.clone(),
                percent,
            });
        }
        Ok(block)
    }
}
