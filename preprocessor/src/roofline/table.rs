//! One row of a roofline table, formatted for the page.

use crate::roofline::rows::Row;
use puzzle_core::run::timing::format_ms;
use runner::perf::roofline::{self, Roof};

fn dash() -> String {
    "–".into()
}

/// The sizes column, present at bench sizes only.
fn sizes_cell(row: &Row) -> String {
    row.sizes
        .as_ref()
        .map(|s| format!(" {s} |"))
        .unwrap_or_default()
}

pub fn table_row(row: &Row) -> String {
    let intensity = row
        .flops
        .map(|f| format!("{:.3}", roofline::intensity(f, row.bytes)))
        .unwrap_or_else(dash);
    let flops = row.flops.map(|f| f.to_string()).unwrap_or_else(dash);
    let p = match &row.placement {
        Ok(p) => p,
        Err(why) => {
            let cells = if row.sizes.is_some() { 5 } else { 4 };
            return format!(
                "| `{}` |{} {flops} | {} | {intensity} | {why} |{}",
                row.id,
                sizes_cell(row),
                row.bytes,
                " |".repeat(cells)
            );
        }
    };
    let b = p.binding.as_ref();
    let bound = match (b.map(|b| b.roof), p.launch_bound) {
        (_, Some(true)) => "launch".to_string(),
        (Some(Roof::Memory), _) => "memory".into(),
        (Some(Roof::Compute), _) => "compute".into(),
        (None, _) => dash(),
    };
    // Benchmarks are large enough for one decimal; teaching sizes need four.
    let digits = if row.bench.is_some() { 1 } else { 4 };
    let mut time = format_ms(p.median_ms);
    if let Some(bench) = &row.bench {
        time.push_str(&format!(" ± {:.1}%", bench.timing.spread_pct()));
    }
    let mut line = format!(
        "| `{}` |{} {flops} | {} | {intensity} | {time} | {:.digits$} | {} | {bound} | {} |",
        row.id,
        sizes_cell(row),
        row.bytes,
        p.achieved_gb_s,
        p.achieved_gflop_s
            .map(|g| format!("{g:.digits$}"))
            .unwrap_or_else(dash),
        b.map(|b| format!("{:.digits$}%", b.percent))
            .unwrap_or_else(dash),
    );
    if let Some(bench) = &row.bench {
        line.push_str(&format!(" {} |", bench.checked.summary()));
    }
    line
}
