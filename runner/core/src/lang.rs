//! The two kernel languages of the book, CUDA C and WGSL.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A kernel language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Cuda,
    Wgsl,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::Cuda, Lang::Wgsl];

    pub fn from_fence(word: &str) -> Option<Lang> {
        match word {
            "cuda" => Some(Lang::Cuda),
            "wgsl" => Some(Lang::Wgsl),
            _ => None,
        }
    }

    /// Guesses the language from a file extension (`.cu`, `.cuh`, `.wgsl`).
    pub fn from_extension(ext: &str) -> Option<Lang> {
        match ext {
            "cu" | "cuh" => Some(Lang::Cuda),
            "wgsl" => Some(Lang::Wgsl),
            _ => None,
        }
    }

    pub const fn extension(self) -> &'static str {
        match self {
            Lang::Cuda => "cu",
            Lang::Wgsl => "wgsl",
        }
    }

    pub const fn label(self) -> &'static str {
        match self {
            Lang::Cuda => "CUDA C",
            Lang::Wgsl => "WGSL",
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Lang::Cuda => "cuda",
            Lang::Wgsl => "wgsl",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lang_table() {
        assert_eq!(Lang::from_extension("cu"), Some(Lang::Cuda));
        assert_eq!(Lang::from_extension("wgsl"), Some(Lang::Wgsl));
        assert_eq!(Lang::from_extension("py"), None);
        assert_eq!(Lang::from_fence("wgsl"), Some(Lang::Wgsl));
    }
}
