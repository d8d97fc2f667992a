//! Performance: what a kernel's time means. A facade: its files are private
//! to the crate but for three whole surfaces, [`chart`], [`roofline`] and
//! [`record`]; what else the command line and the preprocessor's pages use
//! is re-exported here.
//!
//! - `calibrate`: a device's [`Ceilings`] (streaming bandwidth, FP32 rate,
//!   launch overhead; [`calibrate()`], [`Measured`], [`Traffic`]);
//! - `bench`: a puzzle's solution timed at any size ([`bench()`],
//!   [`Options`], [`BenchReport`], [`Checked`]), on `inputs` a library can
//!   be timed on too ([`BenchInputs`], [`write_inputs`]);
//! - [`roofline`]: a time placed under the ceilings, and datasheet peaks beside them;
//! - [`chart`]: the roofline as SVG, its numbers placed by `chart_labels`;
//! - `baseline`: a vendor library timed on the same GPU ([`Baseline`],
//!   [`BaselineCase`], [`comparable`], [`load_baselines`] from
//!   [`baselines_dir`]);
//! - `roofline_block`: a page's ```roofline block (YAML: [`RooflineBlock`]),
//!   and `targets`: what the pages ask of one kernel ([`targets()`]), and
//!   `standing`: a learner's kernel against the solution and those targets
//!   (`runner bench --file`: [`Standing`]);
//! - [`record`]: GPU results kept in committed files;
//! - `date`: how they are dated.

pub(crate) mod baseline;
pub(crate) mod bench;
pub(crate) mod calibrate;
pub mod chart;
pub(crate) mod chart_labels;
pub(crate) mod date;
pub(crate) mod inputs;
pub mod record;
pub mod roofline;
pub(crate) mod roofline_block;
pub(crate) mod standing;
pub(crate) mod targets;

pub use baseline::{
    Baseline, BaselineCase, NotComparable, comparable, dir as baselines_dir,
    load_all as load_baselines,
};
pub use bench::{BenchReport, Checked, Options, bench};
pub use calibrate::{Ceilings, Measured, Traffic, calibrate};
pub use inputs::{BenchInputs, write as write_inputs};
pub use roofline_block::{BaselineRef, BlockError, RooflineBlock, Sizes, Speedup, Target};
pub use standing::Standing;
pub use targets::targets;
