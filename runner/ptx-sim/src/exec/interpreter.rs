//! One thread's interpreter: it runs a thread's instructions until the
//! thread must wait for others (a barrier, a warp operation, an mbarrier
//! phase), has run its slice, or ends. Registers hold raw bits (u64);
//! each instruction reads them as its type says. Every load and store goes
//! through [`World::load`] or [`World::store`], which check the address and
//! the race rule.

use crate::exec::value;
use crate::exec::world::{Access, World, read, write};
use crate::hazard::Strength;
use crate::memory::address;
use crate::parse::inst::{Cmp, Inst, Op, Operand, Round, Ty, flag};
use crate::parse::module::Kernel;
use crate::thread::{Stop, ThreadState};

/// Instructions a thread runs before it lets others run (spin loops go on).
pub const SLICE: u32 = 20_000;

/// PTX's widest vector operand (`.v8` of 16-bit types).
const WIDEST_VECTOR: usize = 8;

/// The register numbers of a vector operand, without allocating: every
/// vector load and store reads them. Past `WIDEST_VECTOR` lanes, none.
fn lanes(o: &Operand) -> ([Option<u16>; WIDEST_VECTOR], usize) {
    let mut regs = [None; WIDEST_VECTOR];
    let Operand::Vector(v) = o else {
        return (regs, 0);
    };
    for (slot, x) in regs.iter_mut().zip(v) {
        if let Operand::Reg(r) = x {
            *slot = Some(*r);
        }
    }
    (regs, v.len().min(WIDEST_VECTOR))
}

/// Runs `t` from its pc until it stops. `Err` carries an unsupported
/// instruction (the static check should have refused the kernel first).
pub fn run_thread(
    t: &mut ThreadState,
    k: &Kernel,
    w: &mut World,
    shared: &mut crate::exec::world::Cluster<'_>,
) -> Result<Stop, (String, usize)> {
    let mut budget = SLICE;
    loop {
        let Some(i) = k.body.get(t.pc) else {
            return Ok(Stop::Done);
        };
        w.instructions += 1;
        if let Some((p, neg)) = i.guard
            && (t.regs[p as usize] != 0) == neg
        {
            t.pc += 1;
            continue;
        }
        budget -= 1;
        if budget == 0 {
            return Ok(Stop::Slice);
        }
        if fast(t, i) {
            t.pc += 1;
            continue;
        }
        let o = &i.operands;
        match i.op {
            Op::Bra => {
                if let Some(Operand::Label(target)) = o.first() {
                    t.pc = *target;
                    continue;
                }
                return Err((i.text.clone(), i.line as usize));
            }
            Op::Ret | Op::Exit => return Ok(Stop::Done),
            Op::Barrier if i.has("cluster") => {
                // `arrive` is the first half; `wait` waits for every thread of the cluster.
                if i.has("wait") {
                    return Ok(Stop::Cluster);
                }
            }
            Op::Bar | Op::Barrier => {
                if i.has("warp") {
                    let mask = o
                        .first()
                        .map_or(u32::MAX, |m| read(t, w, m, Ty::U32) as u32);
                    return Ok(Stop::Warp { mask });
                }
                if i.has("arrive") {
                    // An arrival at a named barrier: it counts, and does not wait.
                    let id = o.first().map_or(0, |x| read(t, w, x, Ty::U32) as u32);
                    let mem = &mut shared.mems[shared.own];
                    crate::order::named::arrive(t, mem.named.entry(id).or_default());
                    mem.barrier_changes += 1;
                    t.pc += 1;
                    continue;
                }
                let id = o.first().map_or(0, |x| read(t, w, x, Ty::U32) as u32);
                let count = o.get(1).map(|x| read(t, w, x, Ty::U32) as u32);
                return Ok(Stop::Barrier { id, count });
            }
            Op::Ldmatrix | Op::Mma | Op::Wmma => return Ok(Stop::Warp { mask: u32::MAX }),
            // A warpgroup's product, made when issued, and the wait that
            // retires products: both taken by the whole warpgroup together
            // (matrix::resolve_warpgroups). The operands' reads stay
            // pending from the product to that wait (matrix::retire).
            Op::Wgmma if i.has("mma_async") || i.has("wait_group") => {
                return Ok(Stop::Warp { mask: u32::MAX });
            }
            Op::Wgmma if i.has("commit_group") => crate::exec::matrix::commit(t),
            Op::Wgmma => {}
            // The lanes that reach it together: see `warp::resolve`.
            Op::Activemask => return Ok(Stop::Warp { mask: 0 }),
            Op::Shfl | Op::Vote => {
                let mask = o.last().map_or(u32::MAX, |m| read(t, w, m, Ty::U32) as u32);
                return Ok(Stop::Warp { mask });
            }
            Op::Mbarrier => {
                // It moves the pc itself: a failed wait resumes after it.
                if let Some(stop) = crate::exec::asynchronous::mbarrier(t, i, w, shared) {
                    return Ok(stop);
                }
                continue;
            }
            Op::Nanosleep => {
                t.pc += 1;
                // With several ranks a poll that finds nothing new yields
                // (below), so a poll with a sleep in its loop still ends.
                if !w.ranked {
                    return Ok(Stop::Slice);
                }
                continue;
            }
            _ => {
                // A poll of a flag in global memory: one that finds the
                // thread just as at its last poll yields. A poll is a
                // strong load, or a read-modify-write (an `atomicCAS` that
                // fails, an `atomicOr(flag, 0)`), whose returned value and
                // the thread's state tell alike whether anything changed.
                let poll = (i.op == Op::Ld
                    && i.flag(flag::ACQUIRE | flag::RELAXED | flag::VOLATILE))
                    || i.op == Op::Atom;
                let addr = if poll { poll_address(t, i, w) } else { None };
                let changes = w.changes;
                if !step(t, i, w, shared) {
                    return Err((i.text.clone(), i.line as usize));
                }
                // An atomic that changed memory is no poll (a histogram's
                // adds): only one that left it as it was is compared.
                if let Some(a) = addr
                    && (i.op != Op::Atom || w.changes == changes)
                    && polled_again(t, i, a)
                {
                    t.pc += 1;
                    return Ok(Stop::Spin);
                }
            }
        }
        t.pc += 1;
    }
}

/// The global address an acquire, relaxed or volatile load, or an atomic
/// that returns a value, reads: a poll.
#[cold]
fn poll_address(t: &ThreadState, i: &Inst, w: &World) -> Option<u64> {
    if i.op != Op::Atom && !i.flag(flag::ACQUIRE | flag::RELAXED | flag::VOLATILE) {
        return None;
    }
    let a = w.address(t, &i.operands[1], i.space)?;
    matches!(address::place(a), address::Place::Global(..)).then_some(a)
}

/// How a load or store stands in the memory model: `.relaxed`,
/// `.acquire` and `.release` make it strong at its scope, `.volatile` is
/// `.relaxed.sys` (see `hazard`), anything else is plain.
fn strength_of(i: &Inst) -> Strength {
    if i.flag(flag::RELAXED | flag::ACQUIRE | flag::RELEASE) {
        Strength::Strong(i.scope)
    } else if i.flag(flag::VOLATILE) {
        Strength::Volatile
    } else {
        Strength::Plain
    }
}

/// Whether the poll at `a` found the thread as at its last poll.
#[cold]
fn polled_again(t: &mut ThreadState, i: &Inst, a: u64) -> bool {
    let Some(Operand::Reg(r)) = i.operands.first() else {
        return false;
    };
    let value = t.regs[*r as usize];
    t.polled(t.pc, a, value)
}

/// A register's or an immediate's bits (the operands of the fast path).
#[inline(always)]
fn bits(t: &ThreadState, o: &Operand) -> Option<u64> {
    match o {
        Operand::Reg(r) => Some(t.regs[*r as usize]),
        Operand::Imm(v) => Some(*v),
        _ => None,
    }
}

/// The commonest instructions of the book's kernels (f32 fma, add and
/// mul; 32- and 64-bit integer add, mul and shift; mov), on registers and
/// immediates, without the general path's operand and type dispatch: the
/// same results as [`step`] (the unit tests run both), several times
/// faster. False where the instruction is not one of them.
#[inline(always)]
fn fast(t: &mut ThreadState, i: &Inst) -> bool {
    let [Operand::Reg(d), rest @ ..] = i.operands.as_slice() else {
        return fast_unpack(t, i);
    };
    // BF16 to F32 is exact: the BF16 is the float's upper half. A NaN takes
    // the general path, which decides its payload.
    if let (Op::Cvt, Ty::Bf16, Ty::F32, [Operand::Reg(s)]) = (i.op, i.ty, i.ty2, rest)
        && i.flags == 0
        && i.round == Round::Default
    {
        let half = t.regs[*s as usize] & 0xFFFF;
        if half & 0x7FFF > 0x7F80 {
            return false;
        }
        t.regs[*d as usize] = half << 16;
        return true;
    }
    let plain = i.flags == 0 && matches!(i.round, Round::Default | Round::Rn);
    let Some(a) = rest.first().and_then(|x| bits(t, x)) else {
        return false;
    };
    let b = || rest.get(1).and_then(|x| bits(t, x));
    let c = || rest.get(2).and_then(|x| bits(t, x));
    let f = |v: u64| f32::from_bits(v as u32);
    let out = match (i.op, i.ty) {
        (Op::Mov, Ty::F32 | Ty::U32 | Ty::S32 | Ty::B32) if rest.len() == 1 => a & 0xFFFF_FFFF,
        (Op::Mov, Ty::U64 | Ty::S64 | Ty::B64) if rest.len() == 1 => a,
        (Op::Fma, Ty::F32) if plain && i.round == Round::Rn => {
            let (Some(b), Some(c)) = (b(), c()) else {
                return false;
            };
            u64::from(libm::fmaf(f(a), f(b), f(c)).to_bits())
        }
        (Op::Add, Ty::F32) if plain => u64::from((f(a) + f(b().unwrap_or(0))).to_bits()),
        (Op::Mul, Ty::F32) if plain => u64::from((f(a) * f(b().unwrap_or(0))).to_bits()),
        (Op::Add, Ty::S32 | Ty::U32 | Ty::B32) if i.flags == 0 => {
            a.wrapping_add(b().unwrap_or(0)) & 0xFFFF_FFFF
        }
        (Op::Add, Ty::S64 | Ty::U64 | Ty::B64) if i.flags == 0 => a.wrapping_add(b().unwrap_or(0)),
        (Op::Mul, Ty::U32) if i.flags == flag::WIDE => {
            (a & 0xFFFF_FFFF) * (b().unwrap_or(0) & 0xFFFF_FFFF)
        }
        (Op::Mul, Ty::S32) if i.flags == flag::WIDE => {
            let x = value::sext(a, 32) as i64;
            let y = value::sext(b().unwrap_or(0), 32) as i64;
            x.wrapping_mul(y) as u64
        }
        (Op::Mul, Ty::S32 | Ty::U32) if i.flags == flag::LO => {
            a.wrapping_mul(b().unwrap_or(0)) & 0xFFFF_FFFF
        }
        (Op::Mad, Ty::S32 | Ty::U32) if i.flags == flag::LO => {
            let (Some(b), Some(c)) = (b(), c()) else {
                return false;
            };
            a.wrapping_mul(b).wrapping_add(c) & 0xFFFF_FFFF
        }
        (Op::Shl, Ty::B32) => {
            let s = b().unwrap_or(0) & 0xFFFF_FFFF;
            if s >= 32 { 0 } else { (a << s) & 0xFFFF_FFFF }
        }
        (Op::Shl, Ty::B64) => {
            let s = b().unwrap_or(0) & 0xFFFF_FFFF;
            if s >= 64 { 0 } else { a << s }
        }
        _ => return false,
    };
    t.regs[*d as usize] = out;
    true
}

/// `mov.b32 {a, b}, wide` (and the other unpacks) on registers: each part
/// its slice of the source's bits, as [`step`] does.
#[inline(always)]
fn fast_unpack(t: &mut ThreadState, i: &Inst) -> bool {
    let (Op::Mov, [Operand::Vector(parts), Operand::Reg(s)]) = (i.op, i.operands.as_slice()) else {
        return false;
    };
    if parts.is_empty() || !parts.iter().all(|p| matches!(p, Operand::Reg(_))) {
        return false;
    }
    let v = t.regs[*s as usize];
    let each = i.ty.bits() / parts.len() as u32;
    for (n, p) in parts.iter().enumerate() {
        if let Operand::Reg(r) = p {
            t.regs[*r as usize] = (v >> (each * n as u32)) & value::ones(each);
        }
    }
    true
}

/// Executes one instruction that needs no other thread; false where it is not implemented.
#[inline(always)]
fn step(
    t: &mut ThreadState,
    i: &Inst,
    w: &mut World,
    shared: &mut crate::exec::world::Cluster<'_>,
) -> bool {
    let o = &i.operands;
    let ty = i.ty;
    match i.op {
        Op::Mov => {
            match (&o[0], &o[1]) {
                // Unpack: {a, b} = wide.
                (Operand::Vector(parts), src) => {
                    let v = read(t, w, src, Ty::B64);
                    let each = ty.bits() / parts.len() as u32;
                    for (n, p) in parts.iter().enumerate() {
                        let piece = (v >> (each * n as u32)) & value::ones(each);
                        write(t, p, piece);
                    }
                }
                // Pack: wide = {a, b}.
                (dst, Operand::Vector(parts)) => {
                    let each = ty.bits() / parts.len() as u32;
                    let mut v = 0u64;
                    for (n, p) in parts.iter().enumerate() {
                        v |= (read(t, w, p, Ty::B64) & value::ones(each)) << (each * n as u32);
                    }
                    write(t, dst, v);
                }
                (dst, Operand::Symbol(name)) => {
                    let v = w.symbol(name).unwrap_or(0);
                    write(t, dst, v);
                }
                (dst, src) => {
                    let v = read(t, w, src, ty);
                    write(t, dst, v);
                }
            }
        }
        Op::Ld | Op::Ldu | Op::St => {
            let store = i.op == Op::St;
            let (addr_op, data) = if store {
                (&o[0], &o[1])
            } else {
                (&o[1], &o[0])
            };
            let addr = match w.address(t, addr_op, i.space) {
                Some(a) => a,
                None => return true,
            };
            let scalar = [match data {
                Operand::Reg(r) => Some(*r),
                _ => None,
            }];
            let vector;
            let regs: &[Option<u16>] = if let Operand::Vector(_) = data {
                vector = lanes(data);
                &vector.0[..vector.1]
            } else {
                &scalar
            };
            let width = ty.bytes() as u64;
            let strength = strength_of(i);
            if store && let Some(scope) = strength.scope() {
                let explicit = i.flag(flag::RELEASE);
                crate::order::release::strong_write(t, &mut w.published, addr, scope, explicit);
            }
            for (n, r) in regs.iter().enumerate() {
                let a = addr + n as u64 * width;
                let access = Access {
                    addr: a,
                    width: width as u32,
                    write: store,
                    atomic: false,
                    strength,
                    first: n == 0,
                    line: i.line as usize,
                };
                if store {
                    let v = match (data, r) {
                        (Operand::Vector(parts), _) => read(t, w, &parts[n], ty),
                        (_, _) => read(t, w, data, ty),
                    };
                    w.store(t, shared, access, v);
                } else {
                    let v = w.load(t, shared, access);
                    let v = if ty.signed() {
                        value::sext(v, ty.bits())
                    } else {
                        v
                    };
                    if let Some(r) = r {
                        t.regs[*r as usize] = v;
                    }
                }
            }
            if !store {
                if i.flag(flag::ACQUIRE) {
                    w.published.acquire(t, addr, i.scope);
                } else if let Some(scope) = strength.scope() {
                    crate::order::release::strong_read(t, addr, scope, i.line);
                }
            }
        }
        Op::Atom | Op::Red => return crate::exec::atomic::atomic(t, i, w, shared),
        Op::Cvta => {
            let v = read(t, w, &o[1], Ty::U64);
            let to = i.has("to");
            let base = match i.space {
                crate::parse::inst::Space::Shared | crate::parse::inst::Space::SharedCluster => {
                    address::SHARED
                }
                crate::parse::inst::Space::Local => address::LOCAL,
                crate::parse::inst::Space::Param => address::PARAM,
                _ => 0,
            };
            let out = if to {
                v.wrapping_sub(base)
            } else {
                v.wrapping_add(base)
            };
            let out = if ty.bits() == 32 {
                out & 0xFFFF_FFFF
            } else {
                out
            };
            write(t, &o[0], out);
        }
        Op::Isspacep => {
            use crate::parse::inst::Space;
            let a = read(t, w, &o[1], Ty::U64);
            let inside = match address::place(a) {
                address::Place::Global(..) => matches!(i.space, Space::Global | Space::Const),
                address::Place::Shared(..) => {
                    matches!(i.space, Space::Shared | Space::SharedCluster)
                }
                address::Place::Local(_) => i.space == Space::Local,
                address::Place::Param(_) => i.space == Space::Param,
                address::Place::Nowhere => false,
            };
            write(t, &o[0], u64::from(inside));
        }
        // Proxy fences (`fence.proxy.async`, `fence.mbarrier_init`) order
        // the asynchronous proxy's view, not one thread's accesses against
        // another's: the checker's copies are ordered where they land.
        Op::Membar | Op::Fence if !(i.has("proxy") || i.has("mbarrier_init")) => {
            let only_acquire = i.flag(flag::ACQUIRE) && !i.flag(flag::RELEASE);
            let only_release = i.flag(flag::RELEASE) && !i.flag(flag::ACQUIRE);
            let fence = crate::order::release::Fence {
                scope: i.scope,
                acquires: !only_release,
                releases: !only_acquire,
            };
            crate::order::release::fence(t, &mut w.published, fence);
        }
        // `fence.proxy.async` (any state space: shared memory is what the
        // checker's async reader, wgmma, reads) orders this thread's generic
        // writes before the async proxy's later reads (see `order::proxy`).
        Op::Fence if i.has("proxy") && i.mods.iter().any(|m| m.starts_with("async")) => {
            t.proxy_fences += 1;
            if let Some(proxy) = shared.mems[shared.own].proxy.as_mut() {
                proxy.fence(t.index);
            }
        }
        Op::Membar | Op::Fence => {}
        Op::Prefetch | Op::Setmaxnreg => {}
        Op::Printf => {
            let format = read(t, w, &o[0], Ty::U64);
            let args = read(t, w, &o[1], Ty::U64);
            let text = crate::exec::printf::print(format, args, &|a, n| w.peek(t, a, n));
            w.print(&text);
            // printf returns the number of arguments; nothing reads it here.
            write(t, &o[2], 0);
        }
        Op::Mapa => {
            // The same shared variable in block `rank` of the cluster.
            let a = read(t, w, &o[1], Ty::U64);
            let rank = read(t, w, &o[2], Ty::U32) & 0x7F;
            let generic = i.space == crate::parse::inst::Space::Generic;
            let off = if generic {
                a.wrapping_sub(address::SHARED)
            } else {
                a
            } & 0xFF_FFFF;
            let cluster = address::CLUSTER_BIT | (rank << 24) | off;
            write(
                t,
                &o[0],
                if generic {
                    address::SHARED + cluster
                } else {
                    cluster
                },
            );
        }
        Op::CpAsync => return crate::exec::asynchronous::cp_async(t, i, w, shared),
        Op::Setp => {
            // Forms: d, a, b | d, a, b, c | d, e, a, b | d, e, a, b, c.
            let two =
                o.len() == 5 || (o.len() == 4 && i.flags & (flag::AND | flag::OR | flag::XOR) == 0);
            let (ai, bi) = if two { (2, 3) } else { (1, 2) };
            let a = read(t, w, &o[ai], ty);
            let b = read(t, w, &o[bi], ty);
            let mut p = value::compare(i.cmp.unwrap_or(Cmp::Eq), a, b, ty);
            let c = o.get(bi + 1).map(|c| read(t, w, c, Ty::Pred) != 0);
            let combine = |x: bool| match c {
                Some(c) if i.flag(flag::AND) => x && c,
                Some(c) if i.flag(flag::OR) => x || c,
                Some(c) if i.flag(flag::XOR) => x ^ c,
                _ => x,
            };
            let q = combine(!p);
            p = combine(p);
            write(t, &o[0], u64::from(p));
            if two {
                write(t, &o[1], u64::from(q));
            }
        }
        Op::Selp => {
            let c = read(t, w, &o[3], Ty::Pred) != 0;
            let v = read(t, w, if c { &o[1] } else { &o[2] }, ty);
            write(t, &o[0], v);
        }
        Op::Cvt if o.len() == 3 => {
            // cvt.rn.{bf16x2,f16x2}.f32 d, a, b: a to the upper half, b to the lower.
            let half = if i.ty2 == Ty::Bf16x2 {
                Ty::Bf16
            } else {
                Ty::F16
            };
            let hi = value::convert(read(t, w, &o[1], i.ty), i.ty, half, i.round, false, false);
            let lo = value::convert(read(t, w, &o[2], i.ty), i.ty, half, i.round, false, false);
            write(t, &o[0], (hi << 16) | lo);
        }
        Op::Cvt => {
            let v = read(t, w, &o[1], i.ty);
            let out = value::convert(
                v,
                i.ty,
                i.ty2,
                i.round,
                i.flag(flag::SAT),
                i.flag(flag::FTZ),
            );
            write(t, &o[0], out);
        }
        _ => {
            let mut args = [0u64; 4];
            for (slot, x) in args.iter_mut().zip(&o[1..]) {
                *slot = read(t, w, x, ty);
            }
            match value::arith(i, &args[..(o.len() - 1).min(4)]) {
                Some(v) => write(t, &o[0], v),
                None => return false,
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::inst::decode;
    use std::collections::HashMap;

    /// The fast path gives what the general path (operands masked to the
    /// type, then `value::arith`) gives, on values that probe signs, widths,
    /// NaNs and shifts past the width.
    /// A thread with `regs` and nothing else.
    fn thread_with(regs: Vec<u64>) -> ThreadState {
        ThreadState {
            regs,
            ..ThreadState::default()
        }
    }

    #[test]
    fn fast_path_agrees_with_the_general_path() {
        let texts = [
            "fma.rn.f32 %r0, %r1, %r2, %r3",
            "add.f32 %r0, %r1, %r2",
            "add.rn.f32 %r0, %r1, 0f3F800000",
            "mul.f32 %r0, %r1, %r2",
            "add.s32 %r0, %r1, %r2",
            "add.u32 %r0, %r1, -1",
            "add.s64 %r0, %r1, %r2",
            "mul.wide.u32 %r0, %r1, %r2",
            "mul.wide.s32 %r0, %r1, %r2",
            "mul.lo.s32 %r0, %r1, %r2",
            "mad.lo.s32 %r0, %r1, %r2, %r3",
            "shl.b32 %r0, %r1, %r2",
            "shl.b64 %r0, %r1, %r2",
            "mov.u32 %r0, %r1",
            "mov.b64 %r0, %r1",
            "mov.f32 %r0, 0f41200000",
        ];
        let values: [u64; 6] = [
            0,
            7,
            u64::from((-3i32) as u32),
            u64::from(1.5f32.to_bits()),
            u64::from(f32::NAN.to_bits()),
            0x1_0000_0021,
        ];
        for text in texts {
            let mut names: HashMap<String, u16> = HashMap::new();
            let mut reg = |n: &str, _: bool| {
                let k = names.len() as u16;
                Some(*names.entry(n.to_string()).or_insert(k))
            };
            let inst = decode(text, 1, &mut reg).expect(text);
            for &x in &values {
                for &y in &values {
                    let mut t = thread_with(vec![0, x, y, 0x4000_0000_0000_0003]);
                    let masked: Vec<u64> = inst.operands[1..]
                        .iter()
                        .map(|o| match o {
                            Operand::Reg(r) => value::mask(t.regs[*r as usize], inst.ty),
                            Operand::Imm(v) => value::mask(*v, inst.ty),
                            _ => 0,
                        })
                        .collect();
                    let want = match inst.op {
                        Op::Mov => masked[0],
                        _ => value::arith(&inst, &masked).expect(text),
                    };
                    assert!(fast(&mut t, &inst), "{text}: not on the fast path");
                    let got = t.regs[0];
                    let same = got == want
                        || (inst.ty == Ty::F32
                            && f32::from_bits(got as u32).is_nan()
                            && f32::from_bits(want as u32).is_nan());
                    assert!(
                        same,
                        "{text} with {x:#x}, {y:#x}: fast {got:#x}, general {want:#x}"
                    );
                }
            }
        }
    }

    /// The BF16-to-F32 conversion and the unpacking `mov` on the fast path
    /// give the general path's bits; a BF16 NaN is left to the general path.
    /// (case, instruction, source register value, wanted registers 0 and 1,
    /// or None where the fast path must decline)
    #[test]
    fn fast_conversions_and_unpacks_table() {
        let one = u64::from(1.0f32.to_bits());
        let cases: [(&str, &str, u64, Option<[u64; 2]>); 7] = [
            ("one", "cvt.f32.bf16 %r0, %r2", 0x3F80, Some([one, 0])),
            (
                "negative",
                "cvt.f32.bf16 %r0, %r2",
                0xC040,
                Some([u64::from((-3.0f32).to_bits()), 0]),
            ),
            (
                "upper bits ignored",
                "cvt.f32.bf16 %r0, %r2",
                0xABCD_3F80,
                Some([one, 0]),
            ),
            (
                "a subnormal",
                "cvt.f32.bf16 %r0, %r2",
                0x0001,
                Some([0x1_0000, 0]),
            ),
            ("a NaN declines", "cvt.f32.bf16 %r0, %r2", 0x7FC1, None),
            (
                "two halves",
                "mov.b32 {%r0, %r1}, %r2",
                0x1234_5678,
                Some([0x5678, 0x1234]),
            ),
            (
                "two words",
                "mov.b64 {%r0, %r1}, %r2",
                0x1234_5678_9ABC_DEF0,
                Some([0x9ABC_DEF0, 0x1234_5678]),
            ),
        ];
        for (case, text, source, wanted) in cases {
            let mut names: HashMap<String, u16> = HashMap::new();
            let mut reg = |n: &str, _: bool| {
                let k = n.trim_start_matches("%r").parse::<u16>().unwrap_or(9);
                Some(*names.entry(n.to_string()).or_insert(k))
            };
            let inst = decode(text, 1, &mut reg).expect(text);
            let mut t = thread_with(vec![0, 0, source, 0]);
            let took = fast(&mut t, &inst);
            assert_eq!(took, wanted.is_some(), "{case}");
            if let Some(wanted) = wanted {
                assert_eq!([t.regs[0], t.regs[1]], wanted, "{case}");
                if inst.op == Op::Cvt {
                    let general = value::convert(
                        source & 0xFFFF,
                        inst.ty,
                        inst.ty2,
                        inst.round,
                        false,
                        false,
                    );
                    assert_eq!(t.regs[0], general, "{case}: the general path's bits");
                }
            }
        }
    }
}
