//! Where a run's threads were when its time ran out: the report of a
//! kernel that never ends, and of who waits for whom.

use crate::hazard::LineMap;
use crate::launch::Error;
use crate::parse::module::Kernel;
use crate::thread::{Stop, ThreadState, describe};
use std::collections::BTreeMap;

/// Where the threads were when the clock ran out: those still running
/// (the loop that never ends) are the report's line; those waiting (at a
/// barrier, a warp operation or an mbarrier) are named beside it, so the
/// report says who waits for whom.
pub fn timed_out(kernel: &Kernel, blocks: &[Vec<ThreadState>], lines: &dyn LineMap) -> Error {
    // (waiting, line) -> (threads, the first of them)
    let mut at: BTreeMap<(bool, usize), (usize, String)> = BTreeMap::new();
    for t in blocks
        .iter()
        .flatten()
        .filter(|t| t.stop != Some(Stop::Done))
    {
        let line = kernel.body.get(t.pc).map_or(0, |i| i.line as usize);
        let waiting = matches!(
            t.stop,
            Some(
                Stop::Barrier { .. } | Stop::Warp { .. } | Stop::Wait | Stop::Cluster | Stop::Spin
            )
        );
        at.entry((waiting, line))
            .or_insert_with(|| (0, describe(&t.thread)))
            .0 += 1;
    }
    // The running threads' busiest line, else the waiters'.
    let Some((&(waiting, line), (count, first))) = at
        .iter()
        .filter(|((_, line), _)| *line > 0)
        .max_by_key(|((waiting, line), (n, _))| (!*waiting, *n, std::cmp::Reverse(*line)))
    else {
        return Error::TimedOut {
            line: 0,
            message: String::new(),
        };
    };
    let who = |n: usize, first: &str| match n {
        1 => first.to_string(),
        n => format!("{n} threads ({first} among them)"),
    };
    let mut message = if waiting {
        format!("{} waited here", who(*count, first))
    } else {
        format!("{} still ran this line", who(*count, first))
    };
    let others: Vec<String> = at
        .iter()
        .filter(|(key, _)| **key != (waiting, line))
        .map(|(&(w, l), (n, first))| {
            let place = match l {
                0 => "an unknown line".to_string(),
                l => format!("line {}", lines.line(l)),
            };
            match w {
                true => format!("{} waited at {place}", who(*n, first)),
                false => format!("{} still ran {place}", who(*n, first)),
            }
        })
        .collect();
    if !others.is_empty() {
        message.push_str(&format!(", while {}", others.join("; ")));
    }
    Error::TimedOut { line, message }
}
