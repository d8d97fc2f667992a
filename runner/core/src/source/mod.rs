//! Source text and where it came from: every line of a kernel remembers its
//! file and line, through `{{#include}}` and the skeleton cut, so every
//! message a user sees points at the line to fix.
//!
//! - [`diag`]: a message located at a file and line;
//! - [`text`]: text whose lines know their origins;
//! - [`include`]: mdBook's `{{#include}}`, expanded through a [`include::Files`] the caller provides.

pub mod diag;
pub mod include;
pub mod text;
