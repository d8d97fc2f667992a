//! A ```precision block: how the number formats rounded, as measured on the
//! GPU machines by `.ci/gpu/baseline/precision.py` (results/precision/*.json),
//! set out as tables. Nothing on the page is typed in: without a file, the
//! block says that nothing is recorded.
//!
//! ````markdown
//! ```precision
//! table: dot        # dot: error against length; sums: the additions alone; gemm: cuBLAS
//! ```
//! ````

use puzzle_core::quantity::thousands;
use serde::Deserialize;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Where the measurements live under a book's root.
pub fn dir(root: &Path) -> PathBuf {
    root.join("results").join("precision")
}

/// One GPU's measurements, as the script writes them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measured {
    pub device: String,
    pub software: String,
    pub date: String,
    /// Dot products computed at each length, per way.
    pub trials: u64,
    pub dot: Vec<DotRow>,
    pub gemm: Vec<GemmRow>,
}

/// The dot products of one length, computed one way.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DotRow {
    pub length: u64,
    /// The format the inputs were rounded to: fp32, tf32, bf16, fp16, fp8_e4m3.
    pub inputs: String,
    /// The format of the running sum: fp32, bf16, fp16.
    pub accumulate: String,
    pub median_error: f64,
    pub max_error: f64,
    pub median_sum_error: f64,
    pub max_sum_error: f64,
}

/// cuBLAS's product at one size in one format.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GemmRow {
    pub size: u64,
    pub format: String,
    pub max_error: f64,
}

/// Every GPU's measurements under `dir`; a file that does not parse is reported, not fatal.
pub fn load_all(dir: &Path) -> (Vec<Measured>, Vec<String>) {
    runner::perf::record::load_json_files(dir)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PrecisionBlock {
    table: Table,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Table {
    /// Error against the exact answer of the unrounded inputs, by length.
    Dot,
    /// Error of the additions alone (against the rounded inputs' exact answer).
    Sums,
    /// cuBLAS's products, by size.
    Gemm,
}

/// "BF16", "FP8 E4M3": a format as the page names it.
fn format_name(code: &str) -> String {
    match code {
        "fp8_e4m3" => "FP8 E4M3".to_string(),
        other => other.to_uppercase(),
    }
}

/// 2.4e-4, or 0 for an exact result.
fn error(v: f64) -> String {
    if v == 0.0 {
        "0".to_string()
    } else {
        format!("{v:.1e}")
    }
}

/// A ```precision block whose YAML does not read. The YAML error is in the
/// words and not a `source`, so a printed chain does not say it twice; it
/// is boxed because serde-saphyr's error is large.
#[derive(Debug, thiserror::Error)]
#[error("```precision block: {0}")]
pub struct PrecisionBlockError(Box<serde_saphyr::Error>);

/// The block rendered for every GPU measured: the first GPU's tables open,
/// the others' folded (the formats round the same on both; the library's
/// products may not).
pub fn render(yaml: &str, measured: &[Measured]) -> Result<String, PrecisionBlockError> {
    let block: PrecisionBlock =
        serde_saphyr::from_str(yaml).map_err(|e| PrecisionBlockError(Box::new(e)))?;
    if measured.is_empty() {
        return Ok(
            "<p class=\"puzzle-recorded\">No rounding measured on a GPU yet.</p>\n".to_string(),
        );
    }
    let mut md = String::from("<div class=\"puzzle-precision\">\n\n");
    for (i, m) in measured.iter().enumerate() {
        let title = format!("Measured on {} ({}), {}", m.device, m.software, m.date);
        let table = match block.table {
            Table::Dot => dot_table(m, false),
            Table::Sums => dot_table(m, true),
            Table::Gemm => gemm_table(m),
        };
        if i == 0 {
            let _ = write!(md, "**{title}.**\n\n{table}\n");
        } else {
            let _ = write!(
                md,
                "<details>\n<summary>{title}</summary>\n\n{table}\n</details>\n\n"
            );
        }
    }
    md.push_str("</div>\n\n");
    Ok(md)
}

/// Rows: the ways, in the order measured; columns: the lengths; cells: the
/// median error over the trials, and the largest (seven ways fit a laptop's
/// width as rows, not as columns).
fn dot_table(m: &Measured, sums_only: bool) -> String {
    let mut ways: Vec<(&str, &str)> = Vec::new();
    let mut lengths: Vec<u64> = Vec::new();
    for r in &m.dot {
        if !ways.contains(&(r.inputs.as_str(), r.accumulate.as_str())) {
            ways.push((&r.inputs, &r.accumulate));
        }
        if !lengths.contains(&r.length) {
            lengths.push(r.length);
        }
    }
    let mut md = format!(
        "Median error of {} dot products of each length, and (below it) the largest, as a \
         fraction of Σ |a<sub>k</sub> b<sub>k</sub>|. Each row names the inputs' format, then \
         the running sum's.\n\n<div class=\"puzzle-table\">\n\n| inputs, sum |",
        thousands(m.trials)
    );
    for n in &lengths {
        let _ = write!(md, " {} |", thousands(*n));
    }
    md.push_str("\n| --- |");
    md.push_str(&" ---: |".repeat(lengths.len()));
    md.push('\n');
    for (inputs, sum) in &ways {
        let _ = write!(md, "| {}, {} |", format_name(inputs), format_name(sum));
        for n in &lengths {
            let cell = m
                .dot
                .iter()
                .find(|r| r.length == *n && r.inputs == *inputs && r.accumulate == *sum)
                .map(|r| {
                    let (median, max) = if sums_only {
                        (r.median_sum_error, r.max_sum_error)
                    } else {
                        (r.median_error, r.max_error)
                    };
                    format!("{}<br><small>{}</small>", error(median), error(max))
                })
                .unwrap_or_else(|| "–".into());
            let _ = write!(md, " {cell} |");
        }
        md.push('\n');
    }
    md.push_str("\n</div>\n");
    md
}

/// Rows: sizes; columns: formats; cells: the largest error over the largest output.
fn gemm_table(m: &Measured) -> String {
    let mut formats: Vec<&str> = Vec::new();
    let mut sizes: Vec<u64> = Vec::new();
    for r in &m.gemm {
        if !formats.contains(&r.format.as_str()) {
            formats.push(&r.format);
        }
        if !sizes.contains(&r.size) {
            sizes.push(r.size);
        }
    }
    let mut md = String::from(
        "cuBLAS's product (`torch.mm`) of two SIZE × SIZE matrices, FP32 accumulation: the \
         largest error on 64 rows as a fraction of the largest output.\n\n\
         <div class=\"puzzle-table\">\n\n| SIZE |",
    );
    for f in &formats {
        let _ = write!(md, " {} |", format_name(f));
    }
    md.push_str("\n| ---: |");
    md.push_str(&" ---: |".repeat(formats.len()));
    md.push('\n');
    for size in &sizes {
        let _ = write!(md, "| {} |", thousands(*size));
        for f in &formats {
            let cell = m
                .gemm
                .iter()
                .find(|r| r.size == *size && r.format == *f)
                .map_or("–".to_string(), |r| error(r.max_error));
            let _ = write!(md, " {cell} |");
        }
        md.push('\n');
    }
    md.push_str("\n</div>\n");
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(device: &str) -> Measured {
        let dot = |length, inputs: &str, accumulate: &str, e| DotRow {
            length,
            inputs: inputs.into(),
            accumulate: accumulate.into(),
            median_error: e,
            max_error: 10.0 * e,
            median_sum_error: e / 100.0,
            max_sum_error: 0.0,
        };
        Measured {
            device: device.into(),
            software: "PyTorch 2.11".into(),
            date: "2026-11-24".into(),
            trials: 4096,
            dot: vec![
                dot(64, "fp32", "fp32", 1.21e-8),
                dot(64, "bf16", "bf16", 8.2e-4),
                dot(4096, "fp32", "fp32", 1.17e-8),
            ],
            gemm: vec![GemmRow {
                size: 8192,
                format: "fp8_e4m3".into(),
                max_error: 2.7e-3,
            }],
        }
    }

    #[test]
    fn tables_from_the_measurements() {
        let both = [measured("NVIDIA H100"), measured("NVIDIA H200")];
        let dot = render("table: dot", &both).unwrap();
        assert!(dot.contains("| inputs, sum | 64 | 4,096 |"), "{dot}");
        assert!(
            dot.contains(
                "| FP32, FP32 | 1.2e-8<br><small>1.2e-7</small> | 1.2e-8<br><small>1.2e-7</small> |"
            ),
            "{dot}"
        );
        assert!(
            dot.contains("| BF16, BF16 | 8.2e-4<br><small>8.2e-3</small> | – |"),
            "{dot}"
        );
        assert!(dot.contains("**Measured on NVIDIA H100"));
        assert!(
            dot.contains("<summary>Measured on NVIDIA H200"),
            "the second GPU folded"
        );
        let sums = render("table: sums", &both[..1]).unwrap();
        assert!(
            sums.contains("| FP32, FP32 | 1.2e-10<br><small>0</small> |"),
            "{sums}"
        );
        let gemm = render("table: gemm", &both[..1]).unwrap();
        assert!(gemm.contains("| SIZE | FP8 E4M3 |"), "{gemm}");
        assert!(gemm.contains("| 8,192 | 2.7e-3 |"), "{gemm}");
        assert!(
            render("table: dot", &[])
                .unwrap()
                .contains("No rounding measured on a GPU yet")
        );
        assert!(render("table: tensor", &both).is_err());
        assert!(render("table: dot\nextra: 1", &both).is_err());
    }
}
