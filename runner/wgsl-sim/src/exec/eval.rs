//! Expressions: each evaluated once per invocation and kept, pointers
//! indexed with their bounds checked (a check, not a clamp: an index past
//! the end is reported and reads a zero), atomics.

use super::Invocation;
use crate::hazard::Kind;
use crate::pointer::{Pointee, Ptr, Root};
use crate::program::{Fault, Program, compose, literal, short_name, unsupported};
use crate::shared::Shared;
use crate::value::{self, OpError, Scalar, Value};
use naga::{Expression, Handle, Span};

impl<'m> Invocation<'m> {
    pub(super) fn span(&self, h: Handle<Expression>) -> Span {
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
    pub(super) fn get(
        &mut self,
        prog: &Program<'m>,
        h: Handle<Expression>,
    ) -> Result<Value, Fault> {
        match &self.frame().values[h.index()] {
            Some(v) => Ok(v.clone()),
            None => self.get_unevaluated(prog, h),
        }
    }

    /// An operand already evaluated in the current frame, borrowed (no clone).
    #[inline]
    pub(super) fn peek(&self, h: Handle<Expression>) -> Option<&Value> {
        self.frames.last()?.values[h.index()].as_ref()
    }

    #[inline(never)]
    pub(super) fn get_unevaluated(
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
    pub(super) fn get_bool(
        &mut self,
        prog: &Program<'m>,
        h: Handle<Expression>,
    ) -> Result<bool, Fault> {
        if let Some(Value::Scalar(Scalar::Bool(b))) = self.peek(h) {
            return Ok(*b);
        }
        match self.get(prog, h)? {
            Value::Scalar(Scalar::Bool(b)) => Ok(b),
            _ => Err(unsupported("a condition that is not a bool", self.span(h))),
        }
    }

    #[inline]
    pub(super) fn get_ptr(
        &mut self,
        prog: &Program<'m>,
        h: Handle<Expression>,
    ) -> Result<Ptr, Fault> {
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
    pub(super) fn eval_pure(
        &mut self,
        prog: &Program<'m>,
        h: Handle<Expression>,
    ) -> Result<Value, Fault> {
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

    pub(super) fn eval(
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
    pub(super) fn index(
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
}

/// An atomic read-modify-write: (the value to store, the value the
/// expression returns). A compare-exchange (`compare` given) returns WGSL's
/// `__atomic_compare_exchange_result`: the old value and whether it stored.
/// The simulator never fails spuriously, which the "weak" allows but does not require.
pub(super) fn atomic(
    fun: naga::AtomicFunction,
    old: &Value,
    operand: &Value,
    compare: Option<&Value>,
) -> Result<(Value, Value), OpError> {
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
            let expected = compare.ok_or(OpError::NoComparand)?;
            let equal = matches!((old, expected), (Value::Scalar(a), Value::Scalar(b)) if a.bits() == b.bits());
            let new = if equal { operand.clone() } else { old.clone() };
            let result = Value::Composite(vec![old.clone(), Value::Scalar(Scalar::Bool(equal))]);
            return Ok((new, result));
        }
    };
    Ok((new, old.clone()))
}

pub(super) fn zero_like(v: &Value) -> Value {
    v.map(&|s| Ok(Scalar::zero(s.kind())))
        .unwrap_or(Value::Scalar(Scalar::U32(0)))
}
