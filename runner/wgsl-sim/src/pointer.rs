//! A pointer into the simulator's memory: a variable, an offset into its
//! leaves and the type it points at. Pointers are values too (function
//! arguments, `let p = &x`), so this sits below both [`super::value`] and
//! [`super::memory`].

use naga::{Handle, ScalarKind, Type};

/// Which variable a pointer points into.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Root {
    /// A module-scope variable, by its handle's index.
    /// (`u32`s keep pointers, and so every [`super::value::Value`], small: values are
    /// copied on every expression the interpreter evaluates.)
    Global(u32),
    /// A function's local variable, in the call frame at depth `frame`.
    Local { frame: u32, var: u32 },
}

/// What a pointer points at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pointee {
    Type(Handle<Type>),
    /// A component of a vector (`&v[i]`), which has no type of its own in the arena.
    Scalar(ScalarKind),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ptr {
    pub root: Root,
    /// The first leaf pointed at.
    pub offset: usize,
    pub pointee: Pointee,
    /// False once an index fell outside every element and guard band:
    /// loads then read zeros and stores do nothing (the hazard is reported).
    pub valid: bool,
}
