//! A kernel as the book holds it: one source file per language, the solution
//! with the learner's region marked.
//!
//! - [`cut`]: the solution and the skeleton, cut from that one source;
//! - [`includes`]: a CUDA kernel's own headers written into it, and the
//!   limit on a kernel's size;
//! - [`constants`]: a case's constants written into the kernel's own
//!   definitions of them (tile sizes), before it is compiled.

pub mod constants;
pub mod cut;
pub mod includes;
