//! `runner`: the command line over the engine. Thin on purpose: every
//! decision lives in the library, so the book, the tests and this CLI agree.
//! The learner's commands (`check`, `watch`, `hint`, `progress`, `reset`)
//! are in [`cli`].

mod cli;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use runner::kernel::{Lang, Variant};
use runner::source::SourceText;
use runner::{BackendKind, Book, Runner, Settings, Status};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(name = "runner", version, about = "Run and check GPU Puzzles kernels")]
struct Cli {
    /// The book's folder (default: the nearest folder above with a book.toml).
    #[arg(long, global = true)]
    book: Option<PathBuf>,
    /// The learner's workspace (default: .learner in the book's folder).
    #[arg(long, global = true)]
    workspace: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check your copy of a puzzle (.learner/<puzzle>/…): the teaching size,
    /// then the stress sizes, and what is wrong in words.
    ///
    /// Exit status: 0 solved, 1 your kernel is wrong (or does not compile,
    /// hangs, or the file is empty), 2 it could not be judged here.
    Check {
        /// Puzzle id, e.g. p03_guard (see `runner list`); or --all.
        #[arg(required_unless_present = "all")]
        puzzle: Option<String>,
        /// Every puzzle, in reading order, with a progress bar.
        #[arg(long, conflicts_with = "puzzle")]
        all: bool,
        /// wgsl or cuda. Default: the language this machine runs whose copy you saved last.
        #[arg(long)]
        lang: Option<String>,
        /// wgpu (runs WGSL) or cuda (runs CUDA C); another way to pick the language.
        #[arg(long)]
        backend: Option<String>,
        /// Print the report as JSON (the shape is in docs/LEARNER.md).
        #[arg(long)]
        json: bool,
        /// Seconds before a kernel that has not finished is reported as hung.
        #[arg(long, default_value_t = 5)]
        timeout: u64,
    },
    /// Check on every save; when the puzzle passes, move on to the next unsolved one.
    Watch {
        /// Where to start (default: the first unsolved puzzle).
        puzzle: Option<String>,
        /// wgsl or cuda (default: as for `check`).
        #[arg(long)]
        lang: Option<String>,
        /// Seconds before a kernel that has not finished is reported as hung.
        #[arg(long, default_value_t = 5)]
        timeout: u64,
        /// Internal: started again after a hang.
        #[arg(long, hide = true)]
        restarted: bool,
    },
    /// Show the chapter's tips for a puzzle, one more each time you ask.
    Hint { puzzle: String },
    /// Which puzzles pass, in which language.
    Progress,
    /// Put the skeleton back into your copy (the old one is kept as .bak).
    Reset {
        puzzle: String,
        /// wgsl or cuda (default: both).
        #[arg(long)]
        lang: Option<String>,
    },
    /// List every puzzle and its kernels.
    List,
    /// Run every puzzle on this machine's GPUs and write results/<device>.json
    /// (committed; books built without that GPU show them, labelled as recorded).
    Record {
        /// Where to write (default: the book's results/ folder).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Timed repetitions per solution.
        #[arg(long, default_value_t = 20)]
        samples: usize,
        /// Record only these puzzles (comma-separated), keeping the file's other entries.
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Record only these backends (comma-separated: cuda, wgpu).
        #[arg(long, value_delimiter = ',')]
        backend: Vec<String>,
    },
    /// Measure this machine's ceilings: streaming bandwidth, FP32 rate, launch overhead.
    Calibrate {
        /// wgpu or cuda (default: every backend that runs kernels on hardware here).
        #[arg(long)]
        backend: Option<String>,
        /// Timed repetitions of each measurement.
        #[arg(long, default_value_t = 20)]
        samples: usize,
        /// Store the ceilings with this GPU's recorded results (results/<device>.json).
        #[arg(long)]
        save: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Time a puzzle's solution at any size, with roofline figures.
    ///
    /// Warm-up runs first, then device-timed samples; buffers smaller than the
    /// last-level cache are rotated so the cache does not flatter the time.
    Bench {
        /// Puzzle id, e.g. p10_dot (see `runner list`).
        puzzle: String,
        /// wgpu or cuda (default: wgpu).
        #[arg(long)]
        backend: Option<String>,
        /// Change a constant of the spec, e.g. --set SIZE=16777216 (repeatable).
        #[arg(long = "set", value_name = "NAME=VALUE")]
        set: Vec<String>,
        /// Timed samples.
        #[arg(long, default_value_t = 50)]
        samples: usize,
        /// Untimed runs before the samples.
        #[arg(long, default_value_t = 5)]
        warmup: usize,
        /// Seconds before a run is reported as hung.
        #[arg(long, default_value_t = 60)]
        timeout: u64,
        /// Buffer sets to rotate through (default: enough to spill the last-level cache).
        #[arg(long)]
        buffer_sets: Option<usize>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a puzzle's skeleton (to start from) or its solution.
    Show {
        puzzle: String,
        /// wgsl or cuda.
        #[arg(long, default_value = "wgsl")]
        lang: String,
        /// Print the solution instead of the skeleton.
        #[arg(long)]
        solution: bool,
    },
    /// Run a puzzle's kernel and compare its output with the expected values.
    ///
    /// Exit status: 0 passed, 1 the kernel failed (wrong output or compile error),
    /// 2 it could not be run here (backend missing, launch impossible, not run).
    Run {
        /// Puzzle id, e.g. p01_map (see `runner list`).
        puzzle: String,
        /// wgpu runs WGSL on a GPU (or lavapipe), sim runs WGSL on the CPU with race,
        /// bounds and barrier checks, cuda runs CUDA C. Default: from --file's extension, else wgpu.
        #[arg(long)]
        backend: Option<String>,
        /// Run the skeleton (the code to complete).
        #[arg(long, conflicts_with_all = ["solution", "file"])]
        skeleton: bool,
        /// Run the reference solution (the default).
        #[arg(long, conflicts_with = "file")]
        solution: bool,
        /// Run your own kernel file (.wgsl or .cu) against the puzzle's spec.
        #[arg(long)]
        file: Option<PathBuf>,
        /// Timed repetitions after the checked run.
        #[arg(long, default_value_t = 10)]
        samples: usize,
        /// Seconds before a kernel that has not finished is reported as hung.
        #[arg(long, default_value_t = 10)]
        timeout: u64,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Also run the spec's stress cases: other sizes, random inputs,
        /// expected values from the CPU reference.
        #[arg(long)]
        stress: bool,
    },
}

fn main() -> ExitCode {
    // A CUDA launch isolated in a child process re-enters here.
    runner::backend::isolate::serve_if_child();
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn load_book(dir: Option<PathBuf>) -> Result<Book> {
    let root = match dir {
        Some(dir) => dir,
        None => Book::discover(&std::env::current_dir()?).map_err(anyhow::Error::msg)?,
    };
    Book::load(&root).map_err(|errors| {
        let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
        anyhow::anyhow!(
            "the book has {} problem(s):\n{}",
            errors.len(),
            list.join("\n")
        )
    })
}

fn parse_backend(name: &str) -> Result<BackendKind> {
    BackendKind::parse(name)
        .with_context(|| format!("unknown backend `{name}`; use wgpu, cuda or sim"))
}

/// `runner calibrate`: measures, prints beside the datasheet, and optionally saves.
fn calibrate(
    book: &Book,
    backend: Option<&str>,
    samples: usize,
    save: bool,
    json: bool,
) -> Result<ExitCode> {
    let kinds = match backend {
        Some(name) => vec![parse_backend(name)?],
        // A simulator's timings say nothing about hardware: nothing to calibrate.
        None => BackendKind::ALL
            .into_iter()
            .filter(|k| !k.is_simulator())
            .collect(),
    };
    let runner = Runner::new(Settings::default());
    let mut measured_any = false;
    for kind in kinds {
        let backend = match runner.backend(kind) {
            Ok(b) if b.runs_kernels() => b,
            Ok(b) => {
                eprintln!(
                    "{kind}: not calibrated: {}",
                    b.compile_only().unwrap_or("kernels do not run here")
                );
                continue;
            }
            Err(e) => {
                eprintln!("{kind}: not calibrated: {e}");
                continue;
            }
        };
        let ceilings =
            runner::calibrate::calibrate(backend, samples).map_err(|e| anyhow::anyhow!("{e}"))?;
        measured_any = true;
        let device = backend.device();
        if json {
            println!("{}", serde_json::to_string_pretty(&ceilings)?);
        } else {
            println!("{}", device.label());
            if device.kind == "CPU" {
                println!(
                    "  note: a CPU adapter (lavapipe): these are the CPU's figures, not a GPU's"
                );
            }
            let spread = |m: &runner::calibrate::Measured| {
                format!(
                    "median of {}, spread {:.1}%",
                    m.timing.samples,
                    m.timing.spread_pct()
                )
            };
            let sheet = runner::roofline::datasheet_for(&device.name);
            println!(
                "  streaming bandwidth: {:>10.1} GB/s   ({}; {} bytes a launch){}",
                ceilings.bandwidth_gb_s.value,
                spread(&ceilings.bandwidth_gb_s),
                ceilings.stream_bytes,
                sheet
                    .map(|d| format!("   datasheet: {:.0} GB/s", d.bandwidth_gb_s))
                    .unwrap_or_default()
            );
            println!(
                "  FP32 FMA rate:       {:>10.1} GFLOP/s ({}){}",
                ceilings.fp32_gflop_s.value,
                spread(&ceilings.fp32_gflop_s),
                sheet
                    .map(|d| format!("   datasheet: {:.0} GFLOP/s", d.fp32_gflop_s))
                    .unwrap_or_default()
            );
            println!(
                "  launch overhead:     {:>10.2} µs     (an empty kernel, device timer; {})",
                ceilings.launch_us.value,
                spread(&ceilings.launch_us)
            );
            println!(
                "  ridge point:         {:>10.2} FLOP/byte",
                ceilings.ridge_point()
            );
        }
        if save {
            if device.kind != "GPU" {
                eprintln!("{kind}: not saved: results/ keeps GPU figures only");
                continue;
            }
            let path = runner::record::save_ceilings(
                &book.root.join(runner::record::RESULTS_DIR),
                device,
                ceilings,
            )
            .map_err(anyhow::Error::msg)?;
            eprintln!("saved in {}", path.display());
        }
    }
    if !measured_any {
        bail!("no backend here runs kernels: nothing to calibrate");
    }
    Ok(ExitCode::SUCCESS)
}

fn run(cli: Cli) -> Result<ExitCode> {
    let book = load_book(cli.book)?;
    let learner = |book| cli::Learner::open(book, cli.workspace.clone());
    match cli.command {
        Command::Check {
            puzzle,
            all,
            lang,
            backend,
            json,
            timeout,
        } => {
            let lang = cli::requested_lang(lang.as_deref(), backend.as_deref())?;
            let learner = learner(book)?;
            let runner = cli::learner_runner(Duration::from_secs(timeout));
            match puzzle {
                Some(puzzle) if !all => {
                    cli::learn::check_command(&learner, &runner, &puzzle, lang, json)
                }
                _ => cli::learn::check_all(&learner, &runner, lang, json),
            }
        }
        Command::Watch {
            puzzle,
            lang,
            timeout,
            restarted,
        } => {
            let lang = cli::requested_lang(lang.as_deref(), None)?;
            let learner = learner(book)?;
            cli::watch::watch(
                &learner,
                cli::watch::Options {
                    puzzle,
                    lang,
                    timeout: Duration::from_secs(timeout),
                    restarted,
                },
            )
        }
        Command::Hint { puzzle } => cli::learn::hint(&learner(book)?, &puzzle),
        Command::Progress => cli::learn::progress(&learner(book)?),
        Command::Reset { puzzle, lang } => {
            let lang = cli::requested_lang(lang.as_deref(), None)?;
            cli::learn::reset(&learner(book)?, &puzzle, lang)
        }
        Command::List => {
            for p in &book.puzzles {
                let langs: Vec<&str> = p.kernels.keys().map(|l| l.label()).collect();
                println!("{:<16} {:<24} {}", p.id(), p.title(), langs.join(", "));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Record {
            out,
            samples,
            only,
            backend,
        } => {
            let backends = backend
                .iter()
                .map(|b| parse_backend(b))
                .collect::<Result<Vec<_>>>()?;
            let runner = Runner::new(Settings {
                timing_samples: samples,
                ..Settings::default()
            });
            let dir = out.unwrap_or_else(|| book.root.join(runner::record::RESULTS_DIR));
            let written = runner::record::record(&book, &runner, &dir, &only, &backends)
                .map_err(anyhow::Error::msg)?;
            if written.is_empty() {
                bail!("no GPU here runs kernels: nothing recorded");
            }
            // Every backend of this process closes before the benchmarks run,
            // each alone on the GPU (see record_benches).
            drop(runner);
            runner::record::record_benches(&book, &written, &only).map_err(anyhow::Error::msg)?;
            for path in written {
                println!("wrote {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Calibrate {
            backend,
            samples,
            save,
            json,
        } => calibrate(&book, backend.as_deref(), samples, save, json),
        Command::Bench {
            puzzle,
            backend,
            set,
            samples,
            warmup,
            timeout,
            buffer_sets,
            json,
        } => {
            let puzzle = book.find(&puzzle).map_err(anyhow::Error::msg)?;
            let kind = parse_backend(backend.as_deref().unwrap_or("wgpu"))?;
            let mut overrides = runner::expr::Constants::new();
            for pair in &set {
                let (name, value) = pair
                    .split_once('=')
                    .with_context(|| format!("--set takes NAME=VALUE, got `{pair}`"))?;
                let value = runner::expr::eval(value, &puzzle.spec.raw.constants)
                    .map_err(|e| anyhow::anyhow!("--set {pair}: {e}"))?;
                overrides.insert(name.to_string(), value);
            }
            let runner = Runner::new(Settings::default());
            let backend = runner.backend(kind).map_err(|e| anyhow::anyhow!("{e}"))?;
            let (recordings, _) =
                runner::record::load_all(&book.root.join(runner::record::RESULTS_DIR));
            let ceilings = runner::record::find(&recordings, backend.device())
                .and_then(|r| r.ceilings.clone());
            let options = runner::bench::Options {
                overrides,
                samples,
                warmup,
                timeout: Duration::from_secs(timeout),
                buffer_sets,
            };
            let report = runner::bench::bench(puzzle, backend, &options, ceilings.as_ref())?
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.to_text());
            }
            Ok(match report.checked {
                runner::bench::Checked::Failed(_) => ExitCode::from(1),
                _ => ExitCode::SUCCESS,
            })
        }
        Command::Show {
            puzzle,
            lang,
            solution,
        } => {
            let puzzle = book.find(&puzzle).map_err(anyhow::Error::msg)?;
            let lang = Lang::from_fence(&lang)
                .with_context(|| format!("unknown language `{lang}`; use wgsl or cuda"))?;
            let kernel = puzzle
                .require_kernel(lang)
                .map_err(|e| anyhow::anyhow!(e.message))?;
            let variant = if solution {
                Variant::Solution
            } else {
                Variant::Skeleton
            };
            print!("{}", kernel.variant(variant).text);
            Ok(ExitCode::SUCCESS)
        }
        Command::Run {
            puzzle,
            backend,
            skeleton,
            solution: _,
            file,
            samples,
            timeout,
            json,
            stress,
        } => {
            let puzzle = book.find(&puzzle).map_err(anyhow::Error::msg)?;
            let file_lang = match &file {
                Some(path) => {
                    let ext = path
                        .extension()
                        .and_then(|e| e.to_str())
                        .unwrap_or_default();
                    Some(Lang::from_extension(ext).with_context(|| {
                        format!(
                            "{}: cannot tell the language; name it .wgsl or .cu",
                            path.display()
                        )
                    })?)
                }
                None => None,
            };
            let settings = Settings {
                timing_samples: samples,
                timeout: Duration::from_secs(timeout),
            };
            let runner = Runner::new(settings);
            let kind = match backend.as_deref() {
                Some(name) => BackendKind::parse(name)
                    .with_context(|| format!("unknown backend `{name}`; use wgpu, cuda or sim"))?,
                // WGSL falls back to the CPU checker where no GPU adapter exists.
                None => runner.default_backend(file_lang.unwrap_or(Lang::Wgsl)),
            };
            let lang = kind.lang();
            if file_lang.is_some_and(|l| l != lang) {
                bail!(
                    "the {kind} backend runs {} kernels, not {}",
                    lang.label(),
                    file_lang.map(Lang::label).unwrap_or_default()
                );
            }
            let (variant, source) = match &file {
                Some(path) => {
                    let source = SourceText::read(path)?;
                    if source.text.trim().is_empty() {
                        bail!(
                            "{}: the file is empty; start from the skeleton (`runner show {} --lang {lang}`)",
                            path.display(),
                            puzzle.id()
                        );
                    }
                    (Variant::File, source)
                }
                None => {
                    let variant = if skeleton {
                        Variant::Skeleton
                    } else {
                        Variant::Solution
                    };
                    let kernel = puzzle
                        .require_kernel(lang)
                        .map_err(|e| anyhow::anyhow!(e.message))?;
                    (variant, kernel.variant(variant))
                }
            };
            // The teaching size first, then (with --stress) every stress case of the spec.
            let mut cases = vec![None];
            if stress {
                let declared = puzzle.spec.stress_cases();
                if declared.is_empty() {
                    eprintln!(
                        "note: `{}` declares no stress cases (its kernel is size-specific)",
                        puzzle.id()
                    );
                }
                cases.extend(declared.into_iter().map(Some));
            }
            let mut worst = 0;
            for case in &cases {
                let report = runner.run_source_on(kind, puzzle, variant, &source, case.as_ref())?;
                if let Some(case) = case {
                    let set: Vec<String> = case.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    println!(
                        "\n-- stress run: {} (random inputs, CPU reference)",
                        set.join(", ")
                    );
                }
                if json {
                    println!("{}", serde_json::to_string_pretty(&report)?);
                } else {
                    print!("{}", report.to_text());
                }
                let code = match report.status {
                    Status::Pass => 0,
                    Status::Fail | Status::CompileError => 1,
                    Status::Compiled | Status::Unavailable | Status::Error => 2,
                };
                if worst == 0 {
                    worst = code;
                }
            }
            Ok(ExitCode::from(worst))
        }
    }
}
