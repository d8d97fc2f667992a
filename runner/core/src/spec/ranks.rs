//! Specs on several GPUs (`gpus:`), flattened into a spec like any other.
//!
//! Rank r's copy of buffer `a` becomes its own buffer, `a@r`; a scalar
//! whose value uses `RANK` becomes one scalar a rank, `rank@r`; a peer
//! table (`peers: { a_all: a }`) becomes one argument holding the indices
//! of `a@0`, `a@1`, …; and each launch is made once per rank, step-major
//! and rank-minor, with that rank's arguments. The judge, the reports and
//! the cache then see named buffers as ever. This module decides the
//! layout; [`super::resolve`] fills it (sizes, contents, expected values).

use crate::lang::Lang;
use crate::spec::expr::{self, Constants};
use crate::spec::model::{Launch, MAX_GPUS, rank_name};
use crate::spec::raw::{Place, RawSpec, ScalarValue};

/// A mistake at a line of the spec's YAML (0: the spec as a whole).
pub(super) type Mistake = (u64, String);

/// The name a scalar's value uses for each rank's own index (`value: RANK`).
pub(super) const RANK: &str = "RANK";

/// The GPUs a spec runs on: `gpus:` evaluated, 1 when absent. Also checks
/// that the keys that only mean something on several GPUs are used only there.
pub(super) fn gpus(raw: &RawSpec, constants: &Constants) -> Result<u32, Mistake> {
    if raw.constants.contains_key(RANK) {
        return Err((
            0,
            format!(
                "`{RANK}` is reserved (a scalar's `value: {RANK}` is each rank's own index); \
                 give the constant another name"
            ),
        ));
    }
    let Some(gpus) = &raw.gpus else {
        return one_gpu(raw).map(|()| 1);
    };
    let line = gpus.referenced.line();
    let n = expr::eval(&gpus.value.0, constants).map_err(|e| (line, format!("gpus: {e}")))?;
    if !(2..=i64::from(MAX_GPUS)).contains(&n) {
        return Err((
            line,
            format!(
                "`gpus` is {n}; a spec runs on 2 to {MAX_GPUS} GPUs (leave `gpus` out for one)"
            ),
        ));
    }
    if !raw.why_no_kernel.contains_key(&Lang::Wgsl) {
        return Err((
            line,
            "a spec on several GPUs needs `why_no_kernel: { wgsl: \"...\" }`: WebGPU drives one \
             GPU and has no peer memory"
                .to_string(),
        ));
    }
    let n = n as u32;
    for (name, buffer) in &raw.buffers {
        let line = buffer.referenced.line();
        match buffer.value.place {
            Place::Gpu(r) if r >= n => {
                return Err((
                    line,
                    format!(
                        "buffer `{name}` has `place: {r}`, but the spec runs on {n} GPUs \
                         (0 to {})",
                        n - 1
                    ),
                ));
            }
            Place::Copy if buffer.value.init.is_none() => {
                return Err((
                    line,
                    format!(
                        "buffer `{name}` has `place: copy`, which gives every rank rank 0's \
                         `init`, but it has no `init`; leave `place` out"
                    ),
                ));
            }
            _ => {}
        }
    }
    Ok(n)
}

/// Refuses, at its line, whatever a spec on one GPU has that needs several.
fn one_gpu(raw: &RawSpec) -> Result<(), Mistake> {
    if let Some((table, _)) = raw.peers.iter().next() {
        let line = raw.peers.values().map(|b| b.referenced.line()).min();
        return Err((
            line.unwrap_or(0),
            format!(
                "`peers` (`{table}`) needs `gpus:`: a peer table holds a buffer's address on \
                 every GPU"
            ),
        ));
    }
    if let Some(bus) = &raw.bus_bytes {
        return Err((
            bus.referenced.line(),
            "`bus_bytes` needs `gpus:`: it is the bytes a collective moves between GPUs"
                .to_string(),
        ));
    }
    for (name, scalar) in &raw.scalars {
        if uses_rank(&scalar.value.value) {
            return Err((
                scalar.referenced.line(),
                format!("scalar `{name}` uses `{RANK}`, each GPU's own index, which needs `gpus:`"),
            ));
        }
    }
    for (name, buffer) in &raw.buffers {
        let place = match buffer.value.place {
            Place::Each => continue,
            Place::Copy => "copy".to_string(),
            Place::Gpu(r) => r.to_string(),
        };
        return Err((
            buffer.referenced.line(),
            format!("buffer `{name}` has `place: {place}`, which needs `gpus:`"),
        ));
    }
    Ok(())
}

/// `bus_bytes:` evaluated, where the spec gives it.
pub(super) fn bus_bytes(raw: &RawSpec, constants: &Constants) -> Result<Option<u64>, Mistake> {
    let Some(bus) = &raw.bus_bytes else {
        return Ok(None);
    };
    let line = bus.referenced.line();
    let v = expr::eval(&bus.value.0, constants).map_err(|e| (line, format!("bus_bytes: {e}")))?;
    u64::try_from(v)
        .map(Some)
        .map_err(|_| (line, format!("`bus_bytes` is {v}; it must be 0 or more")))
}

/// Whether a scalar's value names `RANK`.
pub(super) fn uses_rank(value: &ScalarValue) -> bool {
    match value {
        ScalarValue::Number(_) => false,
        ScalarValue::Expr(text) => text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|word| word == RANK),
    }
}

/// Which rank's contents one copy of a buffer takes: rank `rank` of
/// `ranks`, with `random` seeds moved by the rank where `vary` (see
/// [`crate::spec::data::Values::for_rank`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Pick {
    pub rank: u32,
    pub ranks: u32,
    pub vary: bool,
}

/// What one argument of the flat spec is made of.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Kind {
    /// Buffer `name`, as one rank holds it (`pick`, `None` on one GPU); a
    /// `place: copy` buffer past rank 0 repeats the argument `copy_of`.
    Buffer {
        pick: Option<Pick>,
        copy_of: Option<usize>,
    },
    /// Scalar `name`; a scalar of each rank's own has `RANK` = `rank`.
    Scalar,
    /// A peer table: the indices of the buffer's copies, by rank.
    Peers(Vec<usize>),
}

/// One argument of the flat spec.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Entry<'a> {
    /// The name as the spec writes it (`a`), for its line and its contents.
    pub name: &'a str,
    /// The name in the flat spec (`a@1`; `a` on one GPU).
    pub flat: String,
    /// The GPU that holds it, or the rank a scalar is for.
    pub rank: Option<u32>,
    pub kind: Kind,
}

/// Where one name of `args` lands in the flat spec's arguments: one index
/// for every rank, or one a rank.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Slot {
    Shared(usize),
    PerRank(Vec<usize>),
}

impl Slot {
    fn at(&self, rank: u32) -> usize {
        match self {
            Slot::Shared(i) => *i,
            Slot::PerRank(each) => each[rank as usize],
        }
    }
}

/// The flat spec's arguments, and where each name of `args` went.
#[derive(Debug, Default)]
pub(super) struct Layout<'a> {
    pub entries: Vec<Entry<'a>>,
    /// One per name of `args`, in its order.
    pub slots: Vec<Slot>,
}

impl<'a> Layout<'a> {
    /// Lays out the arguments of `raw` on `gpus` GPUs (1: as written), and
    /// checks that `args` names each buffer, scalar and peer table exactly
    /// once (a buffer may instead be reached through a peer table only).
    pub(super) fn new(raw: &'a RawSpec, gpus: u32) -> Result<Layout<'a>, Mistake> {
        let args_line = raw.args.referenced.line();
        check_peers(raw)?;
        let mut layout = Layout::default();
        let mut laid: Vec<(&str, Slot)> = Vec::new();
        for (i, name) in raw.args.value.iter().enumerate() {
            if raw.args.value[..i].contains(name) {
                return Err((args_line, format!("`{name}` appears twice in `args`")));
            }
            let slot = if let Some((name, _)) = raw.buffers.get_key_value(name) {
                layout.buffer(raw, name, gpus, &mut laid)
            } else if let Some((name, scalar)) = raw.scalars.get_key_value(name) {
                if gpus > 1 && uses_rank(&scalar.value.value) {
                    Slot::PerRank(
                        (0..gpus)
                            .map(|r| layout.push(name, rank_name(name, r), Some(r), Kind::Scalar))
                            .collect(),
                    )
                } else {
                    Slot::Shared(layout.push(name, name.clone(), None, Kind::Scalar))
                }
            } else if let Some((table, buffer)) = raw.peers.get_key_value(name) {
                let Some((buffer, _)) = raw.buffers.get_key_value(&buffer.value) else {
                    let line = buffer.referenced.line();
                    return Err((line, format!("peer table `{table}` names no buffer")));
                };
                let of = match layout.buffer(raw, buffer, gpus, &mut laid) {
                    Slot::PerRank(each) => each,
                    Slot::Shared(i) => vec![i],
                };
                Slot::Shared(layout.push(table, table.clone(), None, Kind::Peers(of)))
            } else {
                let also = if raw.peers.is_empty() {
                    ""
                } else {
                    " nor a peer table"
                };
                return Err((
                    args_line,
                    format!("`args` names `{name}`, which is neither a buffer nor a scalar{also}"),
                ));
            };
            layout.slots.push(slot);
        }
        unused(raw)?;
        Ok(layout)
    }

    fn push(&mut self, name: &'a str, flat: String, rank: Option<u32>, kind: Kind) -> usize {
        self.entries.push(Entry {
            name,
            flat,
            rank,
            kind,
        });
        self.entries.len() - 1
    }

    /// Buffer `name`'s copies (laid out once, where `args` or a peer table first names it).
    fn buffer(
        &mut self,
        raw: &RawSpec,
        name: &'a str,
        gpus: u32,
        laid: &mut Vec<(&'a str, Slot)>,
    ) -> Slot {
        if let Some((_, slot)) = laid.iter().find(|(n, _)| *n == name) {
            return slot.clone();
        }
        let place = raw.buffers.get(name).map_or(Place::Each, |b| b.value.place);
        let kind = |rank: Option<u32>, copy_of| Kind::Buffer {
            pick: rank.map(|rank| Pick {
                rank,
                ranks: gpus,
                vary: place == Place::Each,
            }),
            copy_of,
        };
        let slot = match place {
            _ if gpus == 1 => {
                Slot::Shared(self.push(name, name.to_string(), None, kind(None, None)))
            }
            Place::Gpu(r) => {
                Slot::Shared(self.push(name, name.to_string(), Some(r), kind(Some(r), None)))
            }
            Place::Each | Place::Copy => {
                let first = self.entries.len();
                let each = (0..gpus).map(|r| {
                    let copy_of = (place == Place::Copy && r > 0).then_some(first);
                    self.push(name, rank_name(name, r), Some(r), kind(Some(r), copy_of))
                });
                Slot::PerRank(each.collect())
            }
        };
        laid.push((name, slot.clone()));
        slot
    }
}

/// Each peer table names a buffer that every rank holds, and no table has a
/// buffer's or a scalar's name.
fn check_peers(raw: &RawSpec) -> Result<(), Mistake> {
    for (table, buffer) in &raw.peers {
        let line = buffer.referenced.line();
        if raw.buffers.contains_key(table) || raw.scalars.contains_key(table) {
            return Err((
                line,
                format!(
                    "peer table `{table}` has the name of a buffer or scalar; call it otherwise \
                     (`{table}_all`)"
                ),
            ));
        }
        match raw.buffers.get(&buffer.value).map(|b| b.value.place) {
            None => {
                let known: Vec<&str> = raw.buffers.keys().map(String::as_str).collect();
                return Err((
                    line,
                    format!(
                        "peer table `{table}` names `{}`, which is not a buffer (buffers: {})",
                        buffer.value,
                        known.join(", ")
                    ),
                ));
            }
            Some(Place::Gpu(r)) => {
                return Err((
                    line,
                    format!(
                        "peer table `{table}` names `{}`, which has `place: {r}`: a peer table \
                         is for a buffer every rank holds a copy of",
                        buffer.value
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Every buffer, scalar and peer table is passed: in `args`, or (a buffer)
/// through a peer table that is.
fn unused(raw: &RawSpec) -> Result<(), Mistake> {
    let listed = |name: &String| raw.args.value.contains(name);
    let buffers = raw.buffers.iter().map(|(n, b)| {
        let reached = raw.peers.iter().any(|(t, b)| b.value == *n && listed(t));
        (n, b.referenced.line(), reached)
    });
    let scalars = raw
        .scalars
        .iter()
        .map(|(n, s)| (n, s.referenced.line(), false));
    let tables = raw
        .peers
        .iter()
        .map(|(n, b)| (n, b.referenced.line(), false));
    for (name, line, reached) in buffers.chain(scalars).chain(tables) {
        if !listed(name) && !reached {
            return Err((
                line,
                format!("`{name}` is declared but not listed in `args`"),
            ));
        }
    }
    Ok(())
}

/// Each launch once per rank, step-major and rank-minor, its arguments
/// (indices into the spec's `args`, as written) moved to that rank's.
pub(super) fn per_rank(launches: Vec<Launch>, slots: &[Slot], gpus: u32) -> Vec<Launch> {
    launches
        .into_iter()
        .flat_map(|launch| {
            (0..gpus).map(move |rank| Launch {
                args: launch.args.iter().map(|&i| slots[i].at(rank)).collect(),
                rank,
                ..launch.clone()
            })
        })
        .collect()
}
