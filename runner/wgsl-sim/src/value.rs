//! Values of the simulator: scalars, composites and pointers, and the
//! arithmetic WGSL defines on them (operators, casts, math builtins).
//!
//! Integer arithmetic follows WGSL, not Rust: it wraps, a division by zero
//! yields the dividend and a remainder by zero yields zero, and shift amounts
//! are taken modulo the bit width. None of these may panic: a learner's kernel
//! must never crash the checker.

use super::pointer::Ptr;
use naga::{BinaryOperator, MathFunction, ScalarKind, UnaryOperator};

/// One leaf of memory or of a value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    F32(f32),
    I32(i32),
    U32(u32),
    Bool(bool),
}

impl Scalar {
    /// The zero of a naga scalar type (abstract types become their concrete defaults).
    pub fn zero(kind: ScalarKind) -> Scalar {
        match kind {
            ScalarKind::Float | ScalarKind::AbstractFloat => Scalar::F32(0.0),
            ScalarKind::Sint | ScalarKind::AbstractInt => Scalar::I32(0),
            ScalarKind::Uint => Scalar::U32(0),
            ScalarKind::Bool => Scalar::Bool(false),
        }
    }

    /// The 32-bit pattern device memory would hold.
    pub fn bits(self) -> u32 {
        match self {
            Scalar::F32(v) => v.to_bits(),
            Scalar::I32(v) => v as u32,
            Scalar::U32(v) => v,
            Scalar::Bool(v) => u32::from(v),
        }
    }

    /// Reinterprets a 32-bit pattern as this scalar's kind (a bitcast).
    pub fn with_bits(self, bits: u32) -> Scalar {
        Scalar::from_bits(self.kind(), bits)
    }

    pub fn from_bits(kind: ScalarKind, bits: u32) -> Scalar {
        match kind {
            ScalarKind::Float | ScalarKind::AbstractFloat => Scalar::F32(f32::from_bits(bits)),
            ScalarKind::Sint | ScalarKind::AbstractInt => Scalar::I32(bits as i32),
            ScalarKind::Uint => Scalar::U32(bits),
            ScalarKind::Bool => Scalar::Bool(bits != 0),
        }
    }

    pub fn kind(self) -> ScalarKind {
        match self {
            Scalar::F32(_) => ScalarKind::Float,
            Scalar::I32(_) => ScalarKind::Sint,
            Scalar::U32(_) => ScalarKind::Uint,
            Scalar::Bool(_) => ScalarKind::Bool,
        }
    }

    /// As an index or a count: negative numbers and floats have none.
    pub fn as_index(self) -> Option<u64> {
        match self {
            Scalar::U32(v) => Some(v as u64),
            Scalar::I32(v) if v >= 0 => Some(v as u64),
            _ => None,
        }
    }

    /// How a learner would write it: `3u`, `-2i`, `0.5`, `true`.
    pub fn show(self) -> String {
        match self {
            Scalar::F32(v) => format!("{v:?}"),
            Scalar::I32(v) => format!("{v}i"),
            Scalar::U32(v) => format!("{v}u"),
            Scalar::Bool(v) => v.to_string(),
        }
    }

    /// A numeric conversion (`f32(x)`, `u32(x)`): floats to integers saturate, NaN becomes 0.
    pub fn convert(self, kind: ScalarKind) -> Scalar {
        let as_f = |s: Scalar| match s {
            Scalar::F32(v) => v,
            Scalar::I32(v) => v as f32,
            Scalar::U32(v) => v as f32,
            Scalar::Bool(v) => f32::from(u8::from(v)),
        };
        match kind {
            ScalarKind::Float | ScalarKind::AbstractFloat => Scalar::F32(as_f(self)),
            ScalarKind::Sint | ScalarKind::AbstractInt => Scalar::I32(match self {
                Scalar::F32(v) => v as i32,
                Scalar::I32(v) => v,
                Scalar::U32(v) => v as i32,
                Scalar::Bool(v) => i32::from(v),
            }),
            ScalarKind::Uint => Scalar::U32(match self {
                Scalar::F32(v) => v as u32,
                Scalar::I32(v) => v as u32,
                Scalar::U32(v) => v,
                Scalar::Bool(v) => u32::from(v),
            }),
            ScalarKind::Bool => Scalar::Bool(match self {
                Scalar::F32(v) => v != 0.0,
                Scalar::I32(v) => v != 0,
                Scalar::U32(v) => v != 0,
                Scalar::Bool(v) => v,
            }),
        }
    }
}

/// A value an expression produces.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Scalar(Scalar),
    /// A vector, array or struct: its components in order.
    Composite(Vec<Value>),
    Pointer(Ptr),
}

/// Why an operation has no result: the operands are of a shape or kind it
/// does not take, or it is one the simulator lacks. Its words end up in
/// "the checker does not support …".
#[derive(Debug, Clone, PartialEq)]
pub enum OpError {
    /// A pointer where arithmetic needs a number.
    Pointer,
    /// Componentwise operands whose shapes do not line up.
    Shapes,
    /// `select` whose operands do not line up with its condition.
    SelectShapes,
    /// `select` whose condition is not a bool.
    SelectCondition,
    /// A scalar of another kind than the operation takes (`wanted`: "a float", "a bool").
    Expected { wanted: &'static str, got: Scalar },
    /// A unary operator on a scalar it does not take.
    Unary { op: UnaryOperator, operand: Scalar },
    /// A binary operator on a kind it does not take, named as WGSL calls it
    /// (`operands`: "floats", "i32", "i32 and u32", …).
    Binary {
        op: BinaryOperator,
        operands: &'static str,
    },
    /// A binary operator on two scalars of kinds it never combines.
    Mixed {
        op: BinaryOperator,
        left: Scalar,
        right: Scalar,
    },
    /// `min` or `max` of two scalars of different kinds.
    MinMax {
        fun: MathFunction,
        left: Scalar,
        right: Scalar,
    },
    /// A one-argument builtin (`name`: "abs", "sign") on a scalar it does not take.
    Builtin { name: &'static str, operand: Scalar },
    /// A builtin given fewer arguments than it reads.
    Arity { fun: MathFunction, needs: usize },
    /// `dot` of vectors with no components.
    EmptyDot,
    /// `normalize` of something whose length is not a float.
    NormalizeNonFloat,
    /// A math builtin the simulator lacks.
    MathBuiltin(MathFunction),
    /// `countOneBits` and friends on a scalar that is not an integer.
    BitOperation(Scalar),
    /// A literal of a type the simulator lacks (64-bit, f16).
    Literal(naga::Literal),
    /// An exclusive scan with an operator other than `+` and `*`.
    ScanOperator(naga::SubgroupOperation),
    /// An exclusive scan of bools.
    ScanOfBools,
    /// A compare-exchange whose comparand is missing.
    NoComparand,
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpError::Pointer => f.write_str("a pointer is not a number"),
            OpError::Shapes => f.write_str("operands of different shapes"),
            OpError::SelectShapes => f.write_str("select of different shapes"),
            OpError::SelectCondition => f.write_str("select needs a bool condition"),
            OpError::Expected { wanted, got } => write!(f, "expected {wanted}, got {}", got.show()),
            OpError::Unary { op, operand } => write!(f, "{op:?} of {}", operand.show()),
            OpError::Binary { op, operands } => write!(f, "{op:?} of {operands}"),
            OpError::Mixed { op, left, right } => {
                write!(f, "{op:?} of {} and {}", left.show(), right.show())
            }
            OpError::MinMax { fun, left, right } => {
                write!(f, "{fun:?} of {} and {}", left.show(), right.show())
            }
            OpError::Builtin { name, operand } => write!(f, "{name} of {}", operand.show()),
            OpError::Arity { fun, needs } => write!(f, "{fun:?} needs {needs} arguments"),
            OpError::EmptyDot => f.write_str("dot of empty vectors"),
            OpError::NormalizeNonFloat => f.write_str("normalize of a non-float"),
            OpError::MathBuiltin(fun) => write!(f, "the math builtin {fun:?}"),
            OpError::BitOperation(s) => write!(f, "a bit operation on {}", s.show()),
            OpError::Literal(l) => write!(f, "the literal {l:?} (only 32-bit types and bool)"),
            OpError::ScanOperator(op) => write!(f, "an exclusive scan with {op:?}"),
            OpError::ScanOfBools => f.write_str("an exclusive scan of bools"),
            OpError::NoComparand => f.write_str("a compare-exchange without its comparand"),
        }
    }
}

impl std::error::Error for OpError {}

/// A value, or why the operation has none.
pub type OpResult = Result<Value, OpError>;

impl Value {
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Value::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// Appends this value's leaves, in memory order.
    pub fn flatten(&self, out: &mut Vec<Scalar>) {
        match self {
            Value::Scalar(s) => out.push(*s),
            Value::Composite(parts) => parts.iter().for_each(|p| p.flatten(out)),
            Value::Pointer(_) => {}
        }
    }

    /// Applies `f` to each scalar of a scalar or vector.
    pub fn map(&self, f: &impl Fn(Scalar) -> Result<Scalar, OpError>) -> OpResult {
        match self {
            Value::Scalar(s) => f(*s).map(Value::Scalar),
            Value::Composite(parts) => parts
                .iter()
                .map(|p| p.map(f))
                .collect::<Result<_, _>>()
                .map(Value::Composite),
            Value::Pointer(_) => Err(OpError::Pointer),
        }
    }

    /// Componentwise over two operands; a scalar operand is used for every component.
    pub fn zip(
        &self,
        other: &Value,
        f: &impl Fn(Scalar, Scalar) -> Result<Scalar, OpError>,
    ) -> OpResult {
        match (self, other) {
            (Value::Scalar(a), Value::Scalar(b)) => f(*a, *b).map(Value::Scalar),
            (Value::Composite(a), Value::Composite(b)) if a.len() == b.len() => a
                .iter()
                .zip(b)
                .map(|(x, y)| x.zip(y, f))
                .collect::<Result<_, _>>()
                .map(Value::Composite),
            (Value::Composite(a), b @ Value::Scalar(_)) => a
                .iter()
                .map(|x| x.zip(b, f))
                .collect::<Result<_, _>>()
                .map(Value::Composite),
            (a @ Value::Scalar(_), Value::Composite(b)) => b
                .iter()
                .map(|y| a.zip(y, f))
                .collect::<Result<_, _>>()
                .map(Value::Composite),
            _ => Err(OpError::Shapes),
        }
    }

    /// Componentwise over three operands of one shape (fma, clamp, mix).
    pub fn zip3(
        &self,
        b: &Value,
        c: &Value,
        f: &impl Fn(Scalar, Scalar, Scalar) -> Result<Scalar, OpError>,
    ) -> OpResult {
        match (self, b, c) {
            (Value::Scalar(x), Value::Scalar(y), Value::Scalar(z)) => {
                f(*x, *y, *z).map(Value::Scalar)
            }
            (Value::Composite(x), Value::Composite(y), Value::Composite(z))
                if x.len() == y.len() && y.len() == z.len() =>
            {
                x.iter()
                    .zip(y)
                    .zip(z)
                    .map(|((p, q), r)| p.zip3(q, r, f))
                    .collect::<Result<_, _>>()
                    .map(Value::Composite)
            }
            // mix(v, w, t) and smoothstep take a scalar where the others are vectors.
            (Value::Composite(x), Value::Composite(y), s @ Value::Scalar(_))
                if x.len() == y.len() =>
            {
                x.iter()
                    .zip(y)
                    .map(|(p, q)| p.zip3(q, s, f))
                    .collect::<Result<_, _>>()
                    .map(Value::Composite)
            }
            _ => Err(OpError::Shapes),
        }
    }

    fn components(&self) -> Vec<Scalar> {
        let mut out = Vec::new();
        self.flatten(&mut out);
        out
    }
}

fn floats(s: Scalar) -> Result<f32, OpError> {
    match s {
        Scalar::F32(v) => Ok(v),
        got => Err(OpError::Expected {
            wanted: "a float",
            got,
        }),
    }
}

pub fn unary(op: UnaryOperator, v: &Value) -> OpResult {
    v.map(&|s| {
        Ok(match (op, s) {
            (UnaryOperator::Negate, Scalar::F32(x)) => Scalar::F32(-x),
            (UnaryOperator::Negate, Scalar::I32(x)) => Scalar::I32(x.wrapping_neg()),
            (UnaryOperator::LogicalNot, Scalar::Bool(x)) => Scalar::Bool(!x),
            (UnaryOperator::BitwiseNot, Scalar::I32(x)) => Scalar::I32(!x),
            (UnaryOperator::BitwiseNot, Scalar::U32(x)) => Scalar::U32(!x),
            (op, operand) => return Err(OpError::Unary { op, operand }),
        })
    })
}

pub fn binary(op: BinaryOperator, a: &Value, b: &Value) -> OpResult {
    // Componentwise; `vec == vec` stays a vector of bools, as in naga's IR.
    // (`matrix * vector` and friends are not used by the book.)
    a.zip(b, &|x, y| scalar_binary(op, x, y))
}

/// One operator on two scalars (what [`binary`] applies componentwise).
pub fn scalar_binary(op: BinaryOperator, x: Scalar, y: Scalar) -> Result<Scalar, OpError> {
    use BinaryOperator as B;
    use Scalar::*;
    let cmp = |o: std::cmp::Ordering| -> Option<bool> {
        Some(match op {
            B::Equal => o.is_eq(),
            B::NotEqual => o.is_ne(),
            B::Less => o.is_lt(),
            B::LessEqual => o.is_le(),
            B::Greater => o.is_gt(),
            B::GreaterEqual => o.is_ge(),
            _ => return None,
        })
    };
    Ok(match (x, y) {
        (F32(a), F32(b)) => match op {
            B::Add => F32(a + b),
            B::Subtract => F32(a - b),
            B::Multiply => F32(a * b),
            B::Divide => F32(a / b),
            // WGSL's float remainder truncates, like Rust's.
            B::Modulo => F32(a % b),
            _ => match a.partial_cmp(&b) {
                // Every comparison with a NaN is false except `!=`.
                None => Bool(op == B::NotEqual),
                Some(o) => Bool(cmp(o).ok_or(OpError::Binary {
                    op,
                    operands: "floats",
                })?),
            },
        },
        (I32(a), I32(b)) => match op {
            B::Add => I32(a.wrapping_add(b)),
            B::Subtract => I32(a.wrapping_sub(b)),
            B::Multiply => I32(a.wrapping_mul(b)),
            B::Divide => I32(if b == 0 { a } else { a.wrapping_div(b) }),
            B::Modulo => I32(if b == 0 { 0 } else { a.wrapping_rem(b) }),
            B::And => I32(a & b),
            B::InclusiveOr => I32(a | b),
            B::ExclusiveOr => I32(a ^ b),
            _ => Bool(cmp(a.cmp(&b)).ok_or(OpError::Binary {
                op,
                operands: "i32",
            })?),
        },
        (U32(a), U32(b)) => match op {
            B::Add => U32(a.wrapping_add(b)),
            B::Subtract => U32(a.wrapping_sub(b)),
            B::Multiply => U32(a.wrapping_mul(b)),
            B::Divide => U32(a.checked_div(b).unwrap_or(a)),
            B::Modulo => U32(if b == 0 { 0 } else { a % b }),
            B::And => U32(a & b),
            B::InclusiveOr => U32(a | b),
            B::ExclusiveOr => U32(a ^ b),
            B::ShiftLeft => U32(a.wrapping_shl(b)),
            B::ShiftRight => U32(a.wrapping_shr(b)),
            _ => Bool(cmp(a.cmp(&b)).ok_or(OpError::Binary {
                op,
                operands: "u32",
            })?),
        },
        // The shift amount of an i32 is a u32.
        (I32(a), U32(b)) => match op {
            B::ShiftLeft => I32(a.wrapping_shl(b)),
            B::ShiftRight => I32(a.wrapping_shr(b)),
            _ => {
                return Err(OpError::Binary {
                    op,
                    operands: "i32 and u32",
                });
            }
        },
        (Bool(a), Bool(b)) => match op {
            B::And | B::LogicalAnd => Bool(a & b),
            B::InclusiveOr | B::LogicalOr => Bool(a | b),
            B::Equal => Bool(a == b),
            B::NotEqual => Bool(a != b),
            _ => {
                return Err(OpError::Binary {
                    op,
                    operands: "bools",
                });
            }
        },
        (left, right) => return Err(OpError::Mixed { op, left, right }),
    })
}

/// `select(reject, accept, condition)`, componentwise when the condition is a vector.
pub fn select(condition: &Value, accept: &Value, reject: &Value) -> OpResult {
    match condition {
        Value::Scalar(Scalar::Bool(c)) => Ok(if *c { accept.clone() } else { reject.clone() }),
        Value::Composite(cs) => match (accept, reject) {
            (Value::Composite(a), Value::Composite(r))
                if a.len() == cs.len() && r.len() == cs.len() =>
            {
                cs.iter()
                    .zip(a.iter().zip(r))
                    .map(|(c, (a, r))| select(c, a, r))
                    .collect::<Result<_, _>>()
                    .map(Value::Composite)
            }
            _ => Err(OpError::SelectShapes),
        },
        _ => Err(OpError::SelectCondition),
    }
}

/// `As { convert: Some(_) }` is a conversion; `None` reinterprets the bits.
pub fn cast(v: &Value, kind: ScalarKind, convert: bool) -> OpResult {
    v.map(&|s| {
        Ok(if convert {
            s.convert(kind)
        } else {
            Scalar::from_bits(kind, s.bits())
        })
    })
}

pub fn relational(fun: naga::RelationalFunction, v: &Value) -> OpResult {
    use naga::RelationalFunction as R;
    let bools = || -> Result<Vec<bool>, OpError> {
        v.components()
            .into_iter()
            .map(|s| match s {
                Scalar::Bool(b) => Ok(b),
                got => Err(OpError::Expected {
                    wanted: "a bool",
                    got,
                }),
            })
            .collect()
    };
    match fun {
        R::All => Ok(Value::Scalar(Scalar::Bool(bools()?.into_iter().all(|b| b)))),
        R::Any => Ok(Value::Scalar(Scalar::Bool(bools()?.into_iter().any(|b| b)))),
        R::IsNan => v.map(&|s| floats(s).map(|x| Scalar::Bool(x.is_nan()))),
        R::IsInf => v.map(&|s| floats(s).map(|x| Scalar::Bool(x.is_infinite()))),
    }
}

/// The math builtins the book's kernels can reach; others are reported as unsupported.
pub fn math(fun: MathFunction, args: &[Value]) -> OpResult {
    use MathFunction as M;
    let f1 = |g: fn(f32) -> f32| args[0].map(&|s| floats(s).map(|x| Scalar::F32(g(x))));
    let arg = |i: usize| args.get(i).ok_or(OpError::Arity { fun, needs: i + 1 });
    match fun {
        M::Abs => args[0].map(&|s| {
            Ok(match s {
                Scalar::F32(x) => Scalar::F32(x.abs()),
                Scalar::I32(x) => Scalar::I32(x.wrapping_abs()),
                u @ Scalar::U32(_) => u,
                operand => {
                    return Err(OpError::Builtin {
                        name: "abs",
                        operand,
                    });
                }
            })
        }),
        M::Min | M::Max => arg(1)?.zip(&args[0], &|b, a| {
            let take_a = match (a, b) {
                (Scalar::F32(x), Scalar::F32(y)) => {
                    if fun == M::Min {
                        x <= y || y.is_nan()
                    } else {
                        x >= y || y.is_nan()
                    }
                }
                (Scalar::I32(x), Scalar::I32(y)) => {
                    if fun == M::Min {
                        x <= y
                    } else {
                        x >= y
                    }
                }
                (Scalar::U32(x), Scalar::U32(y)) => {
                    if fun == M::Min {
                        x <= y
                    } else {
                        x >= y
                    }
                }
                _ => {
                    return Err(OpError::MinMax {
                        fun,
                        left: a,
                        right: b,
                    });
                }
            };
            Ok(if take_a { a } else { b })
        }),
        M::Clamp => {
            let lo_clamped = math(M::Max, &[args[0].clone(), arg(1)?.clone()])?;
            math(M::Min, &[lo_clamped, arg(2)?.clone()])
        }
        M::Saturate => f1(|x| x.clamp(0.0, 1.0)),
        // Transcendentals through `libm`, not the platform's C library: the
        // same bits natively and in the browser's WebAssembly, so the page's
        // checker and `runner check` agree value for value.
        M::Cos => f1(libm::cosf),
        M::Sin => f1(libm::sinf),
        M::Tan => f1(libm::tanf),
        M::Cosh => f1(libm::coshf),
        M::Sinh => f1(libm::sinhf),
        M::Tanh => f1(libm::tanhf),
        M::Acos => f1(libm::acosf),
        M::Asin => f1(libm::asinf),
        M::Atan => f1(libm::atanf),
        M::Atan2 => args[0].zip(arg(1)?, &|y, x| {
            Ok(Scalar::F32(libm::atan2f(floats(y)?, floats(x)?)))
        }),
        M::Radians => f1(f32::to_radians),
        M::Degrees => f1(f32::to_degrees),
        M::Ceil => f1(f32::ceil),
        M::Floor => f1(f32::floor),
        M::Round => f1(f32::round_ties_even),
        M::Fract => f1(|x| x - x.floor()),
        M::Trunc => f1(f32::trunc),
        M::Exp => f1(libm::expf),
        M::Exp2 => f1(libm::exp2f),
        M::Log => f1(libm::logf),
        M::Log2 => f1(libm::log2f),
        M::Sqrt => f1(f32::sqrt),
        M::InverseSqrt => f1(|x| 1.0 / x.sqrt()),
        M::Sign => args[0].map(&|s| {
            Ok(match s {
                Scalar::F32(x) => Scalar::F32(if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    0.0
                }),
                Scalar::I32(x) => Scalar::I32(x.signum()),
                operand => {
                    return Err(OpError::Builtin {
                        name: "sign",
                        operand,
                    });
                }
            })
        }),
        M::Pow => args[0].zip(arg(1)?, &|a, b| {
            Ok(Scalar::F32(libm::powf(floats(a)?, floats(b)?)))
        }),
        M::Step => args[0].zip(arg(1)?, &|edge, x| {
            Ok(Scalar::F32(if floats(edge)? <= floats(x)? {
                1.0
            } else {
                0.0
            }))
        }),
        M::Fma => args[0].zip3(arg(1)?, arg(2)?, &|a, b, c| {
            Ok(Scalar::F32(floats(a)?.mul_add(floats(b)?, floats(c)?)))
        }),
        M::Mix => args[0].zip3(arg(1)?, arg(2)?, &|a, b, t| {
            let (a, b, t) = (floats(a)?, floats(b)?, floats(t)?);
            Ok(Scalar::F32(a * (1.0 - t) + b * t))
        }),
        M::SmoothStep => args[0].zip3(arg(1)?, arg(2)?, &|lo, hi, x| {
            let (lo, hi, x) = (floats(lo)?, floats(hi)?, floats(x)?);
            let t = ((x - lo) / (hi - lo)).clamp(0.0, 1.0);
            Ok(Scalar::F32(t * t * (3.0 - 2.0 * t)))
        }),
        M::Dot => {
            let products = args[0].zip(arg(1)?, &|a, b| {
                scalar_binary(BinaryOperator::Multiply, a, b)
            })?;
            let mut parts = products.components().into_iter();
            let first = parts.next().ok_or(OpError::EmptyDot)?;
            parts
                .try_fold(first, |acc, p| scalar_binary(BinaryOperator::Add, acc, p))
                .map(Value::Scalar)
        }
        M::Length => {
            let squares: f32 = args[0]
                .components()
                .into_iter()
                .map(|s| floats(s).map(|x| x * x))
                .sum::<Result<f32, OpError>>()?;
            Ok(Value::Scalar(Scalar::F32(squares.sqrt())))
        }
        M::Distance => {
            let d = binary(BinaryOperator::Subtract, &args[0], arg(1)?)?;
            math(M::Length, &[d])
        }
        M::Normalize => {
            let Value::Scalar(Scalar::F32(len)) = math(M::Length, &[args[0].clone()])? else {
                return Err(OpError::NormalizeNonFloat);
            };
            args[0].map(&|s| floats(s).map(|x| Scalar::F32(x / len)))
        }
        M::CountOneBits => int_bits(&args[0], |b| b.count_ones()),
        M::CountLeadingZeros => int_bits(&args[0], |b| b.leading_zeros()),
        M::CountTrailingZeros => int_bits(&args[0], |b| b.trailing_zeros()),
        M::ReverseBits => int_bits(&args[0], |b| b.reverse_bits()),
        other => Err(OpError::MathBuiltin(other)),
    }
}

/// Applies a bit operation to an i32 or u32 (or a vector of them), keeping the kind.
fn int_bits(v: &Value, f: fn(u32) -> u32) -> OpResult {
    v.map(&|s| match s {
        Scalar::I32(_) | Scalar::U32(_) => Ok(s.with_bits(f(s.bits()))),
        other => Err(OpError::BitOperation(other)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use BinaryOperator as B;
    use Scalar::*;

    fn s(x: Scalar) -> Value {
        Value::Scalar(x)
    }

    #[test]
    fn wgsl_integer_rules_table() {
        let cases = [
            (B::Divide, I32(7), I32(0), I32(7)),
            (B::Modulo, I32(7), I32(0), I32(0)),
            (B::Divide, I32(i32::MIN), I32(-1), I32(i32::MIN)),
            (B::Divide, U32(7), U32(0), U32(7)),
            (B::Modulo, U32(7), U32(0), U32(0)),
            (B::Subtract, U32(0), U32(1), U32(u32::MAX)),
            (B::ShiftLeft, U32(1), U32(33), U32(2)),
            (B::ShiftRight, I32(-8), U32(1), I32(-4)),
            (B::Less, U32(2), U32(3), Bool(true)),
            (B::Modulo, F32(-7.5), F32(2.0), F32(-1.5)),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(binary(op, &s(a), &s(b)), Ok(s(want)), "{op:?} {a:?} {b:?}");
        }
    }

    #[test]
    fn nan_compares_false_except_not_equal() {
        let nan = s(F32(f32::NAN));
        assert_eq!(binary(B::Less, &nan, &s(F32(1.0))), Ok(s(Bool(false))));
        assert_eq!(binary(B::Equal, &nan, &nan), Ok(s(Bool(false))));
        assert_eq!(binary(B::NotEqual, &nan, &nan), Ok(s(Bool(true))));
    }

    #[test]
    fn vectors_broadcast_scalars() {
        let v = Value::Composite(vec![s(U32(1)), s(U32(2)), s(U32(3))]);
        let got = binary(B::Multiply, &v, &s(U32(4))).unwrap();
        assert_eq!(
            got,
            Value::Composite(vec![s(U32(4)), s(U32(8)), s(U32(12))])
        );
        assert!(binary(B::Add, &v, &Value::Composite(vec![s(U32(1))])).is_err());
    }

    #[test]
    fn casts_and_math_table() {
        assert_eq!(cast(&s(F32(-3.7)), ScalarKind::Uint, true), Ok(s(U32(0))));
        assert_eq!(
            cast(&s(F32(f32::NAN)), ScalarKind::Sint, true),
            Ok(s(I32(0)))
        );
        assert_eq!(
            cast(&s(I32(-1)), ScalarKind::Uint, true),
            Ok(s(U32(u32::MAX)))
        );
        assert_eq!(
            cast(&s(F32(1.0)), ScalarKind::Uint, false),
            Ok(s(U32(0x3F80_0000)))
        );
        let cases: [(MathFunction, Vec<Scalar>, Scalar); 6] = [
            (MathFunction::Min, vec![U32(3), U32(9)], U32(3)),
            (MathFunction::Max, vec![I32(-3), I32(2)], I32(2)),
            (
                MathFunction::Clamp,
                vec![F32(5.0), F32(0.0), F32(1.0)],
                F32(1.0),
            ),
            (
                MathFunction::Fma,
                vec![F32(2.0), F32(3.0), F32(1.0)],
                F32(7.0),
            ),
            (MathFunction::Round, vec![F32(2.5)], F32(2.0)),
            (MathFunction::CountOneBits, vec![U32(0b1011)], U32(3)),
        ];
        for (fun, args, want) in cases {
            let args: Vec<Value> = args.into_iter().map(s).collect();
            assert_eq!(math(fun, &args), Ok(s(want)), "{fun:?}");
        }
        let cond = Value::Composite(vec![s(Bool(true)), s(Bool(false))]);
        let a = Value::Composite(vec![s(U32(1)), s(U32(2))]);
        let r = Value::Composite(vec![s(U32(8)), s(U32(9))]);
        assert_eq!(
            select(&cond, &a, &r),
            Ok(Value::Composite(vec![s(U32(1)), s(U32(9))]))
        );
    }
}
