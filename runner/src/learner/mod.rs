//! The learner's loop: edit a copy of a skeleton, save, and be told what is wrong.
//!
//! - [`workspace`]: `.learner/`, the learner's own copy of every skeleton;
//! - [`check`]: that copy checked on this machine (the verdict and its
//!   words are the core's);
//! - [`render`]: the report as coloured text;
//! - [`fit`]: prose wrapped to the terminal's width;
//! - [`draw`]: the access diagram of their WGSL copy, beside it;
//! - [`default_lang`]: the language a command works in when none is named;
//! - [`progress`]: which puzzles pass, and how many tips were shown;
//! - [`order`]: the order puzzles are met in, and the next unsolved one.

pub mod check;
pub mod default_lang;
pub mod draw;
pub mod fit;
pub mod former_names;
pub mod order;
pub mod progress;
pub mod render;
pub mod workspace;
