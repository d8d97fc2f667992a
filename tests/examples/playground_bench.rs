//! The playground's budgets, measured: a benchmark, not a test.
//!
//! - the checker's download: the WebAssembly module as published, raw and
//!   gzip-compressed (budget: 3 MB compressed);
//! - the verdict's delay: from pressing Check to the checker's verdict on
//!   the page, for every WGSL puzzle's solution, in headless Chromium on this
//!   machine (budget: 300 ms). The page shows the teaching size's verdict
//!   first, then runs every stress size, as `runner check` does: both delays
//!   are measured. The first check of a page is reported apart (cold).
//!
//! ```console
//! cargo run -p book-tests --example playground_bench [-- RUNS]
//! ```
//!
//! The checker is an interpreter running on this machine's CPU: the times
//! measure the CPU, one core of it (a Web Worker).

use book_tests::drive::{self, eval, wait_for};
use book_tests::{chromium, root, serve};
use puzzle_core::lang::Lang;
use std::time::Duration;

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2.0
    }
}

fn main() -> Result<(), String> {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let out = drive::publish()?;
    let wasm = out.path().join("playground/puzzle_web_bg.wasm");
    let raw = std::fs::metadata(&wasm).map_err(|e| e.to_string())?.len();
    let gz = std::process::Command::new("gzip")
        .args(["-9", "-c"])
        .arg(&wasm)
        .output()
        .map_err(|e| format!("gzip: {e}"))?
        .stdout
        .len();
    println!(
        "checker download: {:.2} MB, {:.2} MB gzip-compressed (budget 3 MB compressed)",
        raw as f64 / 1e6,
        gz as f64 / 1e6
    );

    let port = serve(out.path().to_path_buf());
    let browser = drive::browser(chromium()?, false)?;
    let book = runner::book::load(&root()).map_err(|e| format!("{e:?}"))?;
    let src = root().join("src");
    println!("\nfrom Check to the checker's verdict, {runs} checks of each solution (ms):");
    println!(
        "{:<28} {:>6} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8}",
        "puzzle", "sizes", "cold", "teaching", "min", "max", "all", "max"
    );
    println!(
        "{:<28} {:>6} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8}",
        "", "", "", "median", "", "", "median", ""
    );
    let mut medians = Vec::new();
    let mut whole = Vec::new();
    for puzzle in &book.puzzles {
        let Some(kernel) = puzzle.kernel(Lang::Wgsl) else {
            continue;
        };
        let page = puzzle
            .chapter
            .strip_prefix(&src)
            .unwrap_or(&puzzle.chapter)
            .with_extension("html");
        let tab = browser.new_tab().map_err(|e| e.to_string())?;
        let url = format!("http://127.0.0.1:{port}/{}", page.display());
        tab.navigate_to(&url)
            .and_then(|t| t.wait_until_navigated())
            .map_err(|e| format!("{url}: {e}"))?;
        let b = format!(
            "document.querySelector('.puzzle-playground[data-puzzle=\"{}\"]')",
            puzzle.id()
        );
        wait_for(
            &tab,
            &format!("{b} && {b}.querySelector('.playground-open')"),
            Duration::from_secs(30),
            "the page",
        )?;
        eval(
            &tab,
            &format!("JSON.stringify(({b}.querySelector('.playground-open').click(), 0))"),
        )?;
        let ready =
            format!("{b}.playground && {b}.playground.start && !{b}.playground.check.disabled");
        wait_for(&tab, &ready, Duration::from_secs(60), "the checker loading")?;
        let text = serde_json::to_string(&kernel.solution().text).map_err(|e| e.to_string())?;
        let (mut samples, mut teaching) = (Vec::new(), Vec::new());
        for _ in 0..=runs {
            eval(
                &tab,
                &format!(
                    "JSON.stringify((() => {{ const a = {b}.querySelector('textarea'); a.value = {text}; \
                     a.dispatchEvent(new Event('input')); \
                     {b}.querySelector('.playground-check').click(); return 0; }})())"
                ),
            )?;
            wait_for(
                &tab,
                &format!("{b}.dataset.verdictMs && {b}.playground.stop.disabled"),
                Duration::from_secs(120),
                "the verdict",
            )?;
            let ms = eval(
                &tab,
                &format!(
                    "JSON.stringify([Number({b}.dataset.teachingMs), Number({b}.dataset.verdictMs)])"
                ),
            )?;
            let verdict = eval(
                &tab,
                &format!(
                    "JSON.stringify({b}.querySelector('.playground-report .puzzle-verdict').textContent)"
                ),
            )?;
            if !verdict.as_str().unwrap_or_default().starts_with("PASS") {
                return Err(format!(
                    "{}: the solution did not pass: {verdict}",
                    puzzle.id()
                ));
            }
            let at = |i: usize| ms[i].as_f64().unwrap_or(f64::NAN);
            teaching.push(at(0));
            samples.push(at(1));
        }
        let cold = samples.remove(0);
        teaching.remove(0);
        let m = median(&mut samples);
        let t = median(&mut teaching);
        println!(
            "{:<28} {:>6} {:>8.1} {:>9.1} {:>8.1} {:>8.1} {:>8.1} {:>8.1}",
            puzzle.id(),
            puzzle_core::assess::cases::cases(&puzzle.spec, true).len(),
            cold,
            t,
            teaching[0],
            teaching[teaching.len() - 1],
            m,
            samples[samples.len() - 1]
        );
        medians.push((t, puzzle.id().to_string()));
        whole.push(m);
        let _ = tab.close(true);
    }
    medians.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut values: Vec<f64> = medians.iter().map(|m| m.0).collect();
    let over: Vec<String> = medians
        .iter()
        .filter(|m| m.0 > 300.0)
        .map(|m| format!("{} ({:.0} ms)", m.1, m.0))
        .collect();
    let slowest_whole = whole.iter().copied().fold(0.0, f64::max);
    println!(
        "\nthe whole check (every stress size too): median of medians {:.1} ms, slowest {:.1} ms",
        median(&mut whole),
        slowest_whole
    );
    println!(
        "the teaching size's verdict, {} puzzles: median of medians {:.1} ms, fastest {:.1} ms, slowest {:.1} ms ({}); over the 300 ms budget: {}",
        values.len(),
        median(&mut values),
        medians.first().map_or(0.0, |m| m.0),
        medians.last().map_or(0.0, |m| m.0),
        medians.last().map_or("", |m| m.1.as_str()),
        if over.is_empty() {
            "none".to_string()
        } else {
            over.join(", ")
        }
    );
    Ok(())
}
