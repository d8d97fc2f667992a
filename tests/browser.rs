//! The rendered book in a real browser: the real `mdbook build`, served over
//! HTTP, opened in headless Chromium, and checked on the DOM: the page
//! renders, its math is drawn as MathML, CUDA and WGSL code is highlighted,
//! the results of the build are visible, the collapsed solution opens, the
//! drawn figures are there and read in the light and the navy theme, and
//! nothing is logged as an error.
//!
//! Without Chromium (Debian's `chromium`; or GPU_PUZZLES_CHROMIUM=/path)
//! every page is reported as skipped, by name, with that reason.

use book_tests::drive::Site;
use book_tests::{build, chromium, root, serve};
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::{Log, Runtime};
use headless_chrome::{Browser, LaunchOptions, Tab};
use libtest_mimic::{Failed, Trial};
use serde_json::Value;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

/// A laptop's width: what the page must fit.
const WIDTH: u32 = 1280;

static SITE: LazyLock<Result<Site, String>> = LazyLock::new(|| {
    let chromium = chromium()?;
    let out = tempfile::tempdir().map_err(|e| e.to_string())?;
    let built = build(&root(), out.path());
    if !built.status.success() {
        return Err(format!(
            "mdbook build failed:\n{}",
            String::from_utf8_lossy(&built.stderr)
        ));
    }
    // The layout check's control: a page that runs past its column and has
    // two chart labels on one spot, which the check must report.
    std::fs::write(out.path().join(CONTROL), CONTROL_PAGE).map_err(|e| e.to_string())?;
    // The figure check's control: a real page of the book, with its
    // stylesheets and theme switch, whose content is faulty figures.
    let page = std::fs::read_to_string(out.path().join("introduction.html"))
        .map_err(|e| format!("introduction.html: {e}"))?;
    std::fs::write(out.path().join(FIGURE_CONTROL), figure_control_page(&page)?)
        .map_err(|e| e.to_string())?;
    let port = serve(out.path().to_path_buf());
    let options = LaunchOptions::default_builder()
        .path(Some(chromium))
        // Root in a container has no user namespaces for the sandbox.
        .sandbox(false)
        .window_size(Some((WIDTH, 900)))
        .idle_browser_timeout(Duration::from_secs(300))
        .build()
        .map_err(|e| e.to_string())?;
    let browser = Browser::new(options).map_err(|e| format!("cannot start Chromium: {e}"))?;
    Ok(Site { port, browser, out })
});

/// Runs `script` (an expression yielding a JSON string) in the page.
fn eval(tab: &Tab, script: &str) -> Result<Value, Failed> {
    let result = tab.evaluate(script, false).map_err(|e| e.to_string())?;
    let text = result
        .value
        .and_then(|v| v.as_str().map(str::to_string))
        .ok_or("the page's script returned nothing")?;
    Ok(serde_json::from_str(&text)?)
}

/// What the page shows, measured in the page.
const INSPECT: &str = r#"JSON.stringify((() => {
  const main = document.querySelector('main');
  // checkVisibility: a closed <details> hides its content without removing its boxes.
  const visible = el => !!el && el.checkVisibility({ visibilityProperty: true });
  const maths = [...main.querySelectorAll('math')];
  // Kernel code, not the ```text blocks of outputs beside it.
  const code = lang => '.puzzle-' + lang + ' pre code:not(.language-text)';
  const highlighted = lang => [...main.querySelectorAll(code(lang))]
      .filter(c => c.classList.contains('hljs') && c.querySelector('span[class^="hljs-"]')).length;
  const solutions = [...main.querySelectorAll('details.puzzle-solution')];
  return {
    ready: document.readyState,
    title: (main.querySelector('h1') || {}).textContent || '',
    maths: maths.length,
    mathsDrawn: maths.filter(m => m.getBoundingClientRect().height > 0
        && getComputedStyle(m).display.includes('math')).length,
    rawTex: /\\\(|\\\)|\$\$/.test(main.innerText),
    cudaBlocks: main.querySelectorAll(code('cuda')).length,
    cudaHighlighted: highlighted('cuda'),
    wgslBlocks: main.querySelectorAll(code('wgsl')).length,
    wgslHighlighted: highlighted('wgsl'),
    config: visible(main.querySelector('.puzzle-config table')),
    verdictsShown: [...main.querySelectorAll('.puzzle-verdict')].filter(visible)
        .map(v => v.className),
    solutions: solutions.length,
    solutionsOpen: solutions.filter(d => d.open).length,
    rooflines: main.querySelectorAll('.puzzle-roofline').length,
    // A block of kernels without arithmetic says why it has no chart.
    noChart: main.querySelectorAll('.puzzle-no-chart').length,
    targets: main.querySelectorAll('.puzzle-target').length,
    speedups: main.querySelectorAll('.puzzle-speedup').length,
    // A chart is drawn when it has a size on screen, its roofs and its points,
    // and its ink follows the theme's text colour (currentColor), not black.
    diagrams: [...main.querySelectorAll('.puzzle-diagram svg')].map(svg => ({
      cells: svg.querySelectorAll('rect, path').length,
      ink: getComputedStyle(svg.querySelector('text')).fill,
      text: getComputedStyle(main).color,
    })),
    diagramNotes: main.querySelectorAll('.puzzle-diagram-note').length,
    // A kernel given whole (measured beside the puzzles, nothing to write)
    // passes as given; a page of such kernels alone shows no failing skeleton.
    given: main.querySelectorAll('.puzzle-given').length,
    toWrite: [...main.querySelectorAll('pre code')].filter(c => c.textContent.includes('FILL ME IN')).length,
    // Each chart is drawn for a laptop's column and a phone's; one shows.
    charts: [...main.querySelectorAll('figure.puzzle-chart svg')].filter(svg => svg.checkVisibility()).map(svg => ({
      width: svg.getBoundingClientRect().width,
      points: svg.querySelectorAll('circle').length,
      roofs: svg.querySelectorAll('polyline, path').length,
      ink: getComputedStyle(svg.querySelector('text')).fill,
      text: getComputedStyle(main).color,
    })),
  };
})())"#;

/// With every <details> open: anything that runs past the content column
/// (a table, a chart, a result box), unless it sits in a box that scrolls
/// it, and numbers on a chart that overlap each other.
const OVERFLOW: &str = r#"JSON.stringify((() => {
  const main = document.querySelector('main');
  const opened = [...main.querySelectorAll('details')].filter(d => !d.open);
  opened.forEach(d => d.open = true);
  const limit = main.getBoundingClientRect().right + 1;
  const scrolled = el => {
    for (let p = el.parentElement; p && p !== main; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  };
  const over = [];
  for (const el of main.querySelectorAll('table, figure, svg, pre, p, li, .puzzle-table, .puzzle-verdict, .puzzle-error')) {
    if (!el.checkVisibility() || scrolled(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.right > limit) {
      over.push(`${el.tagName.toLowerCase()}.${el.className} "${(el.textContent || '').trim().slice(0, 50)}" ends at ${Math.round(r.right)} px, the column at ${Math.round(limit)}`);
    }
  }
  const overlaps = [];
  for (const svg of main.querySelectorAll('figure.puzzle-chart svg')) {
    const labels = [...svg.querySelectorAll('text[text-anchor="start"]')]
        .map(t => [t.textContent.trim(), t.getBoundingClientRect()]);
    labels.forEach(([a, ra], i) => labels.slice(i + 1).forEach(([b, rb]) => {
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 1 && h > 1) overlaps.push(`"${a}" and "${b}"`);
    }));
  }
  // An access diagram's cell labels: each inside its cell, none on another.
  for (const svg of main.querySelectorAll('.puzzle-diagram svg')) {
    const labels = [...svg.querySelectorAll('text')].map(t => [t.textContent.trim(), t.getBoundingClientRect()]);
    labels.forEach(([a, ra], i) => labels.slice(i + 1).forEach(([b, rb]) => {
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 1 && h > 1) overlaps.push(`diagram: "${a}" and "${b}"`);
    }));
  }
  // Code cut off: a block wider than its box with no cue that it scrolls.
  if (window.bookMarkScrolling) window.bookMarkScrolling();
  const cut = [...main.querySelectorAll('pre > code:not(.language-text)')]
    .filter(c => c.checkVisibility() && c.scrollWidth > c.clientWidth + 1
      && !c.classList.contains('has-more'))
    .map(c => `"${c.textContent.trim().slice(0, 50)}" is ${c.scrollWidth} px in a box of ${c.clientWidth}`);
  // A measurement table a reader compares (not the full counts folded
  // under "how this was measured") fits the column: it does not scroll.
  const scrolls = [...main.querySelectorAll('.puzzle-roofline > .puzzle-table')]
    .filter(t => t.checkVisibility() && t.scrollWidth > t.clientWidth + 1)
    .map(t => `"${t.textContent.trim().slice(0, 50)}" is ${t.scrollWidth} px in a column of ${t.clientWidth}`);
  opened.forEach(d => d.open = false);
  return { over, overlaps, cut, scrolls };
})())"#;

/// The words a reader meets in <main>, every <details> open, as the browser
/// lays them out (with what the page's scripts wrote, such as the
/// playground's box), then those given to a screen reader or a pointer;
/// without the commands a reader types. [`book_tests::project_talk`] reads
/// them.
const WORDS: &str = r#"JSON.stringify((() => {
  const main = document.querySelector('main');
  const opened = [...main.querySelectorAll('details')].filter(d => !d.open);
  opened.forEach(d => d.open = true);
  const hidden = [...main.querySelectorAll('code.language-console, script, style')];
  const display = hidden.map(e => e.style.display);
  hidden.forEach(e => e.style.display = 'none');
  const attributes = [...main.querySelectorAll('[aria-label], [title], [alt]')]
    .filter(e => !e.closest('code.language-console'))
    .flatMap(e => ['aria-label', 'title', 'alt'].map(a => e.getAttribute(a)).filter(Boolean));
  const text = main.innerText + '\n' + attributes.join('\n');
  hidden.forEach((e, i) => e.style.display = display[i]);
  opened.forEach(d => d.open = false);
  return { text };
})())"#;

/// What the page says about the project rather than the GPU, each finding in words.
fn project_talk_in(tab: &Tab) -> Result<Vec<String>, Failed> {
    let words = eval(tab, WORDS)?;
    Ok(book_tests::project_talk(
        words["text"].as_str().unwrap_or_default(),
    ))
}

/// The control page for [`OVERFLOW`], written beside the built book.
const CONTROL: &str = "layout-control.html";
const CONTROL_PAGE: &str = r#"<!DOCTYPE html><html><body>
<main style="width: 700px">
<table style="width: 1500px"><tr><td>too wide</td></tr></table>
<figure class="puzzle-chart"><svg width="300" height="100">
<text x="10" y="50" text-anchor="start">1</text><text x="12" y="52" text-anchor="start">2</text>
</svg></figure>
<div class="puzzle-diagram"><svg width="300" height="100">
<text x="10" y="50">w 1,2,3,4,5</text><text x="30" y="52">w 6</text>
</svg></div>
<div class="puzzle-roofline"><div class="puzzle-table" style="overflow-x: auto"><table style="width: 1500px"><tr><td>scrolls</td></tr></table></div></div>
<pre><code style="display: block; overflow-x: auto; white-space: pre">a line of code far longer than the column it sits in, with nothing to say that it goes on and on and on and on and on and on and on</code></pre>
<p>Timed by <code>runner record</code> on the GPU machine.</p>
<details><summary>How this was measured</summary><p>Kept in <code>results/profiles/p40.md</code>.</p></details>
<pre><code class="language-console">bash .ci/setup</code></pre>
</main></body></html>"#;

/// What a reader types into the search box, and a page its results must
/// list: prose, headings and puzzle titles are what the index is for.
const SEARCHES: &[(&str, &str)] = &[
    ("bank conflicts", "performance/p15_access"),
    ("shared memory", "fundamentals/p08_shared"),
    ("roofline", "performance/roofline"),
    ("prefix sum", "algorithms/p12_scan"),
    ("launch-bound", "performance/roofline"),
];

/// The links the search box lists, once the index has loaded and searched.
const SEARCH_RESULTS: &str = r#"JSON.stringify([...document.querySelectorAll(
  '#mdbook-searchresults a')].map(a => a.getAttribute('href')))"#;

/// The book's search, as a reader uses it: each query of [`SEARCHES`],
/// given in the address as mdBook's own search box does, loads the index
/// and lists its page.
fn search_finds_the_pages() -> Result<(), Failed> {
    let site = SITE.as_ref().map_err(|e| e.clone())?;
    let tab = site.browser.new_tab().map_err(|e| e.to_string())?;
    let mut wrong = Vec::new();
    for (query, page) in SEARCHES {
        let url = format!(
            "http://127.0.0.1:{}/introduction.html?search={}",
            site.port,
            query.replace(' ', "+")
        );
        tab.navigate_to(&url)
            .and_then(|t| t.wait_until_navigated())
            .map_err(|e| format!("{url}: {e}"))?;
        // The index loads only when a search is made: wait for its results.
        let deadline = Instant::now() + Duration::from_secs(30);
        let links: Vec<String> = loop {
            let links: Vec<String> = serde_json::from_value(eval(&tab, SEARCH_RESULTS)?)?;
            if !links.is_empty() || Instant::now() > deadline {
                break links;
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        if !links.iter().any(|l| l.contains(page)) {
            wrong.push(format!("{query:?}: no result on {page}, only {links:?}"));
        }
    }
    let _ = tab.close(false);
    match wrong.is_empty() {
        true => Ok(()),
        false => Err(wrong.join("\n").into()),
    }
}

/// The layout check finds what it is there to find.
fn layout_control() -> Result<(), Failed> {
    let site = SITE.as_ref().map_err(|e| e.clone())?;
    let tab = site.browser.new_tab().map_err(|e| e.to_string())?;
    let url = format!("http://127.0.0.1:{}/{CONTROL}", site.port);
    tab.navigate_to(&url)
        .and_then(|t| t.wait_until_navigated())
        .map_err(|e| format!("{url}: {e}"))?;
    let layout = eval(&tab, OVERFLOW)?;
    let talk = project_talk_in(&tab)?;
    let _ = tab.close(true);
    // The page's words about the project, in its text and in a closed
    // fold, and not the script a reader's command names.
    let talked = ["runner record", "results/profiles"]
        .iter()
        .all(|words| talk.iter().any(|t| t.contains(words)));
    if !talked || talk.iter().any(|t| t.contains(".ci/setup")) {
        return Err(format!("the words check missed the control page's faults: {talk:#?}").into());
    }
    let found = |key: &str| layout[key].as_array().is_some_and(|a| !a.is_empty());
    let diagram = layout["overlaps"].as_array().is_some_and(|a| {
        a.iter()
            .any(|o| o.as_str().is_some_and(|o| o.starts_with("diagram")))
    });
    if !found("over") || !found("overlaps") || !diagram || !found("cut") || !found("scrolls") {
        return Err(format!("the layout check missed the control page's faults: {layout}").into());
    }
    Ok(())
}

/// The drawn figures (`<figure class="book-figure">`, an SVG from
/// `src/figures/` inlined by `{{#include}}`): each one's size and place at
/// the page's width, then, in the light and in the navy theme, the contrast
/// of every label against the page behind it and the opacity of every tint,
/// and labels that lie on each other. Every <details> is open meanwhile, and
/// the page's theme is restored afterwards.
const FIGURES: &str = r#"JSON.stringify((() => {
  const main = document.querySelector('main');
  const html = document.documentElement;
  const opened = [...main.querySelectorAll('details')].filter(d => !d.open);
  opened.forEach(d => d.open = true);
  const classes = html.className;
  const figures = [...main.querySelectorAll('figure.book-figure')];
  const limit = main.getBoundingClientRect().right + 1;
  const themes = ['light', 'navy'];
  // A computed colour, "rgb(r, g, b)" or "rgba(r, g, b, a)", as [r, g, b, a].
  const rgba = s => {
    const n = (s.match(/[\d.]+/g) || []).map(Number);
    return n.length >= 3 ? [n[0], n[1], n[2], n.length > 3 ? n[3] : 1] : null;
  };
  // WCAG 2: relative luminance, and the contrast ratio of two colours.
  const lum = c => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const contrast = (a, b) => {
    const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  // What is behind the figure: the first ancestor with a background.
  const behind = el => {
    for (let p = el; p; p = p.parentElement) {
      const c = rgba(getComputedStyle(p).backgroundColor);
      if (c && c[3] > 0) return c;
    }
    return [255, 255, 255, 1];
  };
  // How opaque an element's fill is: its colour's alpha, its fill-opacity,
  // and the opacity of every element up to the figure.
  const alpha = (el, stop) => {
    const style = getComputedStyle(el);
    let a = (rgba(style.fill) || [0, 0, 0, 0])[3] * parseFloat(style.fillOpacity);
    for (let p = el; p && p !== stop; p = p.parentElement) a *= parseFloat(getComputedStyle(p).opacity);
    return a;
  };
  const label = el => `"${(el.textContent || '').trim().slice(0, 40)}"`;
  const report = figures.map((figure, i) => {
    const name = `figure ${i + 1}`;
    const svg = figure.querySelector('svg');
    const faults = [];
    if (!svg) return { name, faults: ['no <svg> (did the include fail?)'] };
    const r = svg.getBoundingClientRect();
    if (!(r.width >= 200 && r.height > 0)) {
      faults.push(`not drawn: ${Math.round(r.width)} × ${Math.round(r.height)} px`);
    }
    if (r.right > limit) {
      faults.push(`ends at ${Math.round(r.right)} px, past the column at ${Math.round(limit)}`);
    }
    const texts = [...svg.querySelectorAll('text')];
    for (const theme of themes) {
      html.classList.remove(...themes, 'coal', 'ayu', 'rust');
      html.classList.add(theme);
      const bg = behind(figure);
      for (const t of texts) {
        const c = rgba(getComputedStyle(t).fill);
        const a = c ? alpha(t, svg.parentElement) : 0;
        // The ink as drawn: its colour laid over the background.
        const ink = c ? c.slice(0, 3).map((v, k) => a * v + (1 - a) * bg[k]) : bg;
        const ratio = contrast(ink, bg);
        if (!(ratio >= 4.5)) {
          faults.push(`${theme}: text ${label(t)} has contrast ${ratio.toFixed(2)} (fill ${getComputedStyle(t).fill} on rgb(${bg.slice(0, 3).join(', ')}))`);
        }
      }
      for (const shape of svg.querySelectorAll('.fig-a, .fig-b, .fig-c, .fig-d, .fig-e, .fig-soft')) {
        const a = alpha(shape, svg.parentElement);
        if (!(a < 0.5)) {
          faults.push(`${theme}: a ${shape.tagName} of class "${shape.getAttribute('class')}" is ${a.toFixed(2)} opaque`);
        }
      }
    }
    html.className = classes;
    const boxes = texts.map(t => [label(t), t.getBoundingClientRect()]);
    boxes.forEach(([a, ra], k) => boxes.slice(k + 1).forEach(([b, rb]) => {
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 1 && h > 1) faults.push(`labels ${a} and ${b} overlap`);
    }));
    return { name, width: Math.round(r.width), height: Math.round(r.height),
             texts: texts.length, faults };
  });
  opened.forEach(d => d.open = false);
  return { figures: report, theme: html.className };
})())"#;

/// How many figures a chapter's markdown includes: one per line
/// `{{#include …figures/NAME.svg}}` (mdBook expands the include wherever it
/// stands, so every such line becomes a figure on the page).
fn figure_includes(source: &str) -> usize {
    source
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("{{#include") && l.contains("figures/"))
        .count()
}

/// What is wrong with the page's figures, each fault in words, for a
/// chapter whose markdown includes `expected` of them.
fn figure_faults(tab: &Tab, expected: usize) -> Result<Vec<String>, Failed> {
    let found = eval(tab, FIGURES)?;
    let figures = found["figures"].as_array().cloned().unwrap_or_default();
    let mut faults = Vec::new();
    if figures.len() != expected {
        faults.push(format!(
            "the markdown includes {expected} figure(s), the page shows {}",
            figures.len()
        ));
    }
    for figure in &figures {
        for fault in figure["faults"].as_array().into_iter().flatten() {
            faults.push(format!(
                "{}: {}",
                figure["name"].as_str().unwrap_or("figure"),
                fault.as_str().unwrap_or_default()
            ));
        }
    }
    Ok(faults)
}

/// The control page for [`FIGURES`]: a built page of the book with the
/// content of its <main> replaced by figures that break each rule.
const FIGURE_CONTROL: &str = "figure-control.html";
const FIGURE_CONTROL_MAIN: &str = r##"<main>
<figure class="book-figure"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 120" width="400" height="120" role="img" aria-label="Black ink" font-family="sans-serif" font-size="13" fill="#000">
<rect class="fig-a" x="10" y="10" width="100" height="40" style="fill-opacity: 0.9"/>
<text x="20" y="80">black on navy</text>
</svg><figcaption>Black text, and a tint too opaque to read text over.</figcaption></figure>
<figure class="book-figure"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 40" width="120" height="40" role="img" aria-label="Too small" font-family="sans-serif" font-size="13" fill="currentColor">
<text x="4" y="20">small</text><text x="8" y="22">on top</text>
</svg><figcaption>Too narrow, with two labels on one spot.</figcaption></figure>
</main>"##;

fn figure_control_page(page: &str) -> Result<String, String> {
    let start = page.find("<main>").ok_or("a built page without <main>")?;
    let end = page.find("</main>").ok_or("a built page without </main>")? + "</main>".len();
    Ok(format!(
        "{}{FIGURE_CONTROL_MAIN}{}",
        &page[..start],
        &page[end..]
    ))
}

/// The figure check finds what it is there to find: black ink in the navy
/// theme (and only there), an opaque tint, a figure drawn too small, labels
/// on each other, and a page with fewer figures than its markdown includes.
fn figure_control() -> Result<(), Failed> {
    let site = SITE.as_ref().map_err(|e| e.clone())?;
    let tab = site.browser.new_tab().map_err(|e| e.to_string())?;
    let url = format!("http://127.0.0.1:{}/{FIGURE_CONTROL}", site.port);
    tab.navigate_to(&url)
        .and_then(|t| t.wait_until_navigated())
        .map_err(|e| format!("{url}: {e}"))?;
    let faults = figure_faults(&tab, 3)?;
    let _ = tab.close(true);
    let has = |what: &str| faults.iter().any(|f| f.contains(what));
    let expected = [
        "figure 1: navy: text \"black on navy\"",
        "figure 1: light: a rect of class \"fig-a\"",
        "figure 2: not drawn",
        "figure 2: labels",
        "includes 3 figure(s), the page shows 2",
    ];
    let missed: Vec<&str> = expected.iter().copied().filter(|e| !has(e)).collect();
    if !missed.is_empty() || has("figure 1: light: text") {
        return Err(format!(
            "the figure check missed faults of the control page ({missed:?}), or saw black ink fail on white:\n{faults:#?}"
        )
        .into());
    }
    Ok(())
}

/// Opens the first collapsed solution and reports what it shows.
const OPEN_SOLUTION: &str = r#"JSON.stringify((() => {
  const d = document.querySelector('main details.puzzle-solution');
  const verdict = d.querySelector('.puzzle-verdict');
  const before = verdict.checkVisibility();
  d.querySelector('summary').click();
  return { open: d.open, hiddenBefore: !before,
           shownAfter: verdict.checkVisibility(), verdict: verdict.className };
})())"#;

fn check_page(page: &str) -> Result<(), Failed> {
    let site = SITE.as_ref().map_err(|e| e.clone())?;
    let source = std::fs::read_to_string(root().join("src").join(format!("{page}.md")))?;
    let has_math = source.contains("\\\\(") || source.contains("$$");
    let has_puzzle = source.contains("```puzzle");

    let tab = site.browser.new_tab().map_err(|e| e.to_string())?;
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = errors.clone();
    tab.enable_log().map_err(|e| e.to_string())?;
    tab.enable_runtime().map_err(|e| e.to_string())?;
    tab.add_event_listener(Arc::new(move |event: &Event| {
        let message = match event {
            Event::LogEntryAdded(e) if e.params.entry.level == Log::LogEntryLevel::Error => {
                Some(format!("log: {}", e.params.entry.text))
            }
            Event::RuntimeConsoleAPICalled(e)
                if e.params.Type == Runtime::ConsoleAPICalledEventTypeOption::Error =>
            {
                Some(format!("console.error: {:?}", e.params.args))
            }
            Event::RuntimeExceptionThrown(e) => {
                Some(format!("exception: {}", e.params.exception_details.text))
            }
            _ => None,
        };
        if let Some(m) = message
            && let Ok(mut list) = sink.lock()
        {
            list.push(m);
        }
    }))
    .map_err(|e| e.to_string())?;
    let url = format!("http://127.0.0.1:{}/{page}.html", site.port);
    tab.navigate_to(&url)
        .and_then(|t| t.wait_until_navigated())
        .map_err(|e| format!("{url}: {e}"))?;

    // Scripts finish after the load event (highlighting runs then): wait for them.
    let deadline = Instant::now() + Duration::from_secs(20);
    let state = loop {
        let state = eval(&tab, INSPECT)?;
        let highlighting_done = state["cudaBlocks"] == state["cudaHighlighted"]
            && state["wgslBlocks"] == state["wgslHighlighted"];
        if (state["ready"] == "complete" && highlighting_done) || Instant::now() > deadline {
            break state;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let fail =
        |what: &str| -> Result<(), Failed> { Err(format!("{url}: {what}\n{state:#}").into()) };
    if state["title"]
        .as_str()
        .unwrap_or_default()
        .trim()
        .is_empty()
    {
        return fail("no <h1>: the page did not render");
    }
    if has_math {
        let (maths, drawn) = (state["maths"].as_u64(), state["mathsDrawn"].as_u64());
        if maths.unwrap_or(0) == 0 || maths != drawn {
            return fail("math is missing, or some <math> is not drawn as MathML");
        }
        if state["rawTex"] == true {
            return fail("raw TeX delimiters are left in the text");
        }
    }
    if has_puzzle {
        let langs = ["cuda", "wgsl"]
            .into_iter()
            .filter(|l| source.contains(&format!("```{l},puzzle")));
        for lang in langs {
            let blocks = state[format!("{lang}Blocks")].as_u64().unwrap_or(0);
            if blocks == 0 || state[format!("{lang}Highlighted")].as_u64() != Some(blocks) {
                return fail(&format!(
                    "{lang} code blocks are missing or not highlighted"
                ));
            }
        }
        if state["config"] != true {
            return fail("the puzzle's configuration table is not visible");
        }
        let shown: Vec<&str> = state["verdictsShown"]
            .as_array()
            .map(|v| v.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        // Before opening anything: the skeletons' verdicts (they fail, as
        // expected, or a CUDA skeleton compiles where no NVIDIA GPU runs it;
        // a page whose kernels are all given whole shows them passing).
        // A debugging case given with a hang shows its time-out, an error.
        let hang = source.contains("\nbug: hang");
        let given_only = state["toWrite"] == 0 && state["given"].as_u64().unwrap_or(0) > 0;
        if !shown.iter().any(|c| {
            c.contains("puzzle-fail")
                || c.contains("puzzle-compiled")
                || (hang && c.contains("puzzle-error"))
                || (given_only && c.contains("puzzle-pass"))
        }) {
            return fail("no skeleton verdict is visible");
        }
        if state["solutions"].as_u64().unwrap_or(0) == 0 || state["solutionsOpen"] != 0 {
            return fail("the solutions are missing, or not collapsed");
        }
        let opened = eval(&tab, OPEN_SOLUTION)?;
        let verdict = opened["verdict"].as_str().unwrap_or_default();
        if opened["open"] != true || opened["hiddenBefore"] != true || opened["shownAfter"] != true
        {
            return Err(format!("{url}: the solution does not open on a click: {opened}").into());
        }
        if !(verdict.contains("puzzle-pass") || verdict.contains("puzzle-compiled")) {
            return Err(format!("{url}: the opened solution shows {verdict}").into());
        }
        // Every WGSL solution has its access diagram, or says why not.
        if source.contains("```wgsl,puzzle") {
            let diagrams = state["diagrams"].as_array().cloned().unwrap_or_default();
            if diagrams.is_empty() && state["diagramNotes"].as_u64().unwrap_or(0) == 0 {
                return fail("a WGSL solution has no access diagram and no word on why");
            }
            for d in &diagrams {
                if d["cells"].as_u64().unwrap_or(0) == 0 || d["ink"] != d["text"] {
                    return fail(&format!(
                        "an access diagram has no cells, or its ink does not follow the theme: {d}"
                    ));
                }
            }
        }
    }
    // Roofline blocks: recorded results with measured ceilings make a chart.
    if source.contains("```roofline") {
        let charts = state["charts"].as_array().cloned().unwrap_or_default();
        let explained = state["noChart"].as_u64().unwrap_or(0) > 0;
        if state["rooflines"].as_u64().unwrap_or(0) == 0 || (charts.is_empty() && !explained) {
            return fail("a roofline block rendered no chart (are results/*.json calibrated?)");
        }
        for chart in &charts {
            if chart["width"].as_f64().unwrap_or(0.0) < 300.0
                || chart["roofs"].as_u64().unwrap_or(0) < 2
                || chart["ink"] != chart["text"]
            {
                return fail(&format!(
                    "a roofline chart is not drawn, or its ink does not follow the theme: {chart}"
                ));
            }
        }
    }
    // Targets and speed-ups give a verdict line on the page for every recorded GPU.
    for (key, class) in [("targets", "puzzle-target"), ("speedups", "puzzle-speedup")] {
        if source.contains(&format!("\n{key}:")) && state[key].as_u64().unwrap_or(0) == 0 {
            return fail(&format!(
                "a roofline block lists {key}, but no .{class} line shows"
            ));
        }
    }
    // Drawn figures: as many as the markdown includes, each drawn inside the
    // column and legible in the light and the navy theme.
    let faults = figure_faults(&tab, figure_includes(&source))?;
    if !faults.is_empty() {
        return Err(format!("{url}: figures:\n{}", faults.join("\n")).into());
    }
    // At a laptop's width nothing runs past the column, and no chart's
    // numbers collide.
    let layout = eval(&tab, OVERFLOW)?;
    for (key, what) in [
        ("over", "runs past the content column"),
        ("overlaps", "chart labels overlap"),
        ("cut", "code runs past its box with no cue that it scrolls"),
        ("scrolls", "a measurement table scrolls sideways"),
    ] {
        if let Some(found) = layout[key].as_array().filter(|a| !a.is_empty()) {
            return Err(format!("{url} at {WIDTH} px: {what}:\n{found:#?}").into());
        }
    }
    // A page speaks about GPUs, not about the project's files or how the
    // book was made (issue 60), in the words its scripts write too.
    let talk = project_talk_in(&tab)?;
    if !talk.is_empty() {
        return Err(format!(
            "{url}: talks about the project instead of the GPU:\n{}",
            talk.join("\n")
        )
        .into());
    }
    // Late errors (a script failing after load) are caught too.
    std::thread::sleep(Duration::from_millis(300));
    let errors = errors.lock().map(|e| e.clone()).unwrap_or_default();
    let _ = tab.close(true);
    if !errors.is_empty() {
        return Err(format!("{url} logged errors:\n{}", errors.join("\n")).into());
    }
    Ok(())
}

/// This group's trials, for the suite's `main`.
pub fn trials() -> Vec<Trial> {
    let control = |name: &str, check: fn() -> Result<(), Failed>| match chromium() {
        Ok(_) => Trial::test(name, check),
        Err(reason) => Trial::test(name, || Ok(()))
            .with_kind(format!("skipped: {reason}"))
            .with_ignored_flag(true),
    };
    let controls = [
        control("browser::layout_check_control", layout_control),
        control("browser::figure_check_control", figure_control),
        control("browser::search_finds_the_pages", search_finds_the_pages),
    ];
    book_tests::summary_pages()
        .into_iter()
        .map(|page| {
            let name = format!("browser::{page}");
            match chromium() {
                Ok(_) => Trial::test(name, move || check_page(&page)),
                Err(reason) => Trial::test(name, || Ok(()))
                    .with_kind(format!("skipped: {reason}"))
                    .with_ignored_flag(true),
            }
        })
        .chain(controls)
        .collect()
}
