//! The playground as JavaScript sees it (wasm-bindgen). Reports cross as
//! JSON text (the CLI's `--json` shape, `docs/LEARNER.md`); buffers cross as
//! byte arrays. The clock is the page's: std has none in a browser.

use crate::gpu::{GpuRun, Plan, browser_device};
use crate::playground::{Playground, TIMEOUT};
use puzzle_core::backend_contract::timing::{Clock, Timing};
use puzzle_core::wgsl::checker::SimBackend;
use std::time::Duration;
use wasm_bindgen::prelude::*;

/// Milliseconds since 1970 from JavaScript's `Date.now()`; the checker
/// only subtracts two readings, to stop a kernel that runs too long.
fn page_clock() -> Duration {
    Duration::from_secs_f64(js_sys::Date::now() / 1000.0)
}

fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

/// One WGSL puzzle of the page.
#[wasm_bindgen]
pub struct Puzzle(Playground);

#[wasm_bindgen]
impl Puzzle {
    /// Reads the bundle (JSON) the page carries; a bundle that does not
    /// read is an error in words.
    #[wasm_bindgen(constructor)]
    pub fn new(bundle: &str) -> Result<Puzzle, JsError> {
        Playground::open(bundle)
            .map(Puzzle)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// What the page shows first: the skeleton, its file name, the sizes (JSON).
    pub fn start(&self) -> String {
        json(&self.0.start())
    }

    /// The CPU checker's report on `text` (JSON), as `runner check --backend
    /// sim --json` gives it; without `stress`, at the teaching size alone.
    pub fn check(&self, text: &str, stress: bool) -> String {
        let checker = SimBackend::with_seed(0).with_clock(page_clock);
        json(&self.0.check(text, &checker, TIMEOUT, stress))
    }

    /// Who read and wrote which element at the teaching size (SVG); an
    /// error says why there is no picture.
    pub fn draw(&self, text: &str) -> Result<String, JsError> {
        let checker = SimBackend::with_seed(0).with_clock(page_clock).with_trace();
        self.0
            .draw(text, &checker, TIMEOUT)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// How many sizes a check runs at.
    pub fn sizes(&self) -> usize {
        self.0.cases().len()
    }

    /// What to hand WebGPU for size `case`; an error says why nothing should be.
    pub fn gpu_plan(&self, text: &str, case: usize) -> Result<GpuPlan, JsError> {
        self.0
            .gpu_plan(text, case)
            .map(GpuPlan)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The verdict on what the reader's GPU (`device`, a CPU where `cpu`)
    /// made of `text`, and the teaching size's timing where the adapter has
    /// timestamps (JSON: `{report, timing}`).
    pub fn gpu_check(&self, text: &str, device: &str, cpu: bool, runs: &GpuRuns) -> String {
        let report = self.0.gpu_check(text, browser_device(device, cpu), &runs.0);
        let timing = runs
            .0
            .first()
            .and_then(|run| Timing::from_samples(Clock::Device, &run.samples_ms));
        json(&serde_json::json!({ "report": report, "timing": timing }))
    }
}

/// What to hand WebGPU for one size.
#[wasm_bindgen]
pub struct GpuPlan(Plan);

#[wasm_bindgen]
impl GpuPlan {
    /// The kernel, launches and bindings (JSON).
    pub fn json(&self) -> String {
        json(&self.0)
    }

    /// Binding `index`'s starting bytes.
    pub fn contents(&self, index: usize) -> Vec<u8> {
        self.0.contents.get(index).cloned().unwrap_or_default()
    }
}

/// What the page read back, size by size.
#[wasm_bindgen]
#[derive(Default)]
pub struct GpuRuns(Vec<GpuRun>);

#[wasm_bindgen]
impl GpuRuns {
    #[wasm_bindgen(constructor)]
    pub fn new() -> GpuRuns {
        GpuRuns::default()
    }

    /// Starts the next size's read-back.
    pub fn next_size(&mut self) {
        self.0.push(GpuRun::default());
    }

    /// The next buffer's bytes (data, then guard band), in argument order.
    pub fn buffer(&mut self, bytes: Vec<u8>) {
        if let Some(run) = self.0.last_mut() {
            run.buffers.push(bytes);
        }
    }

    /// Timestamp-query times of the repeated runs, in ms.
    pub fn samples(&mut self, ms: Vec<f64>) {
        if let Some(run) = self.0.last_mut() {
            run.samples_ms = ms;
        }
    }

    /// What WebGPU said instead of running.
    pub fn error(&mut self, message: &str) {
        if let Some(run) = self.0.last_mut() {
            run.error = Some(message.to_string());
        }
    }
}
