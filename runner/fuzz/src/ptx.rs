//! The CUDA checker's fuzz targets: PTX text as NVRTC might write it (or
//! not), parsed, and run on two small buffers. Neither may panic, a run
//! must end within its limit (an endless loop is a time-out, a deadlock a
//! report), and every hazard must name a line the CUDA source has (one the
//! PTX's `.loc` directives name, or 0).

use ptx_sim::{Buffer, Config, Launch, Module, Param, SameLines};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_millis(300);
const SLACK: Duration = Duration::from_secs(3);

/// Any text: the parser returns a module or an error at a PTX line that exists.
pub fn ptx_parse(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let lines = text.lines().count().max(1);
    match Module::parse(&text) {
        Ok(module) => {
            for k in &module.kernels {
                let _ = module.unsupported(&k.name);
                for i in &k.body {
                    assert!(i.line as usize <= max_loc(&text), "{i:?}");
                }
            }
        }
        Err(ptx_sim::Error::Parse { ptx_line, message }) => {
            assert!(
                ptx_line <= lines + 1,
                "line {ptx_line} of {lines}: {message}"
            );
            assert!(!message.trim().is_empty());
        }
        Err(other) => panic!("the parser answered {other:?}"),
    }
}

/// The largest line a `.loc` of the text names.
fn max_loc(text: &str) -> usize {
    text.match_indices(".loc")
        .filter_map(|(at, _)| {
            let rest = &text[at + 4..];
            let rest = &rest[..rest.find('\n').unwrap_or(rest.len())];
            let mut words = rest
                .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
                .filter(|w| !w.is_empty());
            words.next()?;
            // The number a word starts with (the parser stops at `{` or `;` too).
            let leading = |w: &str| {
                w.trim_start_matches('+')
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
                    .parse::<usize>()
                    .ok()
            };
            let line = leading(words.next()?)?;
            let inlined = rest.find("inlined_at").and_then(|at| {
                rest[at + 10..]
                    .split_whitespace()
                    .nth(1)?
                    .parse::<usize>()
                    .ok()
            });
            Some(line.max(inlined.unwrap_or(0)))
        })
        .max()
        .unwrap_or(0)
}

/// Parsed text's first kernel, run over two blocks of 40 threads: its
/// pointer parameters get two buffers of 64 floats (the first poisoned),
/// its 32-bit ones the value 64, any other zeros.
pub fn ptx_run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(module) = Module::parse(&text) else {
        return;
    };
    let Some(kernel) = module.kernels.first() else {
        return;
    };
    let band = vec![0xA5u8; 64];
    let buffer = |name: &str, poisoned: bool| Buffer {
        name: name.into(),
        bytes: [
            band.clone(),
            vec![if poisoned { 0xFF } else { 0 }; 256],
            band.clone(),
        ]
        .concat(),
        lead: 64,
        len: 256,
        element_bytes: 4,
        poisoned,
    };
    let mut pointers = 0;
    let args = kernel
        .params
        .iter()
        .map(|(_, size)| match size {
            8 => {
                pointers += 1;
                Param::Buffer((pointers - 1) % 2)
            }
            4 => Param::Value(64u32.to_le_bytes().to_vec()),
            n => Param::Value(vec![0; *n as usize]),
        })
        .collect();
    let launch = Launch {
        entry: kernel.name.clone(),
        grid: [2, 1, 1],
        block: [40, 1, 1],
        dynamic_shared_bytes: 256,
        args,
        rank: 0,
    };
    let config = Config {
        limits: ptx_sim::Limits {
            timeout: TIMEOUT,
            memory: 64 << 20,
            ..ptx_sim::Limits::default()
        },
        ..Config::default()
    };
    let started = Instant::now();
    let result = ptx_sim::run(
        &module,
        &[launch],
        &[buffer("out", true), buffer("a", false)],
        &SameLines,
        &config,
    );
    let took = started.elapsed();
    assert!(took < TIMEOUT + SLACK, "the checker took {took:?}:\n{text}");
    if let Ok(run) = result {
        let most = max_loc(&text);
        for h in &run.findings.hazards {
            assert!(
                h.at <= most,
                "a hazard at line {} of {most}: {}",
                h.at,
                h.message
            );
        }
        assert_eq!(run.buffers[0].len(), 384, "the buffer came back whole");
    }
}
