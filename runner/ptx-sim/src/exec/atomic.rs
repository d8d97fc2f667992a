//! Atomics (`atom`, `red`): a read-modify-write of global or shared
//! memory, counted as one read and one write. An atomic is a strong access
//! at its scope (`.gpu` where none is written): it races with a plain
//! access of the same word, and with an atomic whose scope does not
//! include its thread, unless something orders them (see `hazard`). With
//! `.release` it publishes what its thread knows, and so does any atomic
//! after a releasing fence; with `.acquire` it takes over what was
//! released there, and an `atom` whose read a fence follows does too (see
//! `order::release`). A `red` returns nothing, so it never acquires.

use crate::exec::value;
use crate::exec::world::{Access, Cluster, World, read, write};
use crate::hazard::Strength;
use crate::parse::inst::{Inst, Op, Operand, Ty, flag};
use crate::thread::ThreadState;

/// `atom` and `red`: a read-modify-write, strong at its scope, counted as
/// one read and one write; releases and acquires as the module says.
pub fn atomic(t: &mut ThreadState, i: &Inst, w: &mut World, b: &mut Cluster<'_>) -> bool {
    let o = &i.operands;
    let red = i.op == Op::Red;
    let (addr_op, args) = if red {
        (&o[0], &o[1..])
    } else {
        (&o[1], &o[2..])
    };
    let Some(addr) = w.address(t, addr_op, i.space) else {
        return true;
    };
    let ty = i.ty;
    let width = ty.bytes();
    crate::order::release::strong_write(t, &mut w.published, addr, i.scope, i.flag(flag::RELEASE));
    let acquire = |t: &mut ThreadState, w: &mut World| {
        if i.flag(flag::ACQUIRE) {
            w.published.acquire(t, addr, i.scope);
        } else if !red {
            crate::order::release::strong_read(t, addr, i.scope, i.line);
        }
    };
    // `red.add.v2.f32` and `.v4.f32` (sm_90): an atomic addition an
    // element, at consecutive addresses.
    let (vector, scalars): (&[Operand], &[Operand]) = match args.first() {
        Some(Operand::Vector(values)) if red && i.vec > 1 => (values, &args[1..]),
        _ => (&[], args),
    };
    if !vector.is_empty() {
        for (k, value) in vector.iter().enumerate() {
            let x = read(t, w, value, ty);
            if update(t, i, w, b, addr + k as u64 * u64::from(width), x, 0).is_none() {
                return false;
            }
        }
        acquire(t, w);
        return true;
    }
    let x = scalars.first().map_or(0, |a| read(t, w, a, ty));
    let y = scalars.get(1).map_or(0, |a| read(t, w, a, ty));
    let Some(old) = update(t, i, w, b, addr, x, y) else {
        return false;
    };
    if !red {
        write(t, &o[0], old);
    }
    acquire(t, w);
    true
}

/// One element of an atomic operation: the old value at `addr` read, the
/// operation's result with `x` (and `y`, for `cas`) written; None for an
/// operation the checker does not know.
fn update(
    t: &mut ThreadState,
    i: &Inst,
    w: &mut World,
    b: &mut Cluster<'_>,
    addr: u64,
    x: u64,
    y: u64,
) -> Option<u64> {
    let ty = i.ty;
    let width = ty.bytes();
    let load = Access {
        addr,
        width,
        write: false,
        atomic: true,
        strength: Strength::Strong(i.scope),
        first: true,
        line: i.line as usize,
    };
    let old = w.load(t, b, load);
    let m = value::ones(ty.bits());
    let has = |s: &str| i.has(s);
    let new = if has("add") {
        if ty == Ty::F32 {
            u64::from((f32::from_bits(old as u32) + f32::from_bits(x as u32)).to_bits())
        } else if ty == Ty::F64 {
            (f64::from_bits(old) + f64::from_bits(x)).to_bits()
        } else {
            old.wrapping_add(x) & m
        }
    } else if has("exch") {
        x
    } else if has("cas") {
        if old == x { y } else { old }
    } else if has("min") || has("max") {
        let less = value::compare(crate::parse::inst::Cmp::Lt, old, x, ty);
        if has("min") == less { old } else { x }
    } else if has("and") {
        old & x
    } else if has("or") {
        old | x
    } else if has("xor") {
        old ^ x
    } else if has("inc") {
        if old >= x { 0 } else { old + 1 }
    } else if has("dec") {
        if old == 0 || old > x { x } else { old - 1 }
    } else {
        return None;
    };
    let store = Access {
        write: true,
        ..load
    };
    w.store(t, b, store, new);
    Some(old)
}
