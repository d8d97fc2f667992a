//! The broken pieces a reader met (issue 60, item 5), each checked in
//! headless Chromium on the pages where it was found, at a laptop's width
//! (1280 px) and a phone's (390 px):
//!
//! - `tables_fit`: no table shown with the folds closed is wider than the
//!   content column (on a phone, one that scrolls in its own box may be),
//!   and no cell alone is: a long message (a launch that failed) wraps
//!   instead of stretching its table (Puzzles 17 and 31);
//! - `no_backticks`: no text outside code shows a backtick, and no list item
//!   is empty: Markdown that fell apart (a code span broken across lines
//!   turns its second line into a bullet, Puzzle 9);
//! - `scroll_cue`: every box that scrolls sideways and is not scrolled to its
//!   end carries a cue (the shadow at its right edge), figures included;
//! - `values_line_up`: in a result's `out` and `expected` rows, the k-th
//!   value of one stands over the k-th value of the other;
//! - `height`: no chapter is taller than 25 screens at 1280 px with its
//!   folds closed (issue 60, "one experiment, shown once"), but those
//!   listed in `TALL_PAGES`, each held to its ceiling;
//! - `print_opens_folds`: printing shows what the folds (`<details>`) hold,
//!   and a reader's page is as it was after the print.
//!
//! The real book is built by the real `mdbook` (or, to look again at a book
//! already built, GPU_PUZZLES_PIECES_BOOK=/path/to/built/book). Without
//! Chromium the trials are reported as skipped, with the reason.

use book_tests::{chromium, served_book, set_viewport, summary_pages};
use headless_chrome::protocol::cdp::Emulation;
use headless_chrome::{Browser, LaunchOptions, Tab};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use std::sync::LazyLock;
use std::time::Duration;

/// A laptop's width and a phone's.
const WIDTHS: [u32; 2] = [1280, 390];

/// The built book's folder (kept alive for the run) and its server's port.
static BOOK: LazyLock<Result<(Option<tempfile::TempDir>, u16), String>> =
    LazyLock::new(|| served_book("GPU_PUZZLES_PIECES_BOOK"));

/// Shared by every check: `main`, and whether an element is drawn.
const PRELUDE: &str = r#"
  const main = document.querySelector('main');
  const shown = el => !!el && el.checkVisibility({ visibilityProperty: true });
  const words = el => `"${(el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60)}"`;
  const faults = [];
"#;

/// Tables shown with the folds closed: at a laptop's width none wider than
/// the column; on a phone one may scroll inside a box made for it (the
/// compact tables do, with a cue). At either width no cell is wider than
/// the column: scrolling would never bring the whole cell into view. The
/// column is `main`'s content box.
const TABLES_FIT: &str = r#"
  const box = main.getBoundingClientRect();
  const pad = parseFloat(getComputedStyle(main).paddingLeft) + parseFloat(getComputedStyle(main).paddingRight);
  const column = box.width - pad + 1;
  const scrolled = el => {
    for (let p = el.parentElement; p && p !== main; p = p.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) return true;
    }
    return false;
  };
  for (const table of main.querySelectorAll('table')) {
    if (!shown(table)) continue;
    const w = table.getBoundingClientRect().width;
    const phone = innerWidth < 600 && scrolled(table);
    // The widths of its columns, to see which one stretches it.
    const cols = [...(table.rows[0] || { cells: [] }).cells].map(c => Math.round(c.getBoundingClientRect().width));
    if (w > column && !phone) faults.push(`table ${words(table)} is ${Math.round(w)} px wide (columns ${cols.join(', ')}), the column ${Math.round(column)}`);
    for (const cell of table.querySelectorAll('td, th')) {
      const c = cell.getBoundingClientRect().width;
      if (c > column) faults.push(`a cell ${words(cell)} is ${Math.round(c)} px wide, the column ${Math.round(column)}`);
    }
  }
"#;

/// Text outside code with a backtick in it, and empty list items, every
/// fold open (a broken code span can sit in a solution's notes).
const NO_BACKTICKS: &str = r#"
  const opened = [...main.querySelectorAll('details')].filter(d => !d.open);
  opened.forEach(d => d.open = true);
  const skip = 'code, pre, kbd, samp, script, style, svg, textarea';
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.nodeValue.includes('`') && !n.parentElement.closest(skip)) {
      faults.push(`a backtick shown as text: ${words(n.parentElement)}`);
    }
  }
  for (const li of main.querySelectorAll('li')) {
    if (!li.textContent.trim() && !li.querySelector('img, svg, math')) {
      faults.push(`an empty list item after ${words(li.previousElementSibling || li.parentElement.previousElementSibling || main)}`);
    }
  }
  opened.forEach(d => d.open = false);
"#;

/// Every box that scrolls sideways, folds open, with more to its right: it
/// shows a shadow at its edge, as the page's script marks it.
const SCROLL_CUE: &str = r#"
  const opened = [...main.querySelectorAll('details')].filter(d => !d.open);
  opened.forEach(d => d.open = true);
  if (window.bookMarkScrolling) window.bookMarkScrolling();
  for (const el of main.querySelectorAll('*')) {
    const o = getComputedStyle(el).overflowX;
    if ((o !== 'auto' && o !== 'scroll') || !shown(el)) continue;
    if (el.scrollWidth <= el.clientWidth + 1 || el.scrollLeft + el.clientWidth >= el.scrollWidth - 1) continue;
    if (getComputedStyle(el).boxShadow === 'none') {
      faults.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} ${words(el)} scrolls (${el.scrollWidth} px in ${el.clientWidth}) with no cue`);
    }
  }
  opened.forEach(d => d.open = false);
"#;

/// Each `out:` (or other buffer's) line and the `expected:` line under it:
/// the k-th comma of one at the x of the k-th comma of the other, as drawn.
/// A row that wraps, or values of unequal widths, moves them apart.
const VALUES_LINE_UP: &str = r#"
  const opened = [...main.querySelectorAll('details')].filter(d => !d.open);
  opened.forEach(d => d.open = true);
  let pairs = 0;
  for (const code of main.querySelectorAll('pre > code')) {
    if (!shown(code)) continue;
    const text = code.textContent;
    const node = code.firstChild;
    if (!node || node.nodeType !== Node.TEXT_NODE || code.childNodes.length !== 1) continue;
    const lines = text.split('\n');
    let at = 0;
    const starts = lines.map(l => { const s = at; at += l.length + 1; return s; });
    lines.forEach((line, i) => {
      if (!line.startsWith('expected: [') || i === 0) return;
      const above = lines[i - 1];
      if (!/^\w+: +\[/.test(above)) return;
      pairs += 1;
      const commas = (l, s) => [...l.matchAll(/,/g)].map(m => {
        const r = document.createRange();
        r.setStart(node, s + m.index);
        r.setEnd(node, s + m.index + 1);
        return r.getBoundingClientRect();
      });
      const a = commas(above, starts[i - 1]);
      const b = commas(line, starts[i]);
      if (a.length !== b.length) {
        faults.push(`"${above.slice(0, 40)}" has ${a.length} commas, the expected row ${b.length}`);
        return;
      }
      const k = a.findIndex((r, k) => Math.abs(r.left - b[k].left) > 1 || b[k].top <= r.top);
      if (k >= 0) {
        faults.push(`value ${k + 2} of "${above.slice(0, 40)}" ends at x ${Math.round(a[k].left)}, y ${Math.round(a[k].top)}; the expected value under it at x ${Math.round(b[k].left)}, y ${Math.round(b[k].top)}`);
      }
    });
  }
  if (pairs === 0) faults.push('no out/expected rows shown on this page');
  opened.forEach(d => d.open = false);
"#;

/// Printing: first what print's styles show (every fold's content), then
/// what the page's `beforeprint` handler opens and `afterprint` closes.
const PRINT_STYLES: &str = r#"
  const folds = [...main.querySelectorAll('details')];
  if (folds.length === 0) faults.push('no folds on this page');
  for (const d of folds) {
    const inside = [...d.children].filter(c => c.tagName !== 'SUMMARY');
    if (inside.length && !inside.some(shown)) faults.push(`in print, the fold ${words(d.querySelector('summary') || d)} hides its content`);
  }
  for (const li of main.querySelectorAll('.puzzle-tips li')) {
    if (!shown(li)) faults.push(`in print, the tip ${words(li)} is hidden`);
  }
  for (const b of main.querySelectorAll('button')) {
    if (shown(b)) faults.push(`in print, a button ${words(b)} shows`);
  }
"#;

const PRINT_EVENTS: &str = r#"
  const folds = [...main.querySelectorAll('details')];
  const before = folds.map(d => d.open);
  window.dispatchEvent(new Event('beforeprint'));
  const closed = folds.filter(d => !d.open).length;
  if (closed) faults.push(`${closed} of ${folds.length} folds are still closed at beforeprint`);
  window.dispatchEvent(new Event('afterprint'));
  const changed = folds.filter((d, i) => d.open !== before[i]).length;
  if (changed) faults.push(`${changed} folds are not as the reader left them after the print`);
"#;

/// The page's height with every fold closed, in screens of the viewport's
/// height (900 px): a chapter a reader can finish is at most
/// [`SCREENS`] of them at a laptop's width.
const HEIGHT: &str = r#"
  for (const d of main.querySelectorAll('details')) d.open = false;
  const screens = document.documentElement.scrollHeight / innerHeight;
  if (screens > CEILING) faults.push(`the page is ${screens.toFixed(1)} screens tall, more than ${CEILING}`);
  if (CEILING > SCREENS && screens <= SCREENS) faults.push(`the page is ${screens.toFixed(1)} screens tall, within the budget of ${SCREENS}: take it off the list of tall pages`);
"#;

/// The most screens a chapter may take at 1280 px with its folds closed.
const SCREENS: f64 = 25.0;

/// Chapters still taller than [`SCREENS`], each with the ceiling it may not
/// grow past until it is brought under the budget: a debt the check keeps
/// from growing, and whose entry must go once the page is short enough.
const TALL_PAGES: &[(&str, f64)] = &[];

/// The most screens `page` may take: its listed ceiling, or the budget.
fn ceiling(page: &str) -> f64 {
    TALL_PAGES
        .iter()
        .find(|(p, _)| *p == page)
        .map_or(SCREENS, |&(_, c)| c)
}

/// A check: its name, its script, the pages it runs on (under the book's
/// root; `None`: every chapter), the widths it runs at, and whether the page
/// is emulated as printed.
struct Check {
    name: &'static str,
    script: &'static str,
    pages: Option<&'static [&'static str]>,
    widths: &'static [u32],
    print: bool,
}

const CHECKS: &[Check] = &[
    Check {
        name: "height",
        script: HEIGHT,
        pages: None,
        widths: &[1280],
        print: false,
    },
    Check {
        name: "tables_fit",
        script: TABLES_FIT,
        pages: Some(&[
            "performance/p17_reduction.html",
            "transformer/p31_attention.html",
        ]),
        widths: &WIDTHS,
        print: false,
    },
    Check {
        name: "no_backticks",
        script: NO_BACKTICKS,
        pages: None,
        widths: &[1280],
        print: false,
    },
    Check {
        name: "scroll_cue",
        script: SCROLL_CUE,
        pages: Some(&[
            "transformer/p31_attention.html",
            "performance/p15_access.html",
            "algorithms/p09_pooling.html",
            "algorithms/p14_matmul.html",
        ]),
        widths: &WIDTHS,
        print: false,
    },
    Check {
        name: "values_line_up",
        script: VALUES_LINE_UP,
        pages: Some(&["algorithms/p09_pooling.html", "algorithms/p11_conv.html"]),
        widths: &WIDTHS,
        print: false,
    },
    Check {
        name: "print_opens_folds",
        script: PRINT_STYLES,
        pages: Some(&[
            "algorithms/p09_pooling.html",
            "transformer/p31_attention.html",
        ]),
        widths: &[1280],
        print: true,
    },
    Check {
        name: "print_events_open_folds",
        script: PRINT_EVENTS,
        pages: Some(&[
            "algorithms/p09_pooling.html",
            "transformer/p31_attention.html",
        ]),
        widths: &[1280],
        print: false,
    },
];

/// Every chapter of `SUMMARY.md`, as the built page's path.
fn chapters() -> Vec<String> {
    summary_pages()
        .into_iter()
        .map(|p| format!("{p}.html"))
        .collect()
}

/// Opens `page` at `width` and runs `check`'s script: its faults, in words.
fn run(check: &Check, page: &str, width: u32) -> Result<(), Failed> {
    let (_, port) = BOOK.as_ref().map_err(|e| e.clone())?;
    let browser = BROWSER.as_ref().map_err(|e| Failed::from(e.clone()))?;
    let tab = browser.new_tab().map_err(|e| e.to_string())?;
    let result = inspect(
        &tab,
        check,
        (page, width),
        &format!("http://127.0.0.1:{port}/{page}"),
    );
    let _ = tab.close(true);
    let faults = result?;
    if faults.is_empty() {
        return Ok(());
    }
    let listed: Vec<&str> = faults.iter().take(20).map(String::as_str).collect();
    let more = faults.len().saturating_sub(listed.len());
    let tail = if more > 0 {
        format!("\n  … and {more} more")
    } else {
        String::new()
    };
    Err(format!("{page} at {width} px:\n  {}{tail}", listed.join("\n  ")).into())
}

fn inspect(
    tab: &Tab,
    check: &Check,
    (page, width): (&str, u32),
    url: &str,
) -> Result<Vec<String>, Failed> {
    set_viewport(tab, width)?;
    tab.navigate_to(url)
        .and_then(|t| t.wait_until_navigated())
        .map_err(|e| format!("{url}: {e}"))?;
    if check.print {
        tab.call_method(Emulation::SetEmulatedMedia {
            media: Some("print".into()),
            features: None,
        })
        .map_err(|e| e.to_string())?;
    }
    let script = format!(
        "JSON.stringify((() => {{ const SCREENS = {SCREENS}, CEILING = {}; {PRELUDE} {} return {{ width: innerWidth, faults }}; }})())",
        ceiling(page),
        check.script
    );
    let result = tab.evaluate(&script, false).map_err(|e| e.to_string())?;
    let text = result
        .value
        .and_then(|v| v.as_str().map(str::to_string))
        .ok_or("the page's script returned nothing")?;
    let found: Value = serde_json::from_str(&text)?;
    let seen = found["width"].as_u64().unwrap_or(0);
    if seen != u64::from(width) {
        return Err(format!("{url}: the page is {seen} px wide, not {width}").into());
    }
    Ok(found["faults"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect())
}

/// One browser for every page; each tab sets its own width.
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
    let every = chapters();
    let mut trials = Vec::new();
    for check in CHECKS {
        let pages: Vec<String> = match check.pages {
            Some(pages) => pages.iter().map(|p| p.to_string()).collect(),
            None => every.clone(),
        };
        for page in pages {
            for &width in check.widths {
                let name = format!(
                    "pieces::{}::{}_at_{width}px",
                    check.name,
                    page.trim_end_matches(".html")
                );
                let trial = match chromium() {
                    Ok(_) => {
                        let page = page.clone();
                        Trial::test(name, move || run(check, &page, width))
                    }
                    Err(reason) => Trial::test(name, || Ok(()))
                        .with_kind(format!("skipped: {reason}"))
                        .with_ignored_flag(true),
                };
                trials.push(trial);
            }
        }
    }
    libtest_mimic::run(&args, trials).exit()
}
