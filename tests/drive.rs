//! Driving the published site in headless Chromium: the site built by
//! `.ci/publish`, a browser to open it in, and scripts run in its pages.
//! Shared by the playground's tests and its benchmark.

use crate::root;
use headless_chrome::{Browser, LaunchOptions, Tab};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A built site, its server, and one browser for all its pages.
pub struct Site {
    pub port: u16,
    pub browser: Browser,
    /// The site's folder, removed with it.
    pub out: tempfile::TempDir,
}

/// Where the published site sits under the server's root. GitHub Pages serves
/// a project's site at `/<repository>/`, not at `/`: served the same way here,
/// a link or an asset that assumes the root fails here as it would there.
pub const PROJECT_PATH: &str = "gpu-puzzles";

/// `bash .ci/publish` into `PROJECT_PATH` of a temporary folder: exactly the
/// published site, to be served from the folder.
pub fn publish() -> Result<tempfile::TempDir, String> {
    let out = tempfile::tempdir().map_err(|e| e.to_string())?;
    let published = std::process::Command::new("bash")
        .arg(root().join(".ci/publish"))
        .arg(out.path().join(PROJECT_PATH))
        .output()
        .map_err(|e| format!("cannot run .ci/publish: {e}"))?;
    if !published.status.success() {
        let said = String::from_utf8_lossy(&published.stderr);
        let tail: Vec<&str> = said.lines().rev().take(30).collect();
        return Err(format!(
            "bash .ci/publish failed:\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ));
    }
    Ok(out)
}

/// Headless Chromium at a laptop's width; with `webgpu`, WebGPU through
/// SwiftShader (behind `--enable-unsafe-webgpu` in headless Chromium).
pub fn browser(chromium: PathBuf, webgpu: bool) -> Result<Browser, String> {
    let args: Vec<&OsStr> = if webgpu {
        vec![OsStr::new("--enable-unsafe-webgpu")]
    } else {
        vec![]
    };
    let options = LaunchOptions::default_builder()
        .path(Some(chromium))
        // Root in a container has no user namespaces for the sandbox.
        .sandbox(false)
        .window_size(Some((1280, 900)))
        .args(args)
        .idle_browser_timeout(Duration::from_secs(900))
        .build()
        .map_err(|e| e.to_string())?;
    Browser::new(options).map_err(|e| format!("cannot start Chromium: {e}"))
}

/// Runs `script` (an expression, or a promise, yielding a JSON string).
pub fn eval(tab: &Tab, script: &str) -> Result<Value, String> {
    let result = tab.evaluate(script, true).map_err(|e| e.to_string())?;
    let text = result
        .value
        .as_ref()
        .and_then(|v| v.as_str().map(str::to_string))
        .ok_or_else(|| format!("the page's script returned {result:?}: {script}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))
}

/// Polls `condition` (a JS boolean expression) until it holds.
pub fn wait_for(tab: &Tab, condition: &str, limit: Duration, what: &str) -> Result<(), String> {
    let start = Instant::now();
    loop {
        if eval(tab, &format!("JSON.stringify(!!({condition}))"))? == Value::Bool(true) {
            return Ok(());
        }
        if start.elapsed() > limit {
            return Err(format!("{what}: not within {limit:?}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
