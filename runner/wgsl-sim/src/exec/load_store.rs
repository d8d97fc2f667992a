//! Loads and stores: through pointers into the module's memory or the
//! invocation's own, with out-of-bounds indices reported and guard bands
//! honoured, every storage access counted, and every access to shared
//! memory checked for races and uninitialized reads ([`crate::hazard`]).

use super::Invocation;
use crate::access::Thread;
use crate::hazard::{self, Access};
use crate::memory::{Region, Space};
use crate::pointer::{Pointee, Ptr, Root};
use crate::program::{Fault, Program};
use crate::shared::{Shared, invocation_name};
use crate::trace::Touch;
use crate::value::{Scalar, Value};
use naga::{Handle, Span};

impl<'m> Invocation<'m> {
    pub(super) fn who(&self, shared: &Shared) -> String {
        shared.who(self.ids.invocation, self.ids.num_workgroups)
    }

    pub(super) fn access(&self, shared: &Shared, space: Space, span: Span) -> Access {
        Access {
            thread: self.ids.invocation,
            block: self.ids.workgroup_index,
            epoch: shared.epochs[usize::from(space != Space::Workgroup)],
            at: span,
        }
    }

    /// Reads through a pointer; `checked` accesses take part in the race and initialisation checks (atomics do not).
    pub(super) fn load(
        &mut self,
        prog: &Program<'m>,
        shared: &mut Shared,
        ptr: Ptr,
        span: Span,
        checked: bool,
    ) -> Result<Value, Fault> {
        self.count(shared, &ptr, false, span);
        self.trace(prog, shared, &ptr, false, span, !checked);
        let n = prog.layout.pointee_leaves(ptr.pointee);
        let range = ptr.offset..ptr.offset + n;
        if !ptr.valid {
            let zeros = self.zeros(prog, ptr);
            return Ok(prog.layout.build(ptr.pointee, &zeros));
        }
        if n == 1 {
            // The common case, without a vector of leaves.
            let leaf = match ptr.root {
                Root::Local { frame, var } => self.frames[frame as usize].locals[var as usize]
                    .get(ptr.offset)
                    .copied(),
                Root::Global(g) => match shared.globals[g as usize].as_ref() {
                    None => self
                        .private_slots(prog, g as usize)
                        .get(ptr.offset)
                        .copied(),
                    Some(_) => {
                        if checked {
                            self.check(prog, shared, g as usize, range.clone(), span, false);
                        }
                        shared.globals[g as usize]
                            .as_ref()
                            .and_then(|r| r.slots.get(ptr.offset).copied())
                    }
                },
            };
            return Ok(match leaf {
                Some(s) => Value::Scalar(s),
                None => prog.layout.build(ptr.pointee, &self.zeros(prog, ptr)),
            });
        }
        let leaves: Vec<Scalar> = match ptr.root {
            Root::Local { frame, var } => self.frames[frame as usize].locals[var as usize]
                .get(range)
                .map(<[_]>::to_vec)
                .unwrap_or_default(),
            Root::Global(g) => match shared.globals[g as usize].as_ref() {
                None => self
                    .private_slots(prog, g as usize)
                    .get(range)
                    .map(<[_]>::to_vec)
                    .unwrap_or_default(),
                Some(_) => {
                    if checked {
                        self.check(prog, shared, g as usize, range.clone(), span, false);
                    }
                    let r = shared.globals[g as usize].as_ref().expect("checked above");
                    r.slots.get(range).map(<[_]>::to_vec).unwrap_or_default()
                }
            },
        };
        Ok(prog.layout.build(ptr.pointee, &leaves))
    }

    pub(super) fn store(
        &mut self,
        prog: &Program<'m>,
        shared: &mut Shared,
        ptr: Ptr,
        v: &Value,
        span: Span,
        checked: bool,
    ) {
        self.count(shared, &ptr, true, span);
        self.trace(prog, shared, &ptr, true, span, !checked);
        if !ptr.valid {
            return;
        }
        // A scalar, the common case, is stored without a vector of leaves.
        let mut one = [Scalar::U32(0)];
        let mut many = Vec::new();
        let leaves: &[Scalar] = match v {
            Value::Scalar(s) => {
                one[0] = *s;
                &one
            }
            _ => {
                v.flatten(&mut many);
                &many
            }
        };
        let range = ptr.offset..ptr.offset + leaves.len();
        let slots: &mut Vec<Scalar> = match ptr.root {
            Root::Local { frame, var } => &mut self.frames[frame as usize].locals[var as usize],
            Root::Global(g) => {
                if shared.globals[g as usize].is_some() {
                    if checked {
                        self.check(prog, shared, g as usize, range.clone(), span, true);
                    } else if let Some(r) = shared.globals[g as usize].as_mut() {
                        // An atomic write initialises the word all the same.
                        for shadow in r.shadow.get_mut(range.clone()).into_iter().flatten() {
                            shadow.mark_written(hazard::ALL_BYTES);
                        }
                    }
                    &mut shared.globals[g as usize]
                        .as_mut()
                        .expect("checked above")
                        .slots
                } else {
                    self.private_slots(prog, g as usize)
                }
            }
        };
        if let Some(dest) = slots.get_mut(range) {
            // Keep each slot's own kind: a buffer's words are bits, whatever type wrote them.
            dest.copy_from_slice(leaves);
        }
    }

    /// Counts an access to a storage buffer (the rule is in [`crate::access`]),
    /// out-of-bounds ones included: the kernel issued them.
    pub(super) fn count(&mut self, shared: &mut Shared, ptr: &Ptr, write: bool, span: Span) {
        let Root::Global(g) = ptr.root else {
            return;
        };
        if !matches!(shared.globals[g as usize].as_ref(), Some(r) if r.space == Space::Storage) {
            return;
        }
        let count = if write {
            self.writes = self.writes.saturating_add(1);
            self.writes
        } else {
            self.reads = self.reads.saturating_add(1);
            self.reads
        };
        let thread = self.thread(shared.launch);
        shared.access.access(write, count, thread, span);
    }

    /// Keeps the access for the diagrams, where the run is traced. An
    /// access beyond the variable and its guard band is not kept: the index
    /// it meant is not known here (the hazard names it).
    pub(super) fn trace(
        &self,
        prog: &Program<'m>,
        shared: &mut Shared,
        ptr: &Ptr,
        write: bool,
        span: Span,
        atomic: bool,
    ) {
        let (true, Root::Global(g), true) = (shared.trace.is_some(), ptr.root, ptr.valid) else {
            return;
        };
        let Some((space, len)) = shared.globals[g as usize]
            .as_ref()
            .map(|r| (r.space, r.len))
        else {
            return;
        };
        let now = self.access(shared, space, span);
        let touch = Touch {
            element: ptr.offset,
            invocation: now.thread,
            workgroup: now.block,
            launch: shared.launch as u32,
            interval: now.epoch,
            write,
            atomic,
            outside: ptr.offset >= len,
            first: true,
            line: shared.lines.line(span),
        };
        let n = prog.layout.pointee_leaves(ptr.pointee);
        if let Some(tracer) = shared.trace.as_mut() {
            tracer.touch(g as usize, ptr.offset..ptr.offset + n, touch);
        }
    }

    /// This invocation, for the access report.
    pub fn thread(&self, launch: usize) -> Thread {
        Thread {
            global: self.ids.global,
            local: self.ids.local,
            workgroup: self.ids.workgroup,
            launch,
        }
    }

    pub(super) fn zeros(&mut self, prog: &Program<'m>, ptr: Ptr) -> Vec<Scalar> {
        let mut out = Vec::new();
        match ptr.pointee {
            Pointee::Type(ty) => prog.layout.zero(ty, &mut out),
            Pointee::Scalar(kind) => out.push(Scalar::zero(kind)),
        }
        out
    }

    pub(super) fn private_slots(&mut self, prog: &Program<'m>, g: usize) -> &mut Vec<Scalar> {
        self.private[g].get_or_insert_with(|| {
            let (_, var) = prog
                .module
                .global_variables
                .iter()
                .nth(g)
                .expect("a global");
            let mut leaves = Vec::new();
            match var.init.and_then(|i| prog.global_expression(i)) {
                Some(v) => v.flatten(&mut leaves),
                None => prog.layout.zero(var.ty, &mut leaves),
            }
            leaves
        })
    }

    /// The race and initialisation checks for an access to leaves `range` of global `g`.
    /// Checks an access to leaves `range` of global `g` for races and
    /// uninitialized reads ([`hazard::check_access`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check(
        &self,
        prog: &Program<'m>,
        shared: &mut Shared,
        g: usize,
        range: std::ops::Range<usize>,
        span: Span,
        write: bool,
    ) {
        let (block, workgroups) = (shared.block, self.ids.num_workgroups);
        let Some(space) = shared.globals[g].as_ref().map(|r| r.space) else {
            return;
        };
        let now = self.access(shared, space, span);
        let Shared {
            globals,
            hazards,
            lines,
            ..
        } = shared;
        let Some(Region {
            name,
            ty,
            shadow,
            starts_unwritten,
            ..
        }) = globals[g].as_mut()
        else {
            return;
        };
        if shadow.is_empty() {
            return;
        }
        let names = AccessNames {
            prog,
            name,
            ty: *ty,
            block,
            workgroups,
        };
        let memory = hazard::Memory {
            workgroup: space == Space::Workgroup,
            starts_unwritten: *starts_unwritten,
            described: space.describe(),
        };
        let end = range.end.min(shadow.len());
        let first = range.start.min(end);
        hazard::check_access(
            hazards,
            *lines,
            &mut shadow[first..end],
            first,
            memory,
            now,
            write,
            &names,
        );
    }
}

/// How the checks name an invocation and an element of the variable accessed.
struct AccessNames<'a, 'm> {
    prog: &'a Program<'m>,
    name: &'a str,
    ty: Handle<naga::Type>,
    block: [u32; 3],
    workgroups: [u32; 3],
}

impl hazard::Names for AccessNames<'_, '_> {
    fn invocation(&self, number: u32) -> String {
        invocation_name(number, self.block, self.workgroups)
    }

    fn element(&self, leaf: usize) -> String {
        format!(
            "`{}{}`",
            self.name,
            self.prog.layout.describe(self.ty, leaf)
        )
    }
}
