//! One invocation's interpreter: explicit call frames and block cursors over
//! naga's IR, so an invocation can stop at a barrier (even inside a called
//! function or a loop) and resume where it stopped when its workgroup has
//! arrived. Expressions are [`eval`]'s; loads, stores and the checks on every access
//! are [`load_store`]'s.

mod eval;
use eval::atomic;
mod load_store;

use crate::program::{Fault, Program, short_name, unsupported};
use crate::shared::{Ids, Shared};
use crate::value::{Scalar, Value};
use naga::{Barrier, Block, Expression, Function, Handle, Span, Statement};

/// The span of statement `index` of `block`.
fn statement_span(block: &Block, index: usize) -> Span {
    block
        .span_iter()
        .nth(index)
        .map(|(_, s)| *s)
        .unwrap_or_default()
}

/// Where an invocation stands.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    Ready,
    /// Waiting at the barrier statement at `span`.
    AtBarrier {
        span: Span,
        flags: Barrier,
    },
    /// Waiting at a subgroup operation for the rest of its subgroup.
    AtSubgroup(Box<Pending>),
    Done,
}

/// A subgroup operation an invocation has reached, with its operands
/// evaluated: the schedule gathers those of one subgroup and hands each its result.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    pub span: Span,
    pub op: SubgroupOp,
    /// This invocation's argument (a bool for ballots and `subgroupAll`/`Any`).
    pub value: Value,
    /// The expression that receives the result (none for `subgroupBarrier`).
    pub result: Option<Handle<Expression>>,
}

/// What a subgroup rendezvous computes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SubgroupOp {
    /// `subgroupBarrier()`: the rendezvous alone.
    Barrier,
    Ballot,
    Collective(naga::SubgroupOperation, naga::CollectiveOperation),
    /// A gather, with the lane to read from computed for this invocation
    /// (`None` for `subgroupBroadcastFirst`, whose lane depends on who is active).
    Gather(Option<u32>),
}

#[derive(Clone, Copy)]
struct LoopParts<'m> {
    body: &'m Block,
    continuing: &'m Block,
    break_if: Option<Handle<Expression>>,
}

#[derive(Clone, Copy)]
enum CursorKind<'m> {
    Plain,
    LoopBody(LoopParts<'m>),
    LoopContinuing(LoopParts<'m>),
    Case(&'m [naga::SwitchCase], usize),
}

/// The next statement of a block being executed.
struct Cursor<'m> {
    block: &'m Block,
    next: usize,
    kind: CursorKind<'m>,
}

struct Frame<'m> {
    function: &'m Function,
    values: Vec<Option<Value>>,
    args: Vec<Value>,
    locals: Vec<Vec<Scalar>>,
    cursors: Vec<Cursor<'m>>,
    /// Where the caller wants the result.
    result: Option<Handle<Expression>>,
}

pub struct Invocation<'m> {
    pub ids: Ids,
    pub state: State,
    /// Loads from and stores to storage buffers so far.
    pub reads: u32,
    pub writes: u32,
    frames: Vec<Frame<'m>>,
    /// `var<private>` variables, made on first use.
    private: Vec<Option<Vec<Scalar>>>,
}

impl<'m> Invocation<'m> {
    pub fn new(
        prog: &Program<'m>,
        entry: &'m naga::EntryPoint,
        ids: Ids,
    ) -> Result<Invocation<'m>, Fault> {
        let args = entry
            .function
            .arguments
            .iter()
            .map(|arg| builtin_argument(prog, arg, &ids))
            .collect::<Result<Vec<_>, _>>()?;
        let mut inv = Invocation {
            ids,
            state: State::Ready,
            reads: 0,
            writes: 0,
            frames: Vec::new(),
            private: vec![None; prog.module.global_variables.len()],
        };
        inv.call(prog, &entry.function, args, None)?;
        Ok(inv)
    }

    fn call(
        &mut self,
        prog: &Program<'m>,
        function: &'m Function,
        args: Vec<Value>,
        result: Option<Handle<Expression>>,
    ) -> Result<(), Fault> {
        self.frames.push(Frame {
            function,
            values: vec![None; function.expressions.len()],
            args,
            locals: Vec::with_capacity(function.local_variables.len()),
            cursors: vec![Cursor {
                block: &function.body,
                next: 0,
                kind: CursorKind::Plain,
            }],
            result,
        });
        for (_, var) in function.local_variables.iter() {
            let mut leaves = Vec::new();
            match var.init {
                Some(init) => self.get(prog, init)?.flatten(&mut leaves),
                None => prog.layout.zero(var.ty, &mut leaves),
            }
            self.frame().locals.push(leaves);
        }
        Ok(())
    }

    fn frame(&mut self) -> &mut Frame<'m> {
        self.frames
            .last_mut()
            .expect("a running invocation has a frame")
    }

    /// Runs until the invocation reaches a barrier or its end.
    pub fn run(&mut self, prog: &Program<'m>, shared: &mut Shared) -> Result<(), Fault> {
        self.state = State::Ready;
        loop {
            let Some(frame) = self.frames.last_mut() else {
                self.state = State::Done;
                return Ok(());
            };
            let Some(cursor) = frame.cursors.last_mut() else {
                self.finish_call(None);
                continue;
            };
            let block = cursor.block;
            let index = cursor.next;
            if index >= block.len() {
                // A loop whose body is empty runs no statement: the end of
                // each pass counts, so the clock is read there too (and
                // names the block's last statement, if it has one).
                shared.tick().map_err(|f| at_statement(f, &frame.cursors))?;
                self.end_block(prog)?;
                continue;
            }
            cursor.next += 1;
            shared.tick().map_err(|f| at_statement(f, &frame.cursors))?;
            match &block[index] {
                Statement::Emit(range) => {
                    for h in range.clone() {
                        let v = self.eval(prog, shared, h)?;
                        self.frame().values[h.index()] = Some(v);
                    }
                }
                Statement::Block(b) => self.push(b, CursorKind::Plain),
                Statement::If {
                    condition,
                    accept,
                    reject,
                } => {
                    let taken = if self.get_bool(prog, *condition)? {
                        accept
                    } else {
                        reject
                    };
                    self.push(taken, CursorKind::Plain);
                }
                Statement::Switch { selector, cases } => {
                    let span = self.span(*selector);
                    let selected = self.get(prog, *selector)?.scalar();
                    let matches = |c: &naga::SwitchCase| match (c.value, selected) {
                        (naga::SwitchValue::I32(v), Some(Scalar::I32(s))) => v == s,
                        (naga::SwitchValue::U32(v), Some(Scalar::U32(s))) => v == s,
                        _ => false,
                    };
                    let index = cases
                        .iter()
                        .position(matches)
                        .or_else(|| {
                            cases
                                .iter()
                                .position(|c| c.value == naga::SwitchValue::Default)
                        })
                        .ok_or_else(|| unsupported("a switch without a default case", span))?;
                    self.push(&cases[index].body, CursorKind::Case(cases, index));
                }
                Statement::Loop {
                    body,
                    continuing,
                    break_if,
                } => {
                    let parts = LoopParts {
                        body,
                        continuing,
                        break_if: *break_if,
                    };
                    self.push(body, CursorKind::LoopBody(parts));
                }
                Statement::Break => {
                    while let Some(c) = self.frame().cursors.pop() {
                        if !matches!(c.kind, CursorKind::Plain) {
                            break;
                        }
                    }
                }
                Statement::Continue => {
                    while let Some(c) = self.frame().cursors.pop() {
                        if let CursorKind::LoopBody(parts) = c.kind {
                            self.push(parts.continuing, CursorKind::LoopContinuing(parts));
                            break;
                        }
                    }
                }
                Statement::Return { value } => {
                    let v = value.map(|h| self.get(prog, h)).transpose()?;
                    self.finish_call(v);
                }
                Statement::ControlBarrier(flags) if *flags == Barrier::SUB_GROUP => {
                    let span = statement_span(block, index);
                    self.wait_for_subgroup(
                        span,
                        SubgroupOp::Barrier,
                        Value::Scalar(Scalar::Bool(true)),
                        None,
                    );
                    return Ok(());
                }
                Statement::SubgroupBallot { result, predicate } => {
                    let span = statement_span(block, index);
                    let p = match predicate {
                        Some(h) => self.get_bool(prog, *h)?,
                        None => true,
                    };
                    self.wait_for_subgroup(
                        span,
                        SubgroupOp::Ballot,
                        Value::Scalar(Scalar::Bool(p)),
                        Some(*result),
                    );
                    return Ok(());
                }
                Statement::SubgroupCollectiveOperation {
                    op,
                    collective_op,
                    argument,
                    result,
                } => {
                    let span = statement_span(block, index);
                    let v = self.get(prog, *argument)?;
                    self.wait_for_subgroup(
                        span,
                        SubgroupOp::Collective(*op, *collective_op),
                        v,
                        Some(*result),
                    );
                    return Ok(());
                }
                Statement::SubgroupGather {
                    mode,
                    argument,
                    result,
                } => {
                    let span = statement_span(block, index);
                    let v = self.get(prog, *argument)?;
                    let lane = self.ids.local_index % self.ids.subgroup_size;
                    let lane = self.gather_lane(prog, *mode, lane)?;
                    self.wait_for_subgroup(span, SubgroupOp::Gather(lane), v, Some(*result));
                    return Ok(());
                }
                Statement::ControlBarrier(flags) => {
                    let span = statement_span(block, index);
                    self.state = State::AtBarrier {
                        span,
                        flags: *flags,
                    };
                    return Ok(());
                }
                // Memory ordering without a rendezvous: nothing to simulate.
                Statement::MemoryBarrier(_) => {}
                Statement::Store { pointer, value } => {
                    let ptr = self.get_ptr(prog, *pointer)?;
                    let v = self.get(prog, *value)?;
                    let span = self.span(*pointer);
                    // `atomicStore` is a store to an atomic: it cannot race.
                    let checked = !prog.layout.is_atomic(ptr.pointee);
                    self.store(prog, shared, ptr, &v, span, checked);
                }
                Statement::Atomic {
                    pointer,
                    fun,
                    value,
                    result,
                } => {
                    let ptr = self.get_ptr(prog, *pointer)?;
                    let operand = self.get(prog, *value)?;
                    let compare = match fun {
                        naga::AtomicFunction::Exchange { compare: Some(c) } => {
                            Some(self.get(prog, *c)?)
                        }
                        _ => None,
                    };
                    let span = self.span(*pointer);
                    let old = self.load(prog, shared, ptr, span, false)?;
                    let (new, reported) = atomic(*fun, &old, &operand, compare.as_ref())
                        .map_err(|e| unsupported(e, span))?;
                    self.store(prog, shared, ptr, &new, span, false);
                    if let Some(result) = result {
                        self.frame().values[result.index()] = Some(reported);
                    }
                }
                Statement::WorkGroupUniformLoad { pointer, result } => {
                    let ptr = self.get_ptr(prog, *pointer)?;
                    let span = self.span(*pointer);
                    let v = self.load(prog, shared, ptr, span, true)?;
                    self.frame().values[result.index()] = Some(v);
                }
                Statement::Call {
                    function,
                    arguments,
                    result,
                } => {
                    let args = arguments
                        .iter()
                        .map(|h| self.get(prog, *h))
                        .collect::<Result<Vec<_>, _>>()?;
                    self.call(prog, &prog.module.functions[*function], args, *result)?;
                }
                other => {
                    let span = block
                        .span_iter()
                        .nth(index)
                        .map(|(_, s)| *s)
                        .unwrap_or_default();
                    return Err(unsupported(
                        format!("the statement {}", short_name(other)),
                        span,
                    ));
                }
            }
        }
    }

    fn wait_for_subgroup(
        &mut self,
        span: Span,
        op: SubgroupOp,
        value: Value,
        result: Option<Handle<Expression>>,
    ) {
        self.state = State::AtSubgroup(Box::new(Pending {
            span,
            op,
            value,
            result,
        }));
    }

    /// The lane a gather reads from, for this invocation at `lane`. Lanes
    /// out of range wrap nowhere: they are returned as they are, and the
    /// schedule gives such an invocation its own value back.
    fn gather_lane(
        &mut self,
        prog: &Program<'m>,
        mode: naga::GatherMode,
        lane: u32,
    ) -> Result<Option<u32>, Fault> {
        use naga::GatherMode as G;
        let mut operand = |h: Handle<Expression>| -> Result<u32, Fault> {
            match self.get(prog, h)?.scalar().and_then(Scalar::as_index) {
                Some(v) => Ok(u32::try_from(v).unwrap_or(u32::MAX)),
                // A negative lane or delta: no lane at all.
                None => Ok(u32::MAX),
            }
        };
        Ok(match mode {
            G::BroadcastFirst => None,
            G::Broadcast(h) | G::Shuffle(h) => Some(operand(h)?),
            G::ShuffleDown(h) => Some(lane.saturating_add(operand(h)?)),
            G::ShuffleUp(h) => Some(lane.checked_sub(operand(h)?).unwrap_or(u32::MAX)),
            G::ShuffleXor(h) => Some(lane ^ operand(h)?),
            G::QuadBroadcast(h) => Some((lane & !3) + operand(h)?.min(4)),
            G::QuadSwap(direction) => Some(
                lane ^ match direction {
                    naga::Direction::X => 1,
                    naga::Direction::Y => 2,
                    naga::Direction::Diagonal => 3,
                },
            ),
        })
    }

    /// Hands a finished subgroup operation's result to this invocation.
    pub fn resume_with(&mut self, result: Option<Handle<Expression>>, value: Value) {
        if let Some(h) = result {
            self.frame().values[h.index()] = Some(value);
        }
        self.state = State::Ready;
    }

    fn push(&mut self, block: &'m Block, kind: CursorKind<'m>) {
        self.frame().cursors.push(Cursor {
            block,
            next: 0,
            kind,
        });
    }

    /// A block ran to its end: leave it, or go round the loop, or fall through.
    fn end_block(&mut self, prog: &Program<'m>) -> Result<(), Fault> {
        let Some(done) = self.frame().cursors.pop() else {
            return Ok(());
        };
        match done.kind {
            CursorKind::Plain => {}
            CursorKind::LoopBody(parts) => {
                self.push(parts.continuing, CursorKind::LoopContinuing(parts))
            }
            CursorKind::LoopContinuing(parts) => {
                let leave = match parts.break_if {
                    Some(h) => self.get_bool(prog, h)?,
                    None => false,
                };
                if !leave {
                    self.push(parts.body, CursorKind::LoopBody(parts));
                }
            }
            CursorKind::Case(cases, index) => {
                if cases[index].fall_through && index + 1 < cases.len() {
                    self.push(&cases[index + 1].body, CursorKind::Case(cases, index + 1));
                }
            }
        }
        Ok(())
    }

    fn finish_call(&mut self, value: Option<Value>) {
        let Some(done) = self.frames.pop() else {
            return;
        };
        if let (Some(target), Some(caller), Some(v)) = (done.result, self.frames.last_mut(), value)
        {
            caller.values[target.index()] = Some(v);
        }
    }
}

/// The value of an entry point's argument: a builtin, or a struct of them.
fn builtin_argument(
    prog: &Program,
    arg: &naga::FunctionArgument,
    ids: &Ids,
) -> Result<Value, Fault> {
    use naga::BuiltIn as B;
    let vec3 =
        |v: [u32; 3]| Value::Composite(v.iter().map(|&x| Value::Scalar(Scalar::U32(x))).collect());
    let one = |binding: &Option<naga::Binding>| -> Result<Value, Fault> {
        Ok(match binding {
            Some(naga::Binding::BuiltIn(b)) => match b {
                B::GlobalInvocationId => vec3(ids.global),
                B::LocalInvocationId => vec3(ids.local),
                B::WorkGroupId => vec3(ids.workgroup),
                B::NumWorkGroups => vec3(ids.num_workgroups),
                B::LocalInvocationIndex => Value::Scalar(Scalar::U32(ids.local_index)),
                B::SubgroupInvocationId => {
                    Value::Scalar(Scalar::U32(ids.local_index % ids.subgroup_size))
                }
                B::SubgroupSize => Value::Scalar(Scalar::U32(ids.subgroup_size)),
                B::SubgroupId => Value::Scalar(Scalar::U32(ids.local_index / ids.subgroup_size)),
                B::NumSubgroups => {
                    Value::Scalar(Scalar::U32(ids.per_group.div_ceil(ids.subgroup_size)))
                }
                other => {
                    return Err(unsupported(
                        format!("the builtin {other:?}"),
                        Span::default(),
                    ));
                }
            },
            _ => {
                return Err(unsupported(
                    "an entry point argument that is not a builtin",
                    Span::default(),
                ));
            }
        })
    };
    match (&arg.binding, prog.layout.inner(arg.ty)) {
        (None, naga::TypeInner::Struct { members, .. }) => members
            .iter()
            .map(|m| one(&m.binding))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Composite),
        (binding, _) => one(binding),
    }
}

/// A time-out `fault` placed at the statement the innermost of `cursors`
/// last started (the statement running, or at a block's end its last one;
/// for an empty loop body, the loop itself): the line a report of a loop
/// that never ends points at.
fn at_statement(fault: Fault, cursors: &[Cursor]) -> Fault {
    match fault {
        Fault::TimedOut {
            span: None,
            message,
        } => Fault::TimedOut {
            span: cursors
                .iter()
                .rev()
                .find(|c| c.next > 0)
                .and_then(|c| c.block.span_iter().nth(c.next - 1).map(|(_, span)| *span)),
            message,
        },
        other => other,
    }
}
