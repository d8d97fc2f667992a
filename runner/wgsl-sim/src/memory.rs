//! Memory the simulator runs on: every variable is a flat run of scalar
//! leaves (pointers into them are [`super::pointer`]'s), and the layout of
//! the module's types in leaves. Indexing a pointer checks the index against
//! the array's length (a check, not a clamp: see [`super::exec`]).

use super::hazard::Shadow;
use super::pointer::Pointee;
use super::value::{Scalar, Value};
use naga::{ArraySize, Handle, Module, ScalarKind, Type, TypeInner, VectorSize};

/// A module-scope variable's storage.
#[derive(Debug, Clone)]
pub struct Region {
    /// The name the kernel gives it.
    pub name: String,
    pub ty: Handle<Type>,
    pub slots: Vec<Scalar>,
    /// Leaves inside the variable; storage buffers continue with a guard band.
    pub len: usize,
    /// The race check's state per leaf; empty where nothing can race
    /// (read-only buffers, uniforms).
    pub shadow: Vec<Shadow>,
    pub space: Space,
    /// Starts out unwritten: workgroup memory, and buffers that start
    /// poisoned. Reading an element nobody wrote is reported.
    pub starts_unwritten: bool,
}

/// Where a region lives, for the checks that differ between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    Storage,
    Uniform,
    Workgroup,
}

impl Space {
    /// The words a learner would use in a message.
    pub fn describe(self) -> &'static str {
        match self {
            Space::Storage => "storage buffer",
            Space::Uniform => "uniform",
            Space::Workgroup => "workgroup memory",
        }
    }
}

/// Sizes and shapes of the module's types, in leaves.
pub struct Layout<'m> {
    module: &'m Module,
    leaves: Vec<usize>,
}

impl<'m> Layout<'m> {
    pub fn new(module: &'m Module) -> Layout<'m> {
        // Types only refer to earlier types, so one pass in arena order suffices.
        let mut leaves: Vec<usize> = Vec::with_capacity(module.types.len());
        for (_, ty) in module.types.iter() {
            let n = match &ty.inner {
                TypeInner::Scalar(_) | TypeInner::Atomic(_) => 1,
                TypeInner::Vector { size, .. } => *size as usize,
                TypeInner::Matrix { columns, rows, .. } => *columns as usize * *rows as usize,
                TypeInner::Array {
                    base,
                    size: ArraySize::Constant(n),
                    ..
                } => (n.get() as usize).saturating_mul(leaves[base.index()]),
                // A runtime-sized array takes its length from the bound buffer.
                TypeInner::Struct { members, .. } => members
                    .iter()
                    .fold(0usize, |n, m| n.saturating_add(leaves[m.ty.index()])),
                _ => 0,
            };
            leaves.push(n);
        }
        Layout { module, leaves }
    }

    pub fn inner(&self, ty: Handle<Type>) -> &'m TypeInner {
        &self.module.types[ty].inner
    }

    pub fn leaves(&self, ty: Handle<Type>) -> usize {
        self.leaves[ty.index()]
    }

    pub fn pointee_leaves(&self, p: Pointee) -> usize {
        match p {
            Pointee::Type(ty) => self.leaves(ty),
            Pointee::Scalar(_) => 1,
        }
    }

    /// The zero of a type, as leaves.
    pub fn zero(&self, ty: Handle<Type>, out: &mut Vec<Scalar>) {
        match self.inner(ty) {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => out.push(Scalar::zero(s.kind)),
            TypeInner::Vector { size, scalar } => out.extend(std::iter::repeat_n(
                Scalar::zero(scalar.kind),
                *size as usize,
            )),
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } => out.extend(std::iter::repeat_n(
                Scalar::zero(scalar.kind),
                *columns as usize * *rows as usize,
            )),
            TypeInner::Array {
                base,
                size: ArraySize::Constant(n),
                ..
            } => {
                for _ in 0..n.get() {
                    self.zero(*base, out);
                }
            }
            TypeInner::Struct { members, .. } => members.iter().for_each(|m| self.zero(m.ty, out)),
            _ => {}
        }
    }

    pub fn zero_value(&self, ty: Handle<Type>) -> Value {
        let mut leaves = Vec::new();
        self.zero(ty, &mut leaves);
        self.build(Pointee::Type(ty), &leaves)
    }

    /// Rebuilds a value of the pointee's type from its leaves.
    pub fn build(&self, p: Pointee, leaves: &[Scalar]) -> Value {
        let mut at = 0;
        self.build_from(p, leaves, &mut at)
    }

    fn build_from(&self, p: Pointee, leaves: &[Scalar], at: &mut usize) -> Value {
        let next = |at: &mut usize| {
            let s = leaves.get(*at).copied().unwrap_or(Scalar::U32(0));
            *at += 1;
            Value::Scalar(s)
        };
        let ty = match p {
            Pointee::Scalar(_) => return next(at),
            Pointee::Type(ty) => ty,
        };
        match self.inner(ty) {
            TypeInner::Vector { size, .. } => {
                Value::Composite((0..*size as usize).map(|_| next(at)).collect())
            }
            TypeInner::Array {
                base,
                size: ArraySize::Constant(n),
                ..
            } => Value::Composite(
                (0..n.get())
                    .map(|_| self.build_from(Pointee::Type(*base), leaves, at))
                    .collect(),
            ),
            TypeInner::Struct { members, .. } => Value::Composite(
                members
                    .iter()
                    .map(|m| self.build_from(Pointee::Type(m.ty), leaves, at))
                    .collect(),
            ),
            _ => next(at),
        }
    }

    /// How element `offset` of a variable of type `ty` is written: `[2][3]`, `.row0`.
    pub fn describe(&self, ty: Handle<Type>, offset: usize) -> String {
        match self.inner(ty) {
            TypeInner::Array { base, .. } => {
                let stride = self.leaves(*base).max(1);
                format!(
                    "[{}]{}",
                    offset / stride,
                    self.describe(*base, offset % stride)
                )
            }
            TypeInner::Vector { .. } => format!("[{offset}]"),
            TypeInner::Struct { members, .. } => {
                let mut start = 0;
                for m in members {
                    let n = self.leaves(m.ty);
                    if offset < start + n {
                        let name = m.name.clone().unwrap_or_default();
                        return format!(".{name}{}", self.describe(m.ty, offset - start));
                    }
                    start += n;
                }
                String::new()
            }
            _ => String::new(),
        }
    }

    /// Indexing into an array or vector: the element, its stride in leaves,
    /// and its length (`None` for a runtime-sized array).
    pub fn element(&self, p: Pointee) -> Option<(Pointee, usize, Option<usize>)> {
        let Pointee::Type(ty) = p else {
            return None;
        };
        match self.inner(ty) {
            TypeInner::Array { base, size, .. } => {
                let len = match size {
                    ArraySize::Constant(n) => Some(n.get() as usize),
                    _ => None,
                };
                Some((Pointee::Type(*base), self.leaves(*base), len))
            }
            TypeInner::Vector { size, scalar } => {
                Some((Pointee::Scalar(scalar.kind), 1, Some(*size as usize)))
            }
            _ => None,
        }
    }

    /// A struct member: its type and its first leaf.
    pub fn member(&self, p: Pointee, index: u32) -> Option<(Pointee, usize)> {
        let Pointee::Type(ty) = p else {
            return None;
        };
        let TypeInner::Struct { members, .. } = self.inner(ty) else {
            return None;
        };
        let offset = members
            .iter()
            .take(index as usize)
            .map(|m| self.leaves(m.ty))
            .sum();
        members
            .get(index as usize)
            .map(|m| (Pointee::Type(m.ty), offset))
    }

    /// The WGSL name of a scalar or vector type (`vec4<f32>`), for messages.
    pub fn type_name(&self, p: Pointee) -> Option<String> {
        let kind = |k: ScalarKind| match k {
            ScalarKind::Float => Some("f32"),
            ScalarKind::Sint => Some("i32"),
            ScalarKind::Uint => Some("u32"),
            ScalarKind::Bool => Some("bool"),
            _ => None,
        };
        let ty = match p {
            Pointee::Scalar(k) => return kind(k).map(str::to_string),
            Pointee::Type(ty) => ty,
        };
        match self.inner(ty) {
            TypeInner::Scalar(s) => kind(s.kind).map(str::to_string),
            TypeInner::Atomic(s) => kind(s.kind).map(|k| format!("atomic<{k}>")),
            TypeInner::Vector { size, scalar } => {
                kind(scalar.kind).map(|k| format!("vec{}<{k}>", *size as u8))
            }
            _ => None,
        }
    }

    /// Whether a type is a vector (whose components a `Compose` may give as smaller vectors).
    pub fn is_vector(&self, ty: Handle<Type>) -> bool {
        matches!(self.inner(ty), TypeInner::Vector { .. })
    }

    /// The scalar kind of a bound buffer's words (`array<f32>` and
    /// `array<vec4<f32>>` → Float), if the simulator can lay it out as
    /// packed 32-bit leaves. Vectors of two and four components are packed
    /// in WGSL's storage layout (strides of 8 and 16 bytes), so the buffer's
    /// words are the leaves in order and every check stays per word. A
    /// `vec3` has a 16-byte stride (a padding word per element), which the
    /// leaves do not model, so it is refused.
    pub fn buffer_element(&self, ty: Handle<Type>) -> Option<ScalarKind> {
        let packed = |inner: &TypeInner| match inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => Some(s.kind),
            TypeInner::Vector {
                size: VectorSize::Bi | VectorSize::Quad,
                scalar,
            } => Some(scalar.kind),
            _ => None,
        };
        match self.inner(ty) {
            TypeInner::Array { base, .. } => packed(self.inner(*base)),
            other => packed(other),
        }
    }

    /// Whether a pointer points at an atomic (whose loads and stores are
    /// atomic operations: they never race).
    pub fn is_atomic(&self, p: Pointee) -> bool {
        matches!(p, Pointee::Type(ty) if matches!(self.inner(ty), TypeInner::Atomic(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(src: &str) -> Module {
        naga::front::wgsl::parse_str(src).unwrap()
    }

    fn global_ty(m: &Module, name: &str) -> Handle<Type> {
        m.global_variables
            .iter()
            .find(|(_, v)| v.name.as_deref() == Some(name))
            .map(|(_, v)| v.ty)
            .unwrap()
    }

    #[test]
    fn leaves_and_names_table() {
        let m = module(
            "struct S { a: u32, v: vec3<f32> }
             var<workgroup> tile: array<array<f32, 10>, 4>;
             var<workgroup> s: array<S, 2>;
             @compute @workgroup_size(1) fn main() { _ = tile[0][0]; _ = s[0].a; }",
        );
        let layout = Layout::new(&m);
        let tile = global_ty(&m, "tile");
        let s = global_ty(&m, "s");
        assert_eq!(layout.leaves(tile), 40);
        assert_eq!(layout.leaves(s), 8);
        let cases = [
            (tile, 23, "[2][3]"),
            (tile, 0, "[0][0]"),
            (s, 4, "[1].a"),
            (s, 5, "[1].v[0]"),
            (s, 7, "[1].v[2]"),
        ];
        for (ty, offset, want) in cases {
            assert_eq!(layout.describe(ty, offset), want, "{offset}");
        }
        let mut zeros = Vec::new();
        layout.zero(s, &mut zeros);
        assert_eq!(zeros[0], Scalar::U32(0));
        assert_eq!(zeros[1], Scalar::F32(0.0));
    }
}
