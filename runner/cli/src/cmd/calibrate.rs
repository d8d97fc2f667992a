//! `runner calibrate`: this machine's ceilings (streaming bandwidth, FP32
//! rate, launch overhead), printed beside the datasheet, and stored with the
//! GPU's recorded results on request.

use crate::args::{BackendArg, timing_backend};
use anyhow::{Result, bail};
use clap::Args;
use puzzle_core::assess::execute::Settings;
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use runner::perf::{self, record, roofline};
use runner::run::Runner;
use std::process::ExitCode;

/// Measure this machine's ceilings: streaming bandwidth, FP32 rate, launch overhead.
#[derive(Args)]
pub struct CalibrateArgs {
    /// Default: every backend that runs kernels on hardware here.
    #[arg(long, value_enum)]
    backend: Option<BackendArg>,
    /// Timed repetitions of each measurement.
    #[arg(long, default_value_t = 20)]
    samples: usize,
    /// Store the ceilings with this GPU's recorded results (results/<device>.json).
    #[arg(long)]
    save: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn execute(book: &Book, args: CalibrateArgs) -> Result<ExitCode> {
    let CalibrateArgs {
        backend,
        samples,
        save,
        json,
    } = args;
    let kinds = match backend {
        Some(backend) => vec![timing_backend(backend, "calibrate")?],
        // A simulator's timings say nothing about hardware: nothing to calibrate.
        None => BackendKind::ALL
            .into_iter()
            .filter(|k| !k.is_simulator())
            .collect(),
    };
    let runner = Runner::new(Settings::default());
    let mut measured_any = false;
    for kind in kinds {
        let backend = match runner.backend(kind) {
            Ok(b) if b.runs_kernels() => b,
            Ok(b) => {
                eprintln!(
                    "{kind}: not calibrated: {}",
                    b.compile_only().unwrap_or("kernels do not run here")
                );
                continue;
            }
            Err(e) => {
                eprintln!("{kind}: not calibrated: {e}");
                continue;
            }
        };
        let ceilings = perf::calibrate(backend, samples)?;
        measured_any = true;
        let device = backend.device();
        if json {
            println!("{}", serde_json::to_string_pretty(&ceilings)?);
        } else {
            println!("{}", device.label());
            if device.kind == "CPU" {
                println!(
                    "  note: a CPU adapter (lavapipe): these are the CPU's figures, not a GPU's"
                );
            }
            let spread = |m: &perf::Measured| {
                format!(
                    "median of {}, spread {:.1}%",
                    m.timing.samples,
                    m.timing.spread_pct()
                )
            };
            let sheet = roofline::datasheet_for(&device.name);
            println!(
                "  copy bandwidth:      {:>10.1} GB/s   (read + write; {}; {} bytes a launch){}",
                ceilings.bandwidth_gb_s.value,
                spread(&ceilings.bandwidth_gb_s),
                ceilings.stream_bytes,
                sheet
                    .map(|d| format!("   datasheet: {:.0} GB/s", d.bandwidth_gb_s))
                    .unwrap_or_default()
            );
            for (what, measured) in [
                ("read-only bandwidth: ", &ceilings.read_gb_s),
                ("write-only bandwidth:", &ceilings.write_gb_s),
            ] {
                if let Some(m) = measured {
                    println!("  {what}{:>10.1} GB/s   ({})", m.value, spread(m));
                }
            }
            println!(
                "  FP32 FMA rate:       {:>10.1} GFLOP/s ({}){}",
                ceilings.fp32_gflop_s.value,
                spread(&ceilings.fp32_gflop_s),
                sheet
                    .map(|d| format!("   datasheet: {:.0} GFLOP/s", d.fp32_gflop_s))
                    .unwrap_or_default()
            );
            println!(
                "  launch overhead:     {:>10.2} µs     (an empty kernel, device timer; {})",
                ceilings.launch_us.value,
                spread(&ceilings.launch_us)
            );
            println!(
                "  ridge point:         {:>10.2} FLOP/byte (under the copy's roof)",
                ceilings.ridge_point(perf::Traffic::ReadWrite)
            );
        }
        if save {
            if device.kind != "GPU" {
                eprintln!("{kind}: not saved: results/ keeps GPU figures only");
                continue;
            }
            let path =
                record::save_ceilings(&book.root.join(record::RESULTS_DIR), device, ceilings)?;
            eprintln!("saved in {}", path.display());
        }
    }
    if !measured_any {
        bail!("no backend here runs kernels: nothing to calibrate");
    }
    Ok(ExitCode::SUCCESS)
}
