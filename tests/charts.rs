//! The book's charts as a reader meets them (issue 60, "Charts for
//! people"): the roofline charts of Puzzles 15 and 35 and the bus chart of
//! Puzzle 39, in headless Chromium at a laptop's width (1280 px) and a
//! phone's (390 px). At each width, every chart shown:
//!
//! - has its words at 12 px or more as drawn on the screen (the font size
//!   in the SVG's units times the scale the page draws the SVG at);
//! - has no two words whose boxes meet;
//! - has an accessible name (`role="img"` and an `aria-label`) and a `<title>`;
//! - names its kernels in a legend whose names are never broken across lines;
//!
//! and each chart shows one of its two drawings (a laptop's, a phone's).
//!
//! Each tab sets its viewport to the width (a headless window is not made
//! narrower than about 500 px), and a page not at the width asked fails.
//!
//! The real book is built by the real `mdbook` (or, to look again at a book
//! already built, GPU_PUZZLES_CHARTS_BOOK=/path/to/built/book). Without
//! Chromium the trials are reported as skipped, with the reason.

use book_tests::{chromium, served_book, set_viewport};
use headless_chrome::{Browser, LaunchOptions, Tab};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use std::sync::LazyLock;
use std::time::Duration;

/// The pages with the most charts of each kind.
const PAGES: [&str; 3] = [
    "performance/p15_access_5_tiles.html",
    "tensor/p35_gemm.html",
    "multigpu/p39_all_reduce_ring.html",
];

/// A laptop's width and a phone's.
const WIDTHS: [u32; 2] = [1280, 390];

/// The smallest text a reader is asked to read, in CSS pixels.
const LEAST_PX: f64 = 12.0;

/// The built book's folder (kept alive for the run) and its server's port.
static BOOK: LazyLock<Result<(Option<tempfile::TempDir>, u16), String>> =
    LazyLock::new(|| served_book("GPU_PUZZLES_CHARTS_BOOK"));

/// What is wrong with each chart shown: its words' sizes on the screen, words
/// on each other, a missing name, legend names broken across lines.
const CHARTS: &str = r#"JSON.stringify((() => {
  const main = document.querySelector('main');
  const opened = [...main.querySelectorAll('details')].filter(d => !d.open);
  opened.forEach(d => d.open = true);
  const faults = [];
  const charts = [...main.querySelectorAll('figure.puzzle-chart svg')];
  const shown = charts.filter(svg => svg.checkVisibility());
  // A chart is drawn for a laptop's column and for a phone's: one of them shows.
  main.querySelectorAll('figure.puzzle-chart').forEach((figure, i) => {
    const drawn = [...figure.querySelectorAll('svg')].filter(svg => svg.checkVisibility()).length;
    if (drawn !== 1) faults.push(`figure ${i + 1}: ${drawn} drawings of its chart show`);
  });
  charts.forEach((svg, i) => {
    const name = `chart ${i + 1}`;
    const label = (svg.getAttribute('aria-label') || '').trim();
    if (svg.getAttribute('role') !== 'img' || !label) {
      faults.push(`${name}: no accessible name (role="img" and an aria-label)`);
    }
    const title = svg.querySelector(':scope > title');
    if (!title || !title.textContent.trim()) faults.push(`${name}: no <title>`);
    if (!svg.checkVisibility()) return;
    const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim());
    for (const t of texts) {
      // The scale the page draws the text at: the length of the unit x
      // vector of its transform to the screen, whatever its rotation.
      const m = t.getScreenCTM();
      const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
      if (!(px >= LEAST - 0.05)) {
        faults.push(`${name}: "${t.textContent.trim().slice(0, 30)}" is ${px.toFixed(1)} px`);
      }
    }
    const boxes = texts.map(t => [t.textContent.trim().slice(0, 30), t.getBoundingClientRect()]);
    boxes.forEach(([a, ra], k) => boxes.slice(k + 1).forEach(([b, rb]) => {
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 0.5 && h > 0.5) faults.push(`${name}: "${a}" and "${b}" overlap`);
    }));
    // A kernel's name in the legend is on one line, or the reader meets
    // half a name ("p19_sgemm_s", then "hared").
    const figure = svg.closest('figure');
    for (const code of figure.querySelectorAll('figcaption code')) {
      if (code.checkVisibility() && code.getClientRects().length > 1) {
        faults.push(`${name}: the legend breaks "${code.textContent}" across lines`);
      }
    }
  });
  opened.forEach(d => d.open = false);
  return { width: innerWidth, charts: charts.length, shown: shown.length, faults };
})())"#;

/// Opens `page` in a tab whose viewport is `width` px wide and returns the
/// faults of its charts.
fn check(browser: &Browser, port: u16, page: &str, width: u32) -> Result<(), Failed> {
    let tab = browser.new_tab().map_err(|e| e.to_string())?;
    let found = inspect(&tab, &format!("http://127.0.0.1:{port}/{page}"), width);
    let _ = tab.close(true);
    let found = found?;
    let seen = found["width"].as_u64().unwrap_or(0);
    if seen != u64::from(width) {
        return Err(format!("{page}: the page is {seen} px wide, not {width}").into());
    }
    let shown = found["shown"].as_u64().unwrap_or(0);
    if shown == 0 {
        return Err(format!("{page} at {width} px shows no chart").into());
    }
    let faults: Vec<&str> = found["faults"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if faults.is_empty() {
        return Ok(());
    }
    let more = faults.len().saturating_sub(25);
    let listed = faults
        .iter()
        .take(25)
        .copied()
        .collect::<Vec<_>>()
        .join("\n  ");
    let tail = if more > 0 {
        format!("\n  … and {more} more")
    } else {
        String::new()
    };
    Err(format!("{page} at {width} px, {shown} charts shown:\n  {listed}{tail}").into())
}

/// Sets `tab`'s viewport to `width`, opens `url` and runs [`CHARTS`] there.
fn inspect(tab: &Tab, url: &str, width: u32) -> Result<Value, Failed> {
    set_viewport(tab, width)?;
    tab.navigate_to(url)
        .and_then(|t| t.wait_until_navigated())
        .map_err(|e| format!("{url}: {e}"))?;
    let script = CHARTS.replace("LEAST", &LEAST_PX.to_string());
    let text = tab
        .evaluate(&script, false)
        .map_err(|e| e.to_string())?
        .value
        .and_then(|v| v.as_str().map(str::to_string))
        .ok_or("the page's script returned nothing")?;
    Ok(serde_json::from_str(&text)?)
}

/// One browser for every page; each tab sets its own viewport's width (a
/// headless window is not made narrower than about 500 px).
static BROWSER: LazyLock<Result<Browser, String>> = LazyLock::new(|| {
    let options = LaunchOptions::default_builder()
        .path(Some(chromium()?))
        // Root in a container has no user namespaces for the sandbox.
        .sandbox(false)
        .window_size(Some((WIDTHS[0], 900)))
        .idle_browser_timeout(Duration::from_secs(300))
        .build()
        .map_err(|e| e.to_string())?;
    Browser::new(options).map_err(|e| format!("cannot start Chromium: {e}"))
});

fn main() {
    let args = Arguments::from_args();
    let trials = PAGES
        .iter()
        .flat_map(|&page| WIDTHS.map(|width| (page, width)))
        .map(|(page, width)| {
            let name = format!("charts::{}_at_{width}px", page.trim_end_matches(".html"));
            match chromium() {
                Ok(_) => Trial::test(name, move || {
                    let (_, port) = BOOK.as_ref().map_err(|e| e.clone())?;
                    let browser = BROWSER.as_ref().map_err(|e| Failed::from(e.clone()))?;
                    check(browser, *port, page, width)
                }),
                Err(reason) => Trial::test(name, || Ok(()))
                    .with_kind(format!("skipped: {reason}"))
                    .with_ignored_flag(true),
            }
        })
        .collect();
    libtest_mimic::run(&args, trials).exit()
}
