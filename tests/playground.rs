//! The published site's playground, driven as a reader would drive it.
//! `bash .ci/publish` builds exactly the site that is published; a static
//! HTTP server on localhost serves it; headless Chromium (with WebGPU
//! through SwiftShader, where it offers an adapter) opens its pages.
//!
//! - `playground::<puzzle>`, on puzzles across the parts: the page loads no
//!   WebAssembly until the playground opens; a wrong kernel typed into the
//!   editor gets FAIL with its reason (at its line, where it has one); the
//!   solution gets PASS and the puzzle stays solved after a reload, its text
//!   kept; an endless loop is stopped (by the Stop button, or by the
//!   checker's time limit) and reported while the page stays responsive.
//! - `playground::webgpu`: the same kernels on the browser's adapter, and
//!   the page saying which adapter ran them; skipped by name where Chromium
//!   offers none.
//! - `playground::agrees::<page>`: on every WGSL puzzle of the book, the
//!   checker in the page (WebAssembly) gives the solution and the skeleton
//!   the report `runner check --backend sim --json` gives them, word for word.
//!
//! Without Chromium, every trial is skipped by name, with the reason.

use book_tests::drive::Site;
use book_tests::drive::{self, eval, wait_for};
use book_tests::{chromium, root, serve};
use headless_chrome::Tab;
use libtest_mimic::{Failed, Trial};
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::lang::Lang;
use runner::book::BookFiles;
use runner::run::Runner;
use serde_json::Value;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

static SITE: LazyLock<Result<Site, String>> = LazyLock::new(|| {
    let chromium = chromium()?;
    let out = drive::publish()?;
    let port = serve(out.path().to_path_buf());
    let browser = drive::browser(chromium, true)?;
    Ok(Site { port, browser, out })
});

/// One tab at a time: a tab in the background is throttled by Chromium
/// (timers, workers' messages), which would make a reader's waits meaningless.
static ONE_TAB: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_tab() -> std::sync::MutexGuard<'static, ()> {
    ONE_TAB.lock().unwrap_or_else(|e| e.into_inner())
}

fn site() -> Result<&'static Site, Failed> {
    SITE.as_ref().map_err(|e| Failed::from(e.clone()))
}

/// Opens `page` (`fundamentals/p01_map`) in a new tab.
fn open(page: &str) -> Result<std::sync::Arc<Tab>, Failed> {
    let site = site()?;
    let tab = site.browser.new_tab().map_err(|e| e.to_string())?;
    let url = format!(
        "http://127.0.0.1:{}/{}/{page}.html",
        site.port,
        drive::PROJECT_PATH
    );
    tab.navigate_to(&url)
        .and_then(|t| t.wait_until_navigated())
        .map_err(|e| format!("{url}: {e}"))?;
    loaded(&tab)?;
    Ok(tab)
}

fn the_box(id: &str) -> String {
    format!("document.querySelector('.puzzle-playground[data-puzzle=\"{id}\"]')")
}

/// What the playground of `id` shows now.
fn shown(tab: &Tab, id: &str) -> Result<Value, Failed> {
    let b = the_box(id);
    Ok(eval(
        tab,
        &format!(
            r#"JSON.stringify((() => {{
  const box = {b};
  const text = s => [...box.querySelectorAll(s)].map(e => e.textContent);
  return {{
    // Each report is headed by who made it ("The checker: FAIL: …"); the
    // verdicts are read without that head, which `who` keeps.
    verdicts: text('.playground-report .puzzle-verdict, .playground-stopped')
      .map(t => t.replace(/^(The checker|Your GPU): /, '')),
    who: text('.playground-report .puzzle-verdict')
      .map(t => (t.match(/^(The checker|Your GPU):/) || [null, null])[1]),
    findings: text('.playground-findings, .playground-report .puzzle-note').join('\n'),
    gpu: text('.playground-gpu').join('\n'),
    differ: text('.playground-differ').join('\n'),
    // The rows of values under a failed check, and whether they wrap.
    outputs: text('.playground-outputs').join('\n'),
    outputs_wrap: [...box.querySelectorAll('.playground-outputs')]
      .some(e => getComputedStyle(e).whiteSpace !== 'pre'),
    marked: text('.playground-marked').map(Number),
    solved: text('.playground-solved').join(''),
    status: text('.playground-status').join(''),
    editor: (box.querySelector('textarea') || {{}}).value || null,
    // The worker answered with the puzzle cut for its editor: the checker
    // (WebAssembly, loaded by the worker) is running.
    ready: !!(box.playground && box.playground.start),
    // WebAssembly the page itself fetched (none before a playground opens).
    wasm: performance.getEntriesByType('resource').filter(r => r.name.endsWith('.wasm')).length,
  }};
}})())"#
        ),
    )?)
}

/// Opens the playground of `id` with a click, and waits for the checker.
fn open_playground(tab: &Tab, id: &str) -> Result<(), Failed> {
    // The button comes once the page has found the checker (a HEAD request).
    tab.wait_for_element_with_custom_timeout(
        &format!(".puzzle-playground[data-puzzle=\"{id}\"] .playground-open"),
        Duration::from_secs(10),
    )
    .and_then(|e| e.click().map(|_| ()))
    .map_err(|e| format!("{id}: no playground to open: {e}"))?;
    let b = the_box(id);
    Ok(wait_for(
        tab,
        &format!("{b}.playground && {b}.playground.start && !{b}.playground.check.disabled"),
        Duration::from_secs(60),
        &format!("{id}: the checker loading"),
    )?)
}

/// Types `text` over the editor's contents, as a reader pasting it would.
fn type_kernel(tab: &Tab, id: &str, text: &str) -> Result<(), Failed> {
    let b = the_box(id);
    eval(
        tab,
        &format!(
            "JSON.stringify(({b}.querySelector('textarea').focus(), {b}.querySelector('textarea').select(), 0))"
        ),
    )?;
    tab.send_character(text).map_err(|e| e.to_string())?;
    Ok(())
}

fn press(tab: &Tab, id: &str, button: &str) -> Result<(), Failed> {
    tab.find_element(&format!(
        ".puzzle-playground[data-puzzle=\"{id}\"] .{button}"
    ))
    .and_then(|e| e.click().map(|_| ()))
    .map(|_| ())
    .map_err(|e| format!("{id}: cannot press {button}: {e}").into())
}

/// Presses Check and waits for everything (checker, then GPU) to finish.
fn check(tab: &Tab, id: &str, text: &str) -> Result<Value, Failed> {
    type_kernel(tab, id, text)?;
    press(tab, id, "playground-check")?;
    let b = the_box(id);
    wait_for(
        tab,
        &format!("{b}.playground.stop.disabled && !{b}.playground.check.disabled"),
        Duration::from_secs(180),
        &format!("{id}: the check"),
    )?;
    shown(tab, id)
}

/// A kernel file with its learner's markers taken out: the solution as a reader would type it.
fn solution_of(kernel: &str) -> Result<String, Failed> {
    let text = std::fs::read_to_string(root().join("kernels").join(kernel))?;
    Ok(text
        .lines()
        .filter(|l| !l.contains("BEGIN PUZZLE") && !l.contains("END PUZZLE"))
        .map(|l| format!("{l}\n"))
        .collect())
}

/// `text` with `from` replaced; a pattern that is not there fails the test.
fn with(text: &str, (from, to): (&str, &str)) -> Result<String, Failed> {
    if !text.contains(from) {
        return Err(format!("the solution no longer contains {from:?}").into());
    }
    Ok(text.replacen(from, to, 1))
}

/// How a case's endless loop ends.
#[derive(Clone, Copy)]
enum Endless {
    /// The reader presses Stop.
    Stop,
    /// The checker's time limit (10 s) stops it: HANG.
    TimeLimit,
    /// Not tried here.
    Untried,
}

/// One puzzle as a reader meets it.
struct Reader {
    page: &'static str,
    id: &'static str,
    /// Its WGSL solution, under `kernels/` (`<part>/<id>/<file>`).
    kernel: &'static str,
    /// The mistake typed in: a change to the solution.
    mistake: (&'static str, &'static str),
    /// Words the report must give for it.
    reason: &'static str,
    /// Whether the report names a line of the reader's file.
    at_a_line: bool,
    /// A line of the solution that becomes an endless loop.
    endless: (&'static str, Endless),
}

const READERS: &[Reader] = &[
    Reader {
        page: "fundamentals/p01_map",
        id: "p01_map",
        kernel: "fundamentals/p01_map/add_10.wgsl",
        mistake: ("a[i] + 10.0", "a[i] + 1.0"),
        reason: "wrong",
        at_a_line: false,
        endless: ("out[i] = a[i] + 10.0;", Endless::Stop),
    },
    Reader {
        page: "fundamentals/p03_guard",
        id: "p03_guard",
        kernel: "fundamentals/p03_guard/add_10_guard.wgsl",
        mistake: ("if (i < size) {", "if (true) {"),
        reason: "out-of-bounds",
        at_a_line: true,
        endless: ("", Endless::Untried),
    },
    Reader {
        page: "algorithms/p12_scan",
        id: "p12_scan_simple",
        kernel: "algorithms/p12_scan_simple/prefix_sum_simple.wgsl",
        // Read a neighbour's slot and write one's own in the same step.
        mistake: (
            "        // without this barrier a neighbor may already hold this round's sum.\n        workgroupBarrier();\n",
            "",
        ),
        reason: "race",
        at_a_line: true,
        endless: ("out[global_i] = tile[local_i];", Endless::TimeLimit),
    },
    Reader {
        page: "performance/p17_reduction_1_tree",
        id: "p17_reduce_tree",
        kernel: "performance/p17_reduce_tree/reduce_tree.wgsl",
        mistake: (
            "            tile[t] += tile[t + half];\n        }\n        workgroupBarrier();\n",
            "            tile[t] += tile[t + half];\n        }\n",
        ),
        reason: "race",
        at_a_line: true,
        endless: ("", Endless::Untried),
    },
    Reader {
        page: "warps/p21_warp_sum",
        id: "p21_warp_add",
        kernel: "warps/p21_warp_add/row_sums.wgsl",
        mistake: ("j += width", "j += 1u"),
        reason: "wrong",
        at_a_line: false,
        endless: ("", Endless::Untried),
    },
];

/// Forgets what this browser kept for `id` and reloads the page.
fn forget(tab: &Tab, id: &str) -> Result<(), Failed> {
    eval(
        tab,
        &format!(
            "JSON.stringify((localStorage.removeItem('gpu-puzzles/{id}/wgsl/text'), localStorage.removeItem('gpu-puzzles/{id}/wgsl/solved'), 0))"
        ),
    )?;
    reload(tab)
}

/// Reloads the page and waits until the new one has run its scripts.
fn reload(tab: &Tab) -> Result<(), Failed> {
    eval(tab, "JSON.stringify(window.beforeReload = true)")?;
    tab.reload(false, None).map_err(|e| e.to_string())?;
    loaded(tab)
}

fn loaded(tab: &Tab) -> Result<(), Failed> {
    Ok(wait_for(
        tab,
        "!window.beforeReload && document.readyState === 'complete'",
        Duration::from_secs(30),
        "the page loading",
    )?)
}

/// How long the page takes to answer while the checker is busy, at worst of `n` tries.
fn slowest_answer(tab: &Tab, n: usize) -> Result<Duration, Failed> {
    let mut slowest = Duration::ZERO;
    for _ in 0..n {
        let start = Instant::now();
        eval(tab, "JSON.stringify(document.querySelectorAll('p').length)")?;
        slowest = slowest.max(start.elapsed());
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(slowest)
}

/// Where a report's rows of values do not stand value over value: a row
/// whose commas are not above the `expected:` row's, or rows that wrap
/// (on a phone a wrapped row no longer lines up with the one under it).
fn misaligned(shown: &Value) -> Option<String> {
    if shown["outputs_wrap"] == true {
        return Some("the rows of values wrap".into());
    }
    let text = shown["outputs"].as_str().unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let commas = |line: &str| -> Vec<usize> { line.match_indices(',').map(|(i, _)| i).collect() };
    for pair in lines.windows(2) {
        if pair[1].starts_with("expected:") && commas(pair[0]) != commas(pair[1]) {
            return Some(format!(
                "the values of\n  {}\ndo not stand over those of\n  {}",
                pair[0], pair[1]
            ));
        }
    }
    None
}

fn reader(case: &Reader) -> Result<(), Failed> {
    let _tab = one_tab();
    let id = case.id;
    let tab = open(case.page)?;
    forget(&tab, id)?;
    let before = shown(&tab, id)?;
    if before["wasm"] != 0 {
        return Err(format!(
            "{id}: the page loaded WebAssembly before a playground opened: {before}"
        )
        .into());
    }
    open_playground(&tab, id)?;
    let opened = shown(&tab, id)?;
    if opened["ready"] != true {
        return Err(
            format!("{id}: the playground opened without loading the checker: {opened}").into(),
        );
    }
    let skeleton = opened["editor"].as_str().unwrap_or_default().to_string();
    if !skeleton.contains("FILL ME IN") {
        return Err(
            format!("{id}: the editor does not start from the skeleton:\n{skeleton}").into(),
        );
    }

    let solution = solution_of(case.kernel)?;
    let wrong = check(&tab, id, &with(&solution, case.mistake)?)?;
    let verdict = wrong["verdicts"][0].as_str().unwrap_or_default();
    let findings = wrong["findings"].as_str().unwrap_or_default();
    if !verdict.starts_with("FAIL") || !findings.to_lowercase().contains(case.reason) {
        return Err(format!(
            "{id}: the wrong kernel should FAIL with {:?}: {wrong}",
            case.reason
        )
        .into());
    }
    if let Some(fault) = misaligned(&wrong) {
        return Err(format!("{id}: {fault}: {wrong}").into());
    }
    let lines = wrong["marked"].as_array().map_or(0, Vec::len);
    if case.at_a_line && lines == 0 {
        return Err(format!("{id}: the report names no line of the kernel: {wrong}").into());
    }

    let right = check(&tab, id, &solution)?;
    let verdict = right["verdicts"][0].as_str().unwrap_or_default();
    if right["who"][0] != "The checker" {
        return Err(format!(
            "{id}: the checker's report does not say it is the checker's: {right}"
        )
        .into());
    }
    if !verdict.starts_with("PASS")
        || !right["solved"]
            .as_str()
            .unwrap_or_default()
            .contains("Solved")
    {
        return Err(format!("{id}: the solution should PASS and be marked solved: {right}").into());
    }
    // The picture of who touched what: drawn after the check, and on request.
    let b = the_box(id);
    wait_for(
        &tab,
        &format!("{b}.querySelector('details.playground-drawing .playground-drawn')"),
        Duration::from_secs(30),
        &format!("{id}: the diagram after the check"),
    )?;
    press(&tab, id, "playground-draw")?;
    wait_for(
        &tab,
        &format!(
            "{b}.querySelector('.playground-drawn') && !{b}.querySelector('details.playground-drawing')"
        ),
        Duration::from_secs(60),
        &format!("{id}: the diagram"),
    )?;
    let drawn = eval(
        &tab,
        &format!(
            "JSON.stringify({b}.querySelectorAll('.playground-drawn svg rect, .playground-drawn svg path').length)"
        ),
    )?;
    if drawn.as_u64().unwrap_or(0) == 0 {
        return Err(format!("{id}: no diagram of the solution: {}", shown(&tab, id)?).into());
    }
    reload(&tab)?;
    let again = shown(&tab, id)?;
    if !again["solved"]
        .as_str()
        .unwrap_or_default()
        .contains("Solved")
    {
        return Err(format!("{id}: not marked solved after a reload: {again}").into());
    }
    open_playground(&tab, id)?;
    let kept = shown(&tab, id)?;
    if kept["editor"].as_str() != Some(solution.as_str()) {
        return Err(format!("{id}: the reader's text was not kept: {kept}").into());
    }

    let (line, how) = case.endless;
    match how {
        Endless::Untried => {}
        Endless::Stop | Endless::TimeLimit => {
            let endless = with(&solution, (line, &format!("loop {{ }}\n    {line}")))?;
            type_kernel(&tab, id, &endless)?;
            press(&tab, id, "playground-check")?;
            std::thread::sleep(Duration::from_millis(500));
            let slowest = slowest_answer(&tab, 5)?;
            if slowest > Duration::from_millis(500) {
                return Err(format!(
                    "{id}: the page took {slowest:?} to answer while the checker ran"
                )
                .into());
            }
            let b = the_box(id);
            if let Endless::Stop = how {
                press(&tab, id, "playground-stop")?;
                wait_for(
                    &tab,
                    &format!("{b}.querySelector('.playground-stopped')"),
                    Duration::from_secs(2),
                    "Stop",
                )?;
            } else {
                wait_for(
                    &tab,
                    &format!("{b}.playground.stop.disabled"),
                    Duration::from_secs(40),
                    &format!("{id}: the endless loop stopped"),
                )?;
            }
            let stopped = shown(&tab, id)?;
            let verdict = stopped["verdicts"][0].as_str().unwrap_or_default();
            let want = if let Endless::Stop = how {
                "STOPPED"
            } else {
                "HANG"
            };
            if !verdict.starts_with(want) {
                return Err(
                    format!("{id}: the endless loop should end as {want}: {stopped}").into(),
                );
            }
            // And the page still checks kernels.
            let after = check(&tab, id, &solution)?;
            if !after["verdicts"][0]
                .as_str()
                .unwrap_or_default()
                .starts_with("PASS")
            {
                return Err(format!("{id}: no check after the endless loop: {after}").into());
            }
        }
    }
    let _ = tab.close(true);
    Ok(())
}

/// Whether this Chromium offers a WebGPU adapter (SwiftShader, headless).
fn adapter(tab: &Tab) -> Result<Option<String>, Failed> {
    let found = eval(
        tab,
        "(async () => { const a = navigator.gpu && await navigator.gpu.requestAdapter(); return JSON.stringify(a ? [a.info.vendor, a.info.architecture].join(' ') : null); })()",
    )?;
    Ok(found.as_str().map(str::to_string))
}

fn webgpu() -> Result<(), Failed> {
    let _tab = one_tab();
    let tab = open("fundamentals/p03_guard")?;
    let id = "p03_guard";
    forget(&tab, id)?;
    let Some(adapter) = adapter(&tab)? else {
        return Err("no adapter: should have been skipped".into());
    };
    open_playground(&tab, id)?;
    let solution = solution_of("fundamentals/p03_guard/add_10_guard.wgsl")?;
    let right = check(&tab, id, &solution)?;
    let gpu = right["gpu"].as_str().unwrap_or_default();
    let verdicts: Vec<&str> = right["verdicts"]
        .as_array()
        .map(|v| v.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if verdicts.len() != 2 || !verdicts.iter().all(|v| v.starts_with("PASS")) {
        return Err(
            format!("the checker and the adapter should both PASS the solution: {right}").into(),
        );
    }
    let vendor = adapter.split(' ').next().unwrap_or_default();
    if !gpu.contains("WebGPU") || !gpu.contains(vendor) {
        return Err(
            format!("the page should name the adapter ({adapter}) that ran it: {gpu}").into(),
        );
    }
    // Without its guard: the checker sees the index; the page says what the adapter made of it.
    let wrong = check(
        &tab,
        id,
        &with(&solution, ("if (i < size) {", "if (true) {"))?,
    )?;
    let verdicts: Vec<&str> = wrong["verdicts"]
        .as_array()
        .map(|v| v.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let gpu_passed = verdicts.get(1).is_some_and(|v| v.starts_with("PASS"));
    let explained = wrong["differ"]
        .as_str()
        .is_some_and(|d| d.contains("Your GPU passed it"));
    if !verdicts.first().is_some_and(|v| v.starts_with("FAIL"))
        || verdicts.len() != 2
        || gpu_passed != explained
    {
        return Err(format!("the unguarded kernel: the checker must FAIL it, and a GPU pass must be explained: {wrong}").into());
    }
    let _ = tab.close(true);
    // Subgroup operations: run where the adapter offers them through
    // WebGPU, and otherwise a sentence saying so, never an error.
    let (id, kernel) = ("p21_warp_add", "warps/p21_warp_add/row_sums.wgsl");
    let tab = open("warps/p21_warp_sum")?;
    forget(&tab, id)?;
    open_playground(&tab, id)?;
    let right = check(&tab, id, &solution_of(kernel)?)?;
    let gpu = right["gpu"].as_str().unwrap_or_default();
    let ran = gpu.starts_with("Your GPU: PASS");
    let said = gpu.contains("subgroup operations, which that adapter does not offer");
    let checked = right["verdicts"][0].as_str().unwrap_or_default();
    if !checked.starts_with("PASS") || !(ran || said) {
        return Err(format!(
            "{id}: the checker should PASS it, and the adapter run it or say why not: {right}"
        )
        .into());
    }
    let _ = tab.close(true);
    Ok(())
}

/// Every WGSL puzzle of the book, by the page that shows it.
fn wgsl_pages() -> Vec<(String, Vec<Puzzle>)> {
    let Ok(book) = runner::book::load(&root()) else {
        return vec![];
    };
    let mut pages: Vec<(String, Vec<Puzzle>)> = Vec::new();
    for puzzle in book.puzzles {
        if puzzle.kernel(Lang::Wgsl).is_none() {
            continue;
        }
        let src = root().join("src");
        let page = puzzle
            .chapter
            .strip_prefix(&src)
            .unwrap_or(&puzzle.chapter)
            .with_extension("")
            .display()
            .to_string();
        match pages.iter_mut().find(|(p, _)| *p == page) {
            Some((_, puzzles)) => puzzles.push(puzzle),
            None => pages.push((page, vec![puzzle])),
        }
    }
    pages
}

/// The report of `runner check --backend sim --json` on `text`, with the
/// learner's file named as the page names it.
fn runner_check(puzzle: &Puzzle, text: &str) -> Result<Value, Failed> {
    let dir = tempfile::tempdir()?;
    let name = &puzzle.kernel(Lang::Wgsl).ok_or("no WGSL kernel")?.copy_name;
    let file = dir.path().join(name);
    std::fs::write(&file, text)?;
    let runner = Runner::new(Default::default());
    let files = BookFiles::new(&root());
    let report =
        runner::learner::check(&runner, puzzle, Lang::Wgsl, BackendKind::Sim, &file, &files);
    let json = serde_json::to_string(&report)?;
    let prefix = format!("{}/", dir.path().display());
    Ok(serde_json::from_str(&json.replace(&prefix, ""))?)
}

/// The in-page checker's report on `text`, from a worker of the page's own.
fn page_check(tab: &Tab, bundle_of: &str, text: &str) -> Result<Value, Failed> {
    let text = serde_json::to_string(text)?;
    let script = format!(
        r#"(async () => {{
  const bundle = document.querySelector('.puzzle-playground[data-puzzle="{bundle_of}"] script.puzzle-bundle').textContent;
  const worker = new Worker(path_to_root + 'playground/worker.js', {{ type: 'module' }});
  const answer = kind => new Promise(ok => worker.addEventListener('message', ({{ data }}) => {{ if (data.kind === kind || data.kind === 'broken') ok(data); }}));
  const opened = answer('opened');
  worker.postMessage({{ kind: 'open', bundle }});
  await opened;
  const checked = answer('checked');
  worker.postMessage({{ kind: 'check', text: {text}, gpu: false }});
  const data = await checked;
  worker.terminate();
  return JSON.stringify(data.report || data);
}})()"#
    );
    Ok(eval(tab, &script)?)
}

/// Every number as a float: JavaScript writes 10.0 as 10, which is the same number.
fn as_numbers(value: &mut Value) {
    match value {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().and_then(serde_json::Number::from_f64) {
                *n = f;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(as_numbers),
        Value::Object(fields) => fields.values_mut().for_each(as_numbers),
        _ => {}
    }
}

/// The first place where two reports differ: its path (`runs[0].outputs[0].expected[5]`)
/// and the two values there, cut to a readable length.
fn first_difference(a: &Value, b: &Value, path: String) -> Option<(String, String, String)> {
    let cut = |v: &Value| v.to_string().chars().take(300).collect::<String>();
    match (a, b) {
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(x, y, format!("{path}[{i}]"))),
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() && x.keys().eq(y.keys()) => x
            .iter()
            .find_map(|(k, v)| first_difference(v, &y[k], format!("{path}.{k}"))),
        _ if a == b => None,
        _ => Some((path, cut(a), cut(b))),
    }
}

fn agrees(page: &str, puzzles: &[Puzzle]) -> Result<(), Failed> {
    let _tab = one_tab();
    let tab = open(page)?;
    for puzzle in puzzles {
        let kernel = puzzle.kernel(Lang::Wgsl).ok_or("no WGSL kernel")?;
        for (what, text) in [
            ("solution", kernel.solution().text),
            ("skeleton", kernel.skeleton().text),
        ] {
            let mut expected = runner_check(puzzle, &text)?;
            let mut got = page_check(&tab, puzzle.id(), &text)?;
            // The file: a temporary path for the CLI, the copy's name in the page.
            for report in [&mut expected, &mut got] {
                report["file"] = Value::Null;
                as_numbers(report);
            }
            if let Some((path, page, runner)) = first_difference(&got, &expected, String::new()) {
                return Err(format!(
                    "{} {what}: the page's checker and `runner check` disagree at {path}\n page:   {page}\n runner: {runner}",
                    puzzle.id(),
                )
                .into());
            }
        }
    }
    let _ = tab.close(true);
    Ok(())
}

/// This group's trials, for the suite's `main`.
pub fn trials() -> Vec<Trial> {
    let skip = |name: String, reason: &str| {
        Trial::test(name, || Ok(()))
            .with_kind(format!("skipped: {reason}"))
            .with_ignored_flag(true)
    };
    let mut trials = Vec::new();
    let no_chromium = chromium().err();
    for case in READERS {
        let name = format!("playground::{}", case.id);
        trials.push(match &no_chromium {
            Some(reason) => skip(name, reason),
            None => Trial::test(name, move || reader(case)),
        });
    }
    let name = "playground::webgpu".to_string();
    trials.push(match &no_chromium {
        Some(reason) => skip(name, reason),
        None => {
            // Asked once the site is up: skipped by name where Chromium has no adapter.
            let adapter = site().ok().and_then(|_| {
                let tab = open("introduction").ok()?;
                let found = adapter(&tab).ok().flatten();
                let _ = tab.close(true);
                found
            });
            match adapter {
                Some(_) => Trial::test(name, webgpu),
                None => skip(
                    name,
                    "this Chromium offers no WebGPU adapter (or the site did not build)",
                ),
            }
        }
    });
    for (page, puzzles) in wgsl_pages() {
        let name = format!("playground::agrees::{page}");
        trials.push(match &no_chromium {
            Some(reason) => skip(name, reason),
            None => Trial::test(name, move || agrees(&page, &puzzles)),
        });
    }
    trials
}
