//! `puzzle-web`: the published book's playground. The core and the CPU
//! checker, compiled to WebAssembly, check a reader's WGSL kernel in the
//! page (in a Web Worker, so a kernel that never ends cannot freeze it),
//! with the same spec, poison, guard bands, stress sizes and words as
//! `runner check`. Where the browser has WebGPU, the page runs the same
//! buffers on the reader's GPU and this crate judges what came back.
//!
//! ```text
//! page's bundle ─playground─▶ Puzzle ─check─▶ CheckReport (JSON) ─worker.js─▶ the page
//!                                    ─gpu::plan─▶ buffers, launches ─WebGPU─▶ bytes ─gpu::check─▶ CheckReport
//! ```
//!
//! - [`playground`]: a puzzle read from its bundle; the checker's verdict;
//! - [`gpu`]: what the page sends to WebGPU, and the judging of what came back;
//! - `bindings` (WebAssembly only): the same, as JavaScript sees it.
//!
//! Everything but `bindings` builds natively, so the tests call the very
//! functions the page calls.

pub mod gpu;
pub mod playground;

#[cfg(target_arch = "wasm32")]
mod bindings;
