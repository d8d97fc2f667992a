//! `[preprocessor.puzzles]` in book.toml, read strictly: a misspelt key is an error.

use serde::Deserialize;

/// What to do when a kernel in the book does not behave (a solution that
/// fails, a skeleton that passes, a compile error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum OnFailure {
    /// Stop the build with the message (CI, tests).
    #[default]
    Bail,
    /// Render the failure into the page and warn.
    Continue,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    #[serde(default)]
    pub on_failure: OnFailure,
    /// Timed repetitions of each solution (0 disables timing).
    #[serde(default = "default_samples")]
    pub timing_samples: usize,
    /// Seconds before a kernel that has not finished is reported as hung.
    #[serde(default = "default_timeout")]
    pub timeout_seconds: u64,
    /// Reuse the results of runs whose inputs have not changed (see `runner::run::ResultCache`).
    #[serde(default = "default_cache")]
    pub cache: bool,
    /// Where cached results live, relative to the book's root.
    #[serde(default = "default_cache_dir")]
    pub cache_dir: String,
    // mdBook's own keys for every preprocessor, accepted and left to mdBook.
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub after: Vec<String>,
    #[serde(default)]
    pub before: Vec<String>,
    #[serde(default)]
    pub renderers: Vec<String>,
    #[serde(default)]
    pub optional: bool,
}

fn default_samples() -> usize {
    10
}

fn default_timeout() -> u64 {
    10
}

fn default_cache() -> bool {
    true
}

/// Beside cargo's build output: ignored by git, emptied by `cargo clean`, never under `src/`.
fn default_cache_dir() -> String {
    "target/puzzle-cache".into()
}

impl Default for Config {
    fn default() -> Self {
        Config {
            on_failure: OnFailure::Bail,
            timing_samples: default_samples(),
            timeout_seconds: default_timeout(),
            cache: default_cache(),
            cache_dir: default_cache_dir(),
            command: None,
            after: vec![],
            before: vec![],
            renderers: vec![],
            optional: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_table() {
        let cases: &[(&str, Result<OnFailure, &str>)] = &[
            ("", Ok(OnFailure::Bail)),
            (
                "on-failure = \"continue\"\ncommand = \"x\"\nafter = [\"links\"]",
                Ok(OnFailure::Continue),
            ),
            ("on-failure = \"ignore\"", Err("unknown variant")),
            ("on-falure = \"bail\"", Err("unknown field `on-falure`")),
        ];
        for (text, want) in cases {
            let got = toml::from_str::<Config>(text)
                .map(|c| c.on_failure)
                .map_err(|e| e.to_string());
            match (got, want) {
                (Ok(got), Ok(want)) => assert_eq!(got, *want, "{text}"),
                (Err(got), Err(want)) => assert!(got.contains(want), "{text}: {got}"),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
    }
}
