//! The learner's loop: edit a copy of a skeleton, save, and be told what is
//! wrong. A facade: its files are private to the crate, and what the command
//! line (and the preprocessor, and the tests) use is re-exported here.
//!
//! - `workspace`: `.learner/` ([`WORKSPACE_DIR`]), the learner's own copy of
//!   every skeleton ([`Workspace`]; [`file_name`]: a copy's name);
//! - `check`: that copy checked on this machine ([`check`]; the verdict and
//!   its words are the core's);
//! - `render`: the report as coloured text ([`render`]);
//! - `fit`: prose wrapped to the terminal's width ([`fit`], [`fit_report`],
//!   [`width`]);
//! - `draw`: the access diagram of their WGSL copy, beside it ([`draw`],
//!   [`diagram_path`]);
//! - `default_lang`: the language a command works in when none is named
//!   ([`default_lang`], from [`Facts`]);
//! - `progress`: which puzzles pass, and how many tips were shown
//!   ([`ProgressFile`], [`Mark`], [`Saved`]);
//! - `order`: the order puzzles are met in, and the next unsolved one
//!   ([`learning_order`], [`next_unsolved`]);
//! - `former_names`: the names the book used before, so a learner's copies
//!   follow a rename ([`FORMER_FILES`], [`FORMER_IDS`]: for the tests).

pub(crate) mod check;
pub(crate) mod default_lang;
pub(crate) mod draw;
pub(crate) mod fit;
pub(crate) mod former_names;
pub(crate) mod order;
pub(crate) mod progress;
pub(crate) mod render;
pub(crate) mod workspace;

pub use check::check;
pub use default_lang::{Facts, default_lang};
pub use draw::{diagram_path, draw};
pub use fit::{fit, fit_report, width};
pub use former_names::{FILES as FORMER_FILES, IDS as FORMER_IDS};
pub use order::{learning_order, next_unsolved};
pub use progress::{Mark, ProgressFile, Saved};
pub use render::render;
pub use workspace::{DIR as WORKSPACE_DIR, Workspace, file_name};
