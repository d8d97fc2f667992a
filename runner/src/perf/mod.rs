//! Performance: what a kernel's time means.
//!
//! - [`calibrate`]: a device's ceilings (streaming bandwidth, FP32 rate, launch overhead);
//! - [`bench`]: a puzzle's solution timed at any size, on [`inputs`] a library can be timed on too;
//! - [`roofline`]: a time placed under the ceilings, and datasheet peaks beside them;
//! - [`chart`]: the roofline as SVG, its numbers placed by [`chart_labels`];
//! - [`baseline`]: a vendor library timed on the same GPU;
//! - [`roofline_block`]: a page's ```roofline block (YAML), and [`targets`]:
//!   what the pages ask of one kernel, and [`standing`]: a learner's kernel
//!   against the solution and those targets (`runner bench --file`);
//! - [`record`]: GPU results kept in committed files;
//! - [`date`]: how they are dated.

pub mod baseline;
pub mod bench;
pub mod calibrate;
pub mod chart;
pub mod chart_labels;
pub mod date;
pub mod inputs;
pub mod record;
pub mod roofline;
pub mod roofline_block;
pub mod standing;
pub mod targets;
