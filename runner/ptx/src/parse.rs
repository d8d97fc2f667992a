//! PTX text to a [`Module`]. (Being written.)
use crate::launch::Error;

/// A parsed PTX module.
#[derive(Debug, Clone, Default)]
pub struct Module {
    pub entries: Vec<String>,
}

impl Module {
    pub fn parse(_text: &str) -> Result<Module, Error> {
        Ok(Module::default())
    }

    /// The first instruction reachable from `entry` that the checker does
    /// not implement, with its source line (0: unknown); `None` when it can run.
    pub fn unsupported(&self, _entry: &str) -> Option<(String, usize)> {
        None
    }
}
