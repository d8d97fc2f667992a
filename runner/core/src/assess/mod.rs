//! Assessing a kernel: the one path from a kernel to its report, the sizes it
//! is run at, and the learner's verdict in words (the learner's check).
//!
//! - [`execute`]: one run, judged (every front end's runs go through it);
//! - [`cases`]: the teaching size, then the stress sizes, in order;
//! - [`input`]: the learner's file as a kernel, or why it cannot be one;
//! - [`learner`]: the learner's check, [`learner::CheckReport`]: verdict,
//!   findings and what to do next.

pub mod cases;
pub mod execute;
pub mod input;
pub mod learner;
