//! One invocation's interpreter: explicit call frames and block cursors over
//! naga's IR, so an invocation can stop at a barrier (even inside a called
//! function or a loop) and resume where it stopped when its workgroup has
//! arrived. Loads and stores go through [`Shared`], where the checks live.

use super::access::{Counter, Thread};
use super::hazard::{Access, Hazards, Kind, LineMap};
use super::memory::{Layout, Pointee, Ptr, Region, Root, Space};
use super::value::{self, Scalar, Value};
use naga::{Barrier, Block, Expression, Function, Handle, Module, Span, Statement};
use std::time::Duration;

/// Why a run stopped before its end.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// The kernel uses something the simulator does not implement.
    Unsupported { what: String, span: Span },
    /// The step budget ran out: an endless loop, most likely.
    TimedOut,
}

fn unsupported(what: impl Into<String>, span: Span) -> Fault {
    Fault::Unsupported {
        what: what.into(),
        span,
    }
}

/// The module with its constants evaluated and its types measured.
pub struct Program<'m> {
    pub module: &'m Module,
    pub layout: Layout<'m>,
    /// `module.global_expressions`, evaluated (where they are values).
    consts: Vec<Option<Value>>,
}

impl<'m> Program<'m> {
    pub fn new(module: &'m Module) -> Program<'m> {
        let layout = Layout::new(module);
        let mut consts: Vec<Option<Value>> = Vec::with_capacity(module.global_expressions.len());
        for (_, e) in module.global_expressions.iter() {
            let get = |h: &Handle<Expression>| consts.get(h.index()).cloned().flatten();
            let v = match e {
                Expression::Literal(l) => literal(l).ok(),
                Expression::Constant(c) => get(&module.constants[*c].init),
                Expression::ZeroValue(ty) => Some(layout.zero_value(*ty)),
                Expression::Compose { ty, components } => components
                    .iter()
                    .map(get)
                    .collect::<Option<Vec<_>>>()
                    .map(|parts| compose(&layout, *ty, parts)),
                Expression::Splat { size, value } => {
                    get(value).map(|v| Value::Composite(vec![v; *size as usize]))
                }
                _ => None,
            };
            consts.push(v);
        }
        Program {
            module,
            layout,
            consts,
        }
    }

    fn constant(&self, c: Handle<naga::Constant>) -> Option<Value> {
        self.consts
            .get(self.module.constants[c].init.index())
            .cloned()
            .flatten()
    }
}

fn literal(l: &naga::Literal) -> Result<Value, String> {
    use naga::Literal as L;
    Ok(Value::Scalar(match *l {
        L::F32(v) => Scalar::F32(v),
        L::I32(v) => Scalar::I32(v),
        L::U32(v) => Scalar::U32(v),
        L::Bool(v) => Scalar::Bool(v),
        // Abstract literals left in runtime code take their concrete defaults.
        L::AbstractInt(v) => Scalar::I32(v as i32),
        L::AbstractFloat(v) => Scalar::F32(v as f32),
        other => {
            return Err(format!(
                "the literal {other:?} (only 32-bit types and bool)"
            ));
        }
    }))
}

/// A vector may be composed from smaller vectors: `vec4(v.xy, 0.0, 1.0)`.
fn compose(layout: &Layout, ty: Handle<naga::Type>, parts: Vec<Value>) -> Value {
    if layout.is_vector(ty) {
        let mut leaves = Vec::new();
        parts.iter().for_each(|p| p.flatten(&mut leaves));
        Value::Composite(leaves.into_iter().map(Value::Scalar).collect())
    } else {
        Value::Composite(parts)
    }
}

/// Where an invocation sits in the dispatch.
#[derive(Debug, Clone, Copy)]
pub struct Ids {
    pub global: [u32; 3],
    pub local: [u32; 3],
    pub workgroup: [u32; 3],
    pub num_workgroups: [u32; 3],
    pub local_index: u32,
    /// Unique within the dispatch: workgroup index × invocations per workgroup + local index.
    pub invocation: u32,
    pub workgroup_index: u32,
    /// Invocations per subgroup; an invocation's subgroup is `local_index / subgroup_size`.
    pub subgroup_size: u32,
    /// Invocations per workgroup.
    pub per_group: u32,
}

/// State shared by the invocations of a dispatch: module-scope memory and the checks.
pub struct Shared<'s> {
    /// Module-scope variables by handle index (private ones live in the invocations).
    pub globals: Vec<Option<Region>>,
    pub hazards: Hazards,
    pub lines: &'s dyn LineMap,
    /// Global-memory reads and writes per invocation.
    pub access: Counter,
    /// Invocations per subgroup.
    pub subgroup_size: u32,
    /// Which launch of the run is going on (0-based).
    pub launch: usize,
    /// Barriers passed by the running workgroup that order workgroup and storage memory.
    pub epochs: [u32; 2],
    pub block: [u32; 3],
    steps: u64,
    clock: crate::Clock,
    started: Duration,
    timeout: Duration,
}

impl<'s> Shared<'s> {
    pub fn new(
        globals: Vec<Option<Region>>,
        lines: &'s dyn LineMap,
        config: &crate::Config,
    ) -> Shared<'s> {
        Shared {
            globals,
            hazards: Hazards::default(),
            lines,
            access: Counter::default(),
            subgroup_size: config.subgroup_size.max(1),
            launch: 0,
            epochs: [0, 0],
            block: [1, 1, 1],
            steps: 0,
            clock: config.clock,
            started: (config.clock)(),
            timeout: config.timeout,
        }
    }

    /// Counts a statement; every so often, checks the clock.
    fn tick(&mut self) -> Result<(), Fault> {
        self.steps += 1;
        if self.steps.is_multiple_of(1 << 16)
            && (self.clock)().saturating_sub(self.started) > self.timeout
        {
            return Err(Fault::TimedOut);
        }
        Ok(())
    }

    /// Whether a hazard of `kind` is already reported on `span`'s line.
    pub fn known(&self, kind: Kind, span: Span) -> bool {
        self.hazards.known(kind, self.lines.line(span))
    }

    pub fn report(&mut self, kind: Kind, span: Span, message: String) {
        let line = self.lines.line(span);
        self.hazards.add(kind, line, span, message);
    }

    /// "invocation (3, 0, 0) of workgroup (1, 0, 0)", from a dispatch-wide invocation number.
    pub fn who(&self, invocation: u32, workgroups: [u32; 3]) -> String {
        let per = self.block.iter().product::<u32>().max(1);
        let (l, w) = (invocation % per, invocation / per);
        let split = |i: u32, dims: [u32; 3]| {
            [
                i % dims[0],
                i / dims[0] % dims[1],
                i / (dims[0] * dims[1]).max(1),
            ]
        };
        format!(
            "invocation {} of workgroup {}",
            triple(split(l, self.block)),
            triple(split(w, workgroups))
        )
    }
}

/// The span of statement `index` of `block`.
fn statement_span(block: &Block, index: usize) -> Span {
    block
        .span_iter()
        .nth(index)
        .map(|(_, s)| *s)
        .unwrap_or_default()
}

/// `(3, 0, 0)`.
pub fn triple(v: [u32; 3]) -> String {
    format!("({}, {}, {})", v[0], v[1], v[2])
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
                self.end_block(prog)?;
                continue;
            }
            cursor.next += 1;
            shared.tick()?;
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

    fn span(&self, h: Handle<Expression>) -> Span {
        self.frames
            .last()
            .map(|f| f.function.expressions.get_span(h))
            .unwrap_or_default()
    }

    /// An expression's value in the current frame, evaluating it now if no `Emit` did.
    ///
    /// Inlined, with the rare evaluation out of line: this runs for every
    /// operand of every expression, and a call that returns the value through
    /// memory cost more than the lookup itself.
    #[inline]
    fn get(&mut self, prog: &Program<'m>, h: Handle<Expression>) -> Result<Value, Fault> {
        match &self.frame().values[h.index()] {
            Some(v) => Ok(v.clone()),
            None => self.get_unevaluated(prog, h),
        }
    }

    /// An operand already evaluated in the current frame, borrowed (no clone).
    #[inline]
    fn peek(&self, h: Handle<Expression>) -> Option<&Value> {
        self.frames.last()?.values[h.index()].as_ref()
    }

    #[inline(never)]
    fn get_unevaluated(
        &mut self,
        prog: &Program<'m>,
        h: Handle<Expression>,
    ) -> Result<Value, Fault> {
        // Only constants, variables and arguments are met unevaluated, and
        // they need no memory: a dispatch-less `Shared` is not required.
        let v = self.eval_pure(prog, h)?;
        self.frame().values[h.index()] = Some(v.clone());
        Ok(v)
    }

    #[inline]
    fn get_bool(&mut self, prog: &Program<'m>, h: Handle<Expression>) -> Result<bool, Fault> {
        if let Some(Value::Scalar(Scalar::Bool(b))) = self.peek(h) {
            return Ok(*b);
        }
        match self.get(prog, h)? {
            Value::Scalar(Scalar::Bool(b)) => Ok(b),
            _ => Err(unsupported("a condition that is not a bool", self.span(h))),
        }
    }

    #[inline]
    fn get_ptr(&mut self, prog: &Program<'m>, h: Handle<Expression>) -> Result<Ptr, Fault> {
        if let Some(Value::Pointer(p)) = self.peek(h) {
            return Ok(*p);
        }
        match self.get(prog, h)? {
            Value::Pointer(p) => Ok(p),
            _ => Err(unsupported(
                "a store through something not a pointer",
                self.span(h),
            )),
        }
    }

    /// Expressions that never touch memory and are not emitted (naga evaluates them in place).
    fn eval_pure(&mut self, prog: &Program<'m>, h: Handle<Expression>) -> Result<Value, Fault> {
        let depth = self.frames.len() - 1;
        let function = self.frame().function;
        let span = function.expressions.get_span(h);
        Ok(match &function.expressions[h] {
            Expression::Literal(l) => literal(l).map_err(|e| unsupported(e, span))?,
            Expression::Constant(c) => prog
                .constant(*c)
                .ok_or_else(|| unsupported("a constant whose value naga left unevaluated", span))?,
            Expression::ZeroValue(ty) => prog.layout.zero_value(*ty),
            Expression::FunctionArgument(i) => self.frame().args[*i as usize].clone(),
            Expression::GlobalVariable(g) => Value::Pointer(Ptr {
                root: Root::Global(g.index() as u32),
                offset: 0,
                pointee: Pointee::Type(prog.module.global_variables[*g].ty),
                valid: true,
            }),
            Expression::LocalVariable(l) => Value::Pointer(Ptr {
                root: Root::Local {
                    frame: depth as u32,
                    var: l.index() as u32,
                },
                offset: 0,
                pointee: Pointee::Type(function.local_variables[*l].ty),
                valid: true,
            }),
            Expression::Compose { ty, components } => {
                let parts = components
                    .iter()
                    .map(|c| self.get(prog, *c))
                    .collect::<Result<Vec<_>, _>>()?;
                compose(&prog.layout, *ty, parts)
            }
            Expression::Splat { size, value } => {
                Value::Composite(vec![self.get(prog, *value)?; *size as usize])
            }
            Expression::CallResult(_)
            | Expression::AtomicResult { .. }
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. } => {
                return Err(unsupported("a result read before its statement ran", span));
            }
            other => {
                return Err(unsupported(
                    format!("the expression {}", short_name(other)),
                    span,
                ));
            }
        })
    }

    fn eval(
        &mut self,
        prog: &Program<'m>,
        shared: &mut Shared,
        h: Handle<Expression>,
    ) -> Result<Value, Fault> {
        let function = self.frame().function;
        let span = function.expressions.get_span(h);
        let op = |r: value::OpResult| r.map_err(|e| unsupported(e, span));
        Ok(match &function.expressions[h] {
            Expression::Access { base, index } => {
                let i = self.get(prog, *index)?.scalar().and_then(Scalar::as_index);
                // A negative index is out of bounds like any other.
                let i = i.unwrap_or(u64::MAX);
                let base = self.get(prog, *base)?;
                self.index(prog, shared, base, i, span)?
            }
            Expression::AccessIndex { base, index } => {
                let base = self.get(prog, *base)?;
                match base {
                    Value::Pointer(p) => match prog.layout.member(p.pointee, *index) {
                        Some((pointee, offset)) => Value::Pointer(Ptr {
                            offset: p.offset + offset,
                            pointee,
                            ..p
                        }),
                        None => self.index(prog, shared, base, *index as u64, span)?,
                    },
                    other => self.index(prog, shared, other, *index as u64, span)?,
                }
            }
            Expression::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let Value::Composite(parts) = self.get(prog, *vector)? else {
                    return Err(unsupported("a swizzle of a non-vector", span));
                };
                Value::Composite(
                    pattern[..*size as usize]
                        .iter()
                        .map(|c| parts[*c as usize].clone())
                        .collect(),
                )
            }
            Expression::Load { pointer } => {
                let ptr = self.get_ptr(prog, *pointer)?;
                // `atomicLoad` is a load of an atomic: it cannot race.
                let checked = !prog.layout.is_atomic(ptr.pointee);
                self.load(prog, shared, ptr, span, checked)?
            }
            Expression::Unary { op: o, expr } => op(value::unary(*o, &self.get(prog, *expr)?))?,
            Expression::Binary { op: o, left, right } => {
                // Two scalars already evaluated, the common case: no clones,
                // no componentwise walk.
                if let (Some(Value::Scalar(a)), Some(Value::Scalar(b))) =
                    (self.peek(*left), self.peek(*right))
                {
                    Value::Scalar(
                        value::scalar_binary(*o, *a, *b).map_err(|e| unsupported(e, span))?,
                    )
                } else {
                    let (l, r) = (self.get(prog, *left)?, self.get(prog, *right)?);
                    op(value::binary(*o, &l, &r))?
                }
            }
            Expression::Select {
                condition,
                accept,
                reject,
            } => {
                let c = self.get(prog, *condition)?;
                let (a, r) = (self.get(prog, *accept)?, self.get(prog, *reject)?);
                op(value::select(&c, &a, &r))?
            }
            Expression::Relational { fun, argument } => {
                op(value::relational(*fun, &self.get(prog, *argument)?))?
            }
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                arg3,
            } => {
                let mut args = vec![self.get(prog, *arg)?];
                for a in [arg1, arg2, arg3].into_iter().flatten() {
                    args.push(self.get(prog, *a)?);
                }
                op(value::math(*fun, &args))?
            }
            Expression::As {
                expr,
                kind,
                convert,
            } => op(value::cast(
                &self.get(prog, *expr)?,
                *kind,
                convert.is_some(),
            ))?,
            Expression::ArrayLength(array) => {
                let ptr = self.get_ptr(prog, *array)?;
                let stride = prog
                    .layout
                    .element(ptr.pointee)
                    .map(|(_, s, _)| s)
                    .unwrap_or(1)
                    .max(1);
                let len = match ptr.root {
                    Root::Global(g) => shared.globals[g as usize]
                        .as_ref()
                        .map(|r| r.len)
                        .unwrap_or(0),
                    Root::Local { .. } => 0,
                };
                Value::Scalar(Scalar::U32((len / stride) as u32))
            }
            _ => self.eval_pure(prog, h)?,
        })
    }

    /// `base[i]`: a pointer to the element (bounds checked), or the element of a value.
    fn index(
        &mut self,
        prog: &Program<'m>,
        shared: &mut Shared,
        base: Value,
        i: u64,
        span: Span,
    ) -> Result<Value, Fault> {
        match base {
            Value::Pointer(p) => {
                let Some((pointee, stride, len)) = prog.layout.element(p.pointee) else {
                    return Err(unsupported("indexing into this type", span));
                };
                let region = match p.root {
                    Root::Global(g) => shared.globals[g as usize].as_ref(),
                    Root::Local { .. } => None,
                };
                // A runtime-sized array is as long as the buffer bound to it;
                // past that lies the guard band, which a write may reach (and
                // the verdict reports by index), as on a GPU.
                let runtime = len.is_none();
                let (len, reachable) = match (len, region) {
                    (Some(n), _) => (n, n),
                    (None, Some(r)) => (r.len / stride.max(1), r.slots.len() / stride.max(1)),
                    (None, None) => (0, 0),
                };
                let inside = i < len as u64;
                if !inside && p.valid && !shared.known(Kind::OutOfBounds, span) {
                    let name = match region {
                        Some(r) => format!("`{}`", r.name),
                        None => "a local array".to_string(),
                    };
                    let shown = if i == u64::MAX {
                        "a negative number".to_string()
                    } else {
                        i.to_string()
                    };
                    // A buffer seen as vectors is measured in vectors, as the
                    // kernel indexes it; the words say where they come from.
                    let unit = match (region, stride) {
                        (Some(r), 2..) if runtime => {
                            let ty = prog.layout.type_name(pointee).unwrap_or_default();
                            let words = r.len;
                            let rest = match words % stride {
                                0 => String::new(),
                                n => format!(
                                    "; its last {n} word(s) make no whole {ty}, so they are out of bounds too"
                                ),
                            };
                            format!(" of type {ty} ({words} 32-bit words bound{rest})")
                        }
                        _ => String::new(),
                    };
                    let message = format!(
                        "{} reads or writes element {shown} of {name}, which has {len} elements{unit}; \
                         guard the access with a bounds check (a GPU does not stop it: it clamps, \
                         returns zero, or touches other memory)",
                        self.who(shared),
                    );
                    shared.report(Kind::OutOfBounds, span, message);
                }
                Ok(Value::Pointer(Ptr {
                    offset: p.offset + (i.min(reachable as u64) as usize) * stride,
                    pointee,
                    valid: p.valid && i < reachable as u64,
                    ..p
                }))
            }
            Value::Composite(parts) => match parts.get(i as usize) {
                Some(v) => Ok(v.clone()),
                None => {
                    let message = format!(
                        "{} indexes element {i} of a value with {} elements",
                        self.who(shared),
                        parts.len()
                    );
                    shared.report(Kind::OutOfBounds, span, message);
                    Ok(zero_like(&parts[0]))
                }
            },
            _ => Err(unsupported("indexing into a scalar", span)),
        }
    }

    fn who(&self, shared: &Shared) -> String {
        shared.who(self.ids.invocation, self.ids.num_workgroups)
    }

    fn access(&self, shared: &Shared, space: Space, span: Span) -> Access {
        Access {
            invocation: self.ids.invocation,
            workgroup: self.ids.workgroup_index,
            epoch: shared.epochs[usize::from(space != Space::Workgroup)],
            span,
        }
    }

    /// Reads through a pointer; `checked` accesses take part in the race and initialisation checks (atomics do not).
    fn load(
        &mut self,
        prog: &Program<'m>,
        shared: &mut Shared,
        ptr: Ptr,
        span: Span,
        checked: bool,
    ) -> Result<Value, Fault> {
        self.count(shared, &ptr, false, span);
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

    fn store(
        &mut self,
        prog: &Program<'m>,
        shared: &mut Shared,
        ptr: Ptr,
        v: &Value,
        span: Span,
        checked: bool,
    ) {
        self.count(shared, &ptr, true, span);
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
                            shadow.written = true;
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
    fn count(&mut self, shared: &mut Shared, ptr: &Ptr, write: bool, span: Span) {
        let Root::Global(g) = ptr.root else {
            return;
        };
        if !matches!(shared.globals[g as usize].as_ref(), Some(r) if r.space == Space::Storage) {
            return;
        }
        let count = if write {
            self.writes += 1;
            self.writes
        } else {
            self.reads += 1;
            self.reads
        };
        let thread = self.thread(shared.launch);
        shared.access.access(write, count, thread, span);
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

    fn zeros(&mut self, prog: &Program<'m>, ptr: Ptr) -> Vec<Scalar> {
        let mut out = Vec::new();
        match ptr.pointee {
            Pointee::Type(ty) => prog.layout.zero(ty, &mut out),
            Pointee::Scalar(kind) => out.push(Scalar::zero(kind)),
        }
        out
    }

    fn private_slots(&mut self, prog: &Program<'m>, g: usize) -> &mut Vec<Scalar> {
        self.private[g].get_or_insert_with(|| {
            let (_, var) = prog
                .module
                .global_variables
                .iter()
                .nth(g)
                .expect("a global");
            let mut leaves = Vec::new();
            match var
                .init
                .and_then(|i| prog.consts.get(i.index()).cloned().flatten())
            {
                Some(v) => v.flatten(&mut leaves),
                None => prog.layout.zero(var.ty, &mut leaves),
            }
            leaves
        })
    }

    /// The race and initialisation checks for an access to leaves `range` of global `g`.
    fn check(
        &self,
        prog: &Program<'m>,
        shared: &mut Shared,
        g: usize,
        range: std::ops::Range<usize>,
        span: Span,
        write: bool,
    ) {
        let Some(region) = shared.globals[g].as_ref() else {
            return;
        };
        if region.shadow.is_empty() {
            return;
        }
        let now = self.access(shared, region.space, span);
        let space = region.space;
        for leaf in range {
            let Some(shadow) = shared.globals[g]
                .as_mut()
                .and_then(|r| r.shadow.get_mut(leaf))
            else {
                continue;
            };
            let uninitialized = !write && space == Space::Workgroup && !shadow.written;
            let conflict = if write {
                shadow.write(now)
            } else {
                shadow.read(now)
            };
            // Messages are built only for a new hazard: this runs on every access.
            if uninitialized && !shared.known(Kind::Uninitialized, span) {
                let message = format!(
                    "{} reads {} before any invocation of its workgroup wrote it. WGSL \
                     fills workgroup memory with zeros, so this reads 0; CUDA's shared memory \
                     would hold whatever was there. Write every slot you read, or do not read it",
                    self.who(shared),
                    element(prog, shared, g, leaf),
                );
                shared.report(Kind::Uninitialized, span, message);
            }
            let Some((other, other_wrote)) = conflict else {
                continue;
            };
            if shared.known(Kind::Race, span) {
                continue;
            }
            let verb = |w: bool| if w { "writes" } else { "reads" };
            let why = if other.workgroup != now.workgroup {
                "invocations of different workgroups are never ordered within one dispatch \
                 (a barrier waits for its own workgroup only): split the work into two launches"
                    .to_string()
            } else {
                let barrier = if space == Space::Workgroup {
                    "workgroupBarrier()"
                } else {
                    "storageBarrier()"
                };
                format!("no {barrier} lies between the two accesses, so either may come first")
            };
            let message = format!(
                "{} {} {} ({}) here, and {} {} it at line {}; {why}",
                self.who(shared),
                verb(write),
                element(prog, shared, g, leaf),
                space.describe(),
                shared.who(other.invocation, self.ids.num_workgroups),
                verb(other_wrote),
                shared.lines.line(other.span),
            );
            shared.report(Kind::Race, span, message);
        }
    }
}

/// "`tile[2][3]`": an element of a module-scope variable, for messages.
fn element(prog: &Program, shared: &Shared, g: usize, leaf: usize) -> String {
    match shared.globals[g].as_ref() {
        Some(r) => format!("`{}{}`", r.name, prog.layout.describe(r.ty, leaf)),
        None => "an element".into(),
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

/// An atomic read-modify-write: (the value to store, the value the
/// expression returns). A compare-exchange (`compare` given) returns WGSL's
/// `__atomic_compare_exchange_result`: the old value and whether it stored.
/// The simulator never fails spuriously, which the "weak" allows but does not require.
fn atomic(
    fun: naga::AtomicFunction,
    old: &Value,
    operand: &Value,
    compare: Option<&Value>,
) -> Result<(Value, Value), String> {
    use naga::AtomicFunction as A;
    use naga::BinaryOperator as B;
    let apply = |op| value::binary(op, old, operand);
    let new = match fun {
        A::Add => apply(B::Add)?,
        A::Subtract => apply(B::Subtract)?,
        A::And => apply(B::And)?,
        A::InclusiveOr => apply(B::InclusiveOr)?,
        A::ExclusiveOr => apply(B::ExclusiveOr)?,
        A::Min => value::math(naga::MathFunction::Min, &[old.clone(), operand.clone()])?,
        A::Max => value::math(naga::MathFunction::Max, &[old.clone(), operand.clone()])?,
        A::Exchange { compare: None } => operand.clone(),
        A::Exchange { compare: Some(_) } => {
            let expected = compare.ok_or("a compare-exchange without its comparand")?;
            let equal = matches!((old, expected), (Value::Scalar(a), Value::Scalar(b)) if a.bits() == b.bits());
            let new = if equal { operand.clone() } else { old.clone() };
            let result = Value::Composite(vec![old.clone(), Value::Scalar(Scalar::Bool(equal))]);
            return Ok((new, result));
        }
    };
    Ok((new, old.clone()))
}

fn zero_like(v: &Value) -> Value {
    v.map(&|s| Ok(Scalar::zero(s.kind())))
        .unwrap_or(Value::Scalar(Scalar::U32(0)))
}

/// `Derivative { .. }` → "Derivative": names for messages about what is unsupported.
fn short_name(item: &impl std::fmt::Debug) -> String {
    let text = format!("{item:?}");
    text.split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("?")
        .to_string()
}
