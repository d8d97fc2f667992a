//! A roofline block's tables. The compact one, on the page: the kernel, its
//! time, the rate that counts and its share of the roof. The full one,
//! folded under "how this was measured": the kernel (and at the bench
//! sizes, its size), what was measured (time, GB/s, GFLOP/s, share of the
//! roof), then what the spec says (FLOPs, bytes), with large counts in
//! decimal units.

use crate::roofline::rows::Row;
use puzzle_core::backend_contract::timing::format_ms;
use puzzle_core::quantity::si;
use runner::perf::bench::Checked;
use runner::perf::roofline::{self, Roof};

fn dash() -> String {
    "–".into()
}

/// Why a row has no measurement, in a cell that wraps: the other cells keep
/// their numbers on one line, but a sentence ("cannot launch: buffer `s`
/// needs 4294968320 bytes …") on one line would stretch the table far past
/// the column.
fn why_cell(why: &impl std::fmt::Display) -> String {
    format!("<span class=\"puzzle-why\">{why}</span>")
}

/// The header and alignment rows; `bench` adds the sizes (beside the
/// kernel) and output columns.
pub fn header(bench: bool) -> String {
    let (sizes, sizes_rule, output, output_rule) = if bench {
        (" sizes |", " --- |", " output |", " --- |")
    } else {
        ("", "", "", "")
    };
    format!(
        "| kernel |{sizes} median time | GB/s | GFLOP/s | % of roof | bound | FLOPs | fewest bytes | FLOP/byte |{output}\n\
         | --- |{sizes_rule} ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |{output_rule}"
    )
}

/// A rate with the digits that matter: `45,688`, `98.2`, `3.14`, `0.00690`.
pub fn rate(v: f64) -> String {
    if v >= 1000.0 {
        puzzle_core::quantity::thousands(v.round() as u64)
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else if v > 0.0 {
        // Three significant digits.
        let digits = (2.0 - v.log10().floor()) as usize;
        format!("{v:.digits$}")
    } else {
        "0".into()
    }
}

/// The output column: a mark, with the detail (a sample's size, the
/// problems) kept short; the full problems follow the table.
fn output_cell(checked: &Checked) -> String {
    match checked {
        Checked::Passed => "✔".into(),
        Checked::Failed(_) => "✘ wrong".into(),
        Checked::Skipped(_) => "not checked".into(),
        Checked::Sampled { outputs, of } => {
            format!("✔ {} of {}", si(*outputs as f64), si(*of as f64))
        }
    }
}

pub fn table_row(row: &Row) -> String {
    let intensity = row
        .flops
        .map(|f| format!("{:.3}", roofline::intensity(f, row.bytes)))
        .unwrap_or_else(dash);
    let flops = row.flops.map(|f| si(f as f64)).unwrap_or_else(dash);
    // At the bench sizes a kernel has a row per size: the size names the
    // row, so it stands next to the kernel.
    let kernel = match &row.sizes {
        Some(sizes) => format!("| `{}` | {sizes} |", row.id),
        None => format!("| `{}` |", row.id),
    };
    let spec_cells = format!(" {flops} | {} | {intensity} |", si(row.bytes as f64));
    let output = row
        .bench
        .as_ref()
        .map(|b| format!(" {} |", output_cell(&b.checked)))
        .unwrap_or_default();
    let p = match &row.placement {
        Ok(p) => p,
        Err(why) => {
            // A bench row without a benchmark leaves its output cell empty.
            let output = if row.sizes.is_some() { " |" } else { "" };
            return format!("{kernel} {} | | | | |{spec_cells}{output}", why_cell(why));
        }
    };
    let b = p.binding.as_ref();
    let bound = match (b.map(|b| b.roof), p.launch_bound) {
        (_, Some(true)) => "launch".to_string(),
        (Some(Roof::Memory), _) => match b.and_then(|b| b.traffic) {
            Some(t) => format!("memory ({})", t.label()),
            None => "memory".into(),
        },
        (Some(Roof::Compute), _) => "compute".into(),
        (None, _) => dash(),
    };
    let mut time = format_ms(p.median_ms);
    if let Some(bench) = &row.bench {
        time.push_str(&format!(" ± {:.1}%", bench.timing.spread_pct()));
    }
    format!(
        "{kernel} {time} | {} | {} | {} | {bound} |{spec_cells}{output}",
        rate(p.achieved_gb_s),
        p.achieved_gflop_s.map(rate).unwrap_or_else(dash),
        b.map(|b| format!("{:.1}%", b.percent)).unwrap_or_else(dash),
    )
}

/// The compact table a reader compares: the kernel (its sizes under its
/// name), the time, the rate that counts (GFLOP/s where the compute roof
/// binds, else GB/s), the share of that roof and, at bench sizes, the
/// output's check. Four or five columns: it fits the text column. The full
/// counts are in [`header`]'s table, folded under "how this was measured".
pub fn compact_header(bench: bool) -> String {
    let (output, output_rule) = if bench {
        (" output |", " :---: |")
    } else {
        ("", "")
    };
    format!(
        "| kernel | time | rate | % of roof |{output}\n\
         | --- | ---: | ---: | --- |{output_rule}"
    )
}

pub fn compact_row(row: &Row) -> String {
    let kernel = match &row.sizes {
        Some(sizes) => format!("| `{}`<br><small>{sizes}</small> |", row.id),
        None => format!("| `{}` |", row.id),
    };
    // The mark, and what a sampled check covered in small type under it.
    let output = row
        .bench
        .as_ref()
        .map(|b| match output_cell(&b.checked).split_once(' ') {
            Some((mark, detail)) => format!(" {mark}<br><small>{detail}</small> |"),
            None => format!(" {} |", output_cell(&b.checked)),
        })
        .unwrap_or_default();
    let p = match &row.placement {
        Ok(p) => p,
        Err(why) => {
            let output = if row.sizes.is_some() { " |" } else { "" };
            return format!("{kernel} {} | | |{output}", why_cell(why));
        }
    };
    let b = p.binding.as_ref();
    let rate_cell = match (b.map(|b| b.roof), p.achieved_gflop_s) {
        (Some(Roof::Compute), Some(gflop_s)) => format!("{} GFLOP/s", rate(gflop_s)),
        _ => format!("{} GB/s", rate(p.achieved_gb_s)),
    };
    let share = match (b, p.launch_bound) {
        (_, Some(true)) => "launch-bound".to_string(),
        (Some(b), _) => {
            let roof = match (b.roof, b.traffic) {
                (Roof::Compute, _) => "compute".to_string(),
                (Roof::Memory, Some(t)) => format!("memory, {}", t.label()),
                (Roof::Memory, None) => "memory".to_string(),
            };
            format!("{:.1}%<br><small>{roof}</small>", b.percent)
        }
        (None, _) => dash(),
    };
    let mut time = format_ms(p.median_ms);
    if let Some(bench) = &row.bench {
        time.push_str(&format!(
            "<br><small>± {:.1}%</small>",
            bench.timing.spread_pct()
        ));
    }
    format!("{kernel} {time} | {rate_cell} | {share} |{output}")
}

/// The problems of benchmarks whose output was wrong, for under the table.
pub fn wrong_outputs(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .filter_map(|r| {
            let Checked::Failed(problems) = &r.bench.as_ref()?.checked else {
                return None;
            };
            Some(format!(
                "`{}` at {}: WRONG: {}",
                r.id,
                r.sizes.as_deref().unwrap_or("the teaching size"),
                problems.join("; ")
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_table() {
        for (v, text) in [
            (45688.2, "45,688"),
            (3910.8, "3,911"),
            (162.0, "162"),
            (98.24, "98.2"),
            (3.25678, "3.26"),
            (0.0069, "0.00690"),
            (0.2003, "0.200"),
            (0.0, "0"),
        ] {
            assert_eq!(rate(v), text, "{v}");
        }
    }

    #[test]
    fn header_and_rows_have_the_same_columns() {
        let cells = |line: &str| line.matches('|').count();
        for bench in [false, true] {
            for header in [header(bench), compact_header(bench)] {
                let mut lines = header.lines();
                assert_eq!(cells(lines.next().unwrap()), cells(lines.next().unwrap()));
            }
        }
    }
}
