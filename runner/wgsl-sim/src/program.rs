//! The module prepared for running: its constants evaluated, its types
//! measured, its literals as values; and why a run can stop early.

use crate::memory::Layout;
use crate::value::{OpError, Scalar, Value};
use naga::{Expression, Handle, Module, Span};

/// Why a run stopped before its end.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// The kernel uses something the simulator does not implement.
    Unsupported { what: String, span: Span },
    /// The time ran out: an endless loop, most likely. `span` is the
    /// statement the invocation that held the clock was running (none at
    /// first: the interpreter's loop adds it), `message` who waited where
    /// (the schedule adds it).
    TimedOut { span: Option<Span>, message: String },
}

pub(crate) fn unsupported(what: impl std::fmt::Display, span: Span) -> Fault {
    Fault::Unsupported {
        what: what.to_string(),
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

    pub(crate) fn constant(&self, c: Handle<naga::Constant>) -> Option<Value> {
        self.global_expression(self.module.constants[c].init)
    }

    /// The value of a module-scope expression (a constant's or a global's initializer).
    pub(crate) fn global_expression(&self, e: Handle<Expression>) -> Option<Value> {
        self.consts.get(e.index()).cloned().flatten()
    }
}

pub(crate) fn literal(l: &naga::Literal) -> Result<Value, OpError> {
    use naga::Literal as L;
    Ok(Value::Scalar(match *l {
        L::F32(v) => Scalar::F32(v),
        L::I32(v) => Scalar::I32(v),
        L::U32(v) => Scalar::U32(v),
        L::Bool(v) => Scalar::Bool(v),
        // Abstract literals left in runtime code take their concrete defaults.
        L::AbstractInt(v) => Scalar::I32(v as i32),
        L::AbstractFloat(v) => Scalar::F32(v as f32),
        other => return Err(OpError::Literal(other)),
    }))
}

/// A vector may be composed from smaller vectors: `vec4(v.xy, 0.0, 1.0)`.
pub(crate) fn compose(layout: &Layout, ty: Handle<naga::Type>, parts: Vec<Value>) -> Value {
    if layout.is_vector(ty) {
        let mut leaves = Vec::new();
        parts.iter().for_each(|p| p.flatten(&mut leaves));
        Value::Composite(leaves.into_iter().map(Value::Scalar).collect())
    } else {
        Value::Composite(parts)
    }
}

/// `Derivative { .. }` → "Derivative": names for messages about what is unsupported.
pub(crate) fn short_name(item: &impl std::fmt::Debug) -> String {
    let text = format!("{item:?}");
    text.split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("?")
        .to_string()
}
