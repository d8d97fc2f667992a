//! Helpers for the end-to-end tests: find the tools, build books into
//! temporary folders, fetch pages from `mdbook serve`.

pub mod drive;
pub mod links;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The workspace root (the book's folder).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// The real `mdbook`; its absence fails the test with what to install.
pub fn mdbook() -> Command {
    let found = Command::new("mdbook")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "mdbook is not on PATH: install it with `cargo install mdbook --locked --version 0.5.4`"
    );
    let mut command = Command::new("mdbook");
    // Mesa complains about XDG_RUNTIME_DIR on headless machines; it is noise.
    command.env("XDG_RUNTIME_DIR", std::env::temp_dir());
    command
}

/// Builds the preprocessor as every book here runs it (`bin/mdbook-puzzles`
/// and a temporary book's `cargo run -p mdbook-puzzles` both build it alone,
/// with its own features), before any test runs a book: a `cargo test` of
/// the workspace builds it with the workspace's features instead, and the
/// first book build to rebuild it would replace the executable under
/// another test's running build, whose workers then fail to start.
pub fn build_preprocessor() {
    let output = Command::new("cargo")
        .args(["build", "--quiet", "--locked", "-p", "mdbook-puzzles"])
        .arg("--manifest-path")
        .arg(root().join("Cargo.toml"))
        .output()
        .expect("running cargo");
    assert!(
        output.status.success(),
        "building the preprocessor failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `mdbook build BOOK -d OUT`; panics with mdbook's output when it fails and `must_pass`.
pub fn build(book: &Path, out: &Path) -> Output {
    mdbook()
        .arg("build")
        .arg(book)
        .arg("-d")
        .arg(out)
        .output()
        .expect("running mdbook")
}

/// Every chapter `src/SUMMARY.md` lists, by its path under `src/` without
/// `.md` (`performance/p15_access`): a new page is checked as soon as the
/// book lists it.
pub fn summary_pages() -> Vec<String> {
    let summary = std::fs::read_to_string(root().join("src/SUMMARY.md")).unwrap_or_default();
    summary
        .lines()
        .filter_map(|line| {
            let start = line.find("](")? + 2;
            let end = start + line[start..].find(')')?;
            line[start..end].strip_suffix(".md").map(str::to_string)
        })
        .collect()
}

/// The real book, served: the build in the folder `reuse` names (an
/// environment variable) where it is set, else a fresh build into a
/// temporary folder, kept alive with the server's port.
pub fn served_book(reuse: &str) -> Result<(Option<tempfile::TempDir>, u16), String> {
    if let Some(dir) = std::env::var_os(reuse) {
        return Ok((None, serve(PathBuf::from(dir))));
    }
    build_preprocessor();
    let out = tempfile::tempdir().map_err(|e| e.to_string())?;
    let built = build(&root(), out.path());
    if !built.status.success() {
        return Err(format!(
            "mdbook build failed:\n{}",
            String::from_utf8_lossy(&built.stderr)
        ));
    }
    let port = serve(out.path().to_path_buf());
    Ok((Some(out), port))
}

/// A temporary book whose preprocessor is this workspace's, with one chapter.
pub fn temp_book(chapter: &str, on_failure: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let manifest = root().join("Cargo.toml");
    let toml = format!(
        "[book]\ntitle = \"temp\"\n\n[preprocessor.puzzles]\ncommand = \"cargo run --quiet --manifest-path {} -p mdbook-puzzles --\"\nafter = [\"links\"]\non-failure = \"{on_failure}\"\n",
        manifest.display()
    );
    std::fs::write(dir.path().join("book.toml"), toml).unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/SUMMARY.md"),
        "# Summary\n\n- [Chapter](chapter.md)\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("src/chapter.md"), chapter).unwrap();
    dir
}

/// A chapter of the preprocessor's fixture books.
pub fn fixture_chapter(case: &str) -> String {
    std::fs::read_to_string(
        root()
            .join("preprocessor/tests/fixtures")
            .join(case)
            .join("src/chapter.md"),
    )
    .unwrap()
}

/// Every file under `dir` with its contents, to prove a build changed nothing.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                files.push((path, bytes));
            }
        }
    }
    files.sort();
    files
}

/// GET `path` from a local server; `None` until it answers 200.
pub fn get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let status = response.lines().next().unwrap_or_default();
    status.contains(" 200 ").then_some(response)
}

/// Polls `check` until it returns true or `limit` passes.
pub fn wait_for(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    false
}

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Serves the files under `dir` over HTTP on 127.0.0.1 from a background
/// thread (as any static host would serve the built book); returns the port.
pub fn serve(dir: PathBuf) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dir = dir.clone();
            std::thread::spawn(move || answer(stream, &dir));
        }
    });
    port
}

fn answer(mut stream: TcpStream, dir: &Path) {
    let mut request = [0u8; 4096];
    let n = stream.read(&mut request).unwrap_or(0);
    let request = String::from_utf8_lossy(&request[..n]);
    let path = request
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .split(['?', '#'])
        .next()
        .unwrap_or("/");
    let mut file = dir.join(path.trim_start_matches('/'));
    if file.is_dir() {
        file = file.join("index.html");
    }
    // Never outside the served folder.
    let inside = !path.split('/').any(|part| part == "..");
    let (status, body) = match std::fs::read(&file) {
        Ok(body) if inside => ("200 OK", body),
        _ => ("404 Not Found", b"not found".to_vec()),
    };
    let kind = match file
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
    {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css",
        "js" => "text/javascript",
        "json" => "application/json",
        // WebAssembly compiles while it downloads only when served as such.
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "ttf" => "font/ttf",
        _ => "application/octet-stream",
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(&body);
}

/// Chromium: GPU_PUZZLES_CHROMIUM, else the usual names on PATH.
pub fn chromium() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("GPU_PUZZLES_CHROMIUM") {
        return Ok(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(
        "no Chromium on PATH: `bash .ci/setup publish` installs Debian's `chromium`; \
         or set GPU_PUZZLES_CHROMIUM to a Chrome or Chromium binary"
            .into(),
    )
}

/// Makes `tab`'s viewport `width` CSS px wide and 900 high, before a page is
/// opened in it. The viewport itself, not the window: a headless window is
/// not made narrower than about 500 px, wider than a phone, so a browser
/// launched with a phone's window size draws its pages wider than asked.
/// A test checks the page's `innerWidth` after, to be sure.
pub fn set_viewport(tab: &headless_chrome::Tab, width: u32) -> Result<(), String> {
    use headless_chrome::protocol::cdp::Emulation;
    tab.call_method(Emulation::SetDeviceMetricsOverride {
        width,
        height: 900,
        device_scale_factor: 1.0,
        mobile: false,
        scale: None,
        screen_width: None,
        screen_height: None,
        position_x: None,
        position_y: None,
        dont_set_visible_size: None,
        screen_orientation: None,
        viewport: None,
        display_feature: None,
        device_posture: None,
    })
    .map(|_| ())
    .map_err(|e| format!("cannot set the viewport to {width} px: {e}"))
}

/// Words a page of the book never says (issue 60, "Pages about GPUs"). A
/// page speaks to a reader about GPUs: what was measured, on which GPU, what
/// it means. A reader of the published site has none of the project's
/// scripts, result files, modules or test fixtures, and how the book was
/// made (the machine that built a page, a GPU machine lent for a session,
/// files kept or not) tells them nothing about a GPU. Provenance (the GPU,
/// driver, date, library) stays in a result's label and in the folded "how
/// this was measured" blocks, in a form that names none of these, nor the
/// engine's own label of a device (`sim · CPU checker (…, interleaving
/// 0)`): a verdict reads "Checked on the CPU: PASS". Commands
/// a reader types (`console` blocks) are not checked: they may name any
/// file of a clone of the book.
///
/// Each rule: what it finds, and what the finding means.
const PROJECT_TALK: &[(Talk, &str)] = &[
    (Talk::Text(".ci/"), "names one of the project's scripts"),
    (
        Talk::Path("results/"),
        "names one of the project's result files",
    ),
    (
        Talk::Path("runner/"),
        "names one of the engine's modules or tests",
    ),
    (
        Talk::Path("preprocessor/"),
        "names one of the engine's modules",
    ),
    (Talk::Path("docs/"), "names a maintainer's document"),
    (Talk::Text("fixtures"), "names the project's test fixtures"),
    (Talk::Text("AUTHORING"), "names a maintainer's document"),
    (
        Talk::Text("ARCHITECTURE.md"),
        "names a maintainer's document",
    ),
    (
        Talk::Text("edits.toml"),
        "names the project's test fixtures",
    ),
    (
        Talk::Text("races.toml"),
        "names the project's test fixtures",
    ),
    (Talk::File("rs"), "names one of the engine's Rust files"),
    (Talk::File("py"), "names one of the project's scripts"),
    (Talk::File("sh"), "names one of the project's scripts"),
    (
        Talk::Text("as the runner does"),
        "describes the engine, not the GPU",
    ),
    (
        Talk::Text("runner record"),
        "narrates how the book's results were made",
    ),
    (
        Talk::Word("session"),
        "narrates the sessions the book was measured in",
    ),
    (
        Talk::Word("sessions"),
        "narrates the sessions the book was measured in",
    ),
    (Talk::Word("lent"), "narrates the machines lent to the book"),
    (
        Talk::Text("GPU machine"),
        "narrates the machine the book was measured on",
    ),
    (
        Talk::Text("machine that built"),
        "narrates the machine that built the page",
    ),
    (
        Talk::Text("machine went back"),
        "narrates the machine the book was measured on",
    ),
    (
        Talk::Text("built this page"),
        "narrates how the page was built",
    ),
    (
        Talk::Text("this page was built"),
        "narrates how the page was built",
    ),
    (
        Talk::Text("were not kept"),
        "narrates which files were kept",
    ),
    (Talk::Text("was not kept"), "narrates which files were kept"),
    (
        Talk::Label("sim"),
        "labels a result with the engine's backend, not where it ran",
    ),
    (
        Talk::Label("wgpu"),
        "labels a result with the engine's backend, not where it ran",
    ),
    (
        Talk::Label("cuda"),
        "labels a result with the engine's backend, not where it ran",
    ),
    (
        Talk::Text("interleaving 0"),
        "names the checker's default schedule, which tells a reader nothing",
    ),
    (
        // "(runner 0.1.0)"; "(runner run …)" in prose is a command, and fine.
        Talk::Text("(runner 0."),
        "names the version of the book's own tool, which tells a reader nothing",
    ),
];

/// How a rule of [`PROJECT_TALK`] finds its words.
#[derive(Clone, Copy)]
enum Talk {
    /// These characters anywhere.
    Text(&'static str),
    /// A path that starts with these characters: not inside a longer name.
    Path(&'static str),
    /// This word, in any case, not inside a longer word.
    Word(&'static str),
    /// A file name with this extension (`training.rs`, `sgemm_jit.py`).
    File(&'static str),
    /// The engine's label of a device, this backend first (`sim · CPU
    /// checker …`): a line that starts with it.
    Label(&'static str),
}

impl Talk {
    fn found(self, line: &str) -> bool {
        let word = |c: char| c.is_alphanumeric() || c == '_';
        // Every place `needle` starts in `hay`, with the characters either side.
        let places = |hay: &str, needle: &str| -> Vec<(Option<char>, Option<char>)> {
            hay.match_indices(needle)
                .map(|(at, _)| {
                    (
                        hay[..at].chars().next_back(),
                        hay[at + needle.len()..].chars().next(),
                    )
                })
                .collect()
        };
        match self {
            Talk::Text(text) => line.contains(text),
            Talk::Path(path) => places(line, path)
                .iter()
                .any(|&(before, _)| before.is_none_or(|c| !word(c) && !"./-".contains(c))),
            Talk::Word(w) => places(&line.to_lowercase(), w)
                .iter()
                .any(|&(before, after)| !before.is_some_and(word) && !after.is_some_and(word)),
            Talk::Label(backend) => line
                .trim_start()
                .strip_prefix(backend)
                .is_some_and(|rest| rest.starts_with(" · ")),
            Talk::File(ext) => places(line, &format!(".{ext}"))
                .iter()
                .any(|&(before, after)| {
                    before.is_some_and(|c| word(c) || c == '-') && !after.is_some_and(word)
                }),
        }
    }
}

/// Where `text` (a page's words, a line each) names the project's files or
/// narrates how the book was made: "why: «the line»" for each line.
pub fn project_talk(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let (_, why) = PROJECT_TALK.iter().find(|(talk, _)| talk.found(line))?;
            let line = line.trim();
            let shown: String = line.chars().take(160).collect();
            let more = if shown.len() < line.len() { "…" } else { "" };
            Some(format!("{why}: «{shown}{more}»"))
        })
        .collect()
}

/// The words a built page of the book shows in its <main>, folded or not, a
/// line for each paragraph, cell or line of code, then the words it gives a
/// screen reader or a pointer (`aria-label`, `title`, `alt`): without its
/// scripts (the playground's bundles), its styles, and the commands a
/// reader types (`console` blocks).
pub fn page_words(html: &str) -> String {
    let main = match (html.find("<main"), html.rfind("</main>")) {
        (Some(start), Some(end)) if start < end => &html[start..end],
        _ => html,
    };
    let mut kept = String::new();
    let mut rest = main;
    // Cut each of these from its opening to its closing.
    let cuts = [
        ("<script", "</script>"),
        ("<style", "</style>"),
        ("<code class=\"language-console", "</code>"),
    ];
    loop {
        let next = cuts
            .iter()
            .filter_map(|&(open, close)| rest.find(open).map(|at| (at, close)))
            .min_by_key(|&(at, _)| at);
        let Some((at, close)) = next else {
            kept.push_str(rest);
            break;
        };
        kept.push_str(&rest[..at]);
        rest = rest[at..]
            .find(close)
            .map_or("", |end| &rest[at + end + close.len()..]);
    }
    let mut words = String::new();
    let mut attributes = String::new();
    let mut rest = kept.as_str();
    while let Some(open) = rest.find('<') {
        words.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('>') else {
            break;
        };
        let tag = &rest[open..open + close + 1];
        for name in [" aria-label=\"", " title=\"", " alt=\""] {
            if let Some(at) = tag.find(name) {
                let value = &tag[at + name.len()..];
                attributes.push_str(value.split('"').next().unwrap_or(""));
                attributes.push('\n');
            }
        }
        // A line ends where a block, a cell or a break ends.
        let name = tag
            .trim_start_matches(['<', '/'])
            .split([' ', '>', '\n'])
            .next()
            .unwrap_or("");
        if matches!(
            name,
            "p" | "br"
                | "li"
                | "tr"
                | "td"
                | "th"
                | "summary"
                | "div"
                | "pre"
                | "figcaption"
                | "h1"
                | "h2"
                | "h3"
                | "h4"
                | "h5"
                | "h6"
                | "text"
                | "title"
                | "desc"
        ) {
            words.push('\n');
        }
        rest = &rest[open + close + 1..];
    }
    words.push_str(rest);
    words.push('\n');
    words.push_str(&attributes);
    unescape(&words)
}

/// The character references mdBook and the preprocessor write.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}
