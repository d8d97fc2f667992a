//! The warp's matrix instructions: `ldmatrix`, `mma.sync` (m16n8k16, BF16
//! and F16 inputs, F32 accumulators) and WMMA's m16n16k16 loads, products
//! and stores. Each is a warp operation: all 32 lanes take part.
//!
//! `ldmatrix` and `mma.sync` use the fragment layouts the PTX ISA
//! documents, so a kernel that reads a fragment's registers (Puzzle 36's
//! online softmax does) sees what a GPU gives it. WMMA's layouts are left
//! unspecified by the ISA, and a kernel can only hand its fragments back
//! to WMMA (or fill them with one value), so the checker uses its own:
//! lane `l` holds elements `8l … 8l + 7` of the row-major 16 × 16 tile.
//!
//! Each instruction's products (of 16-bit inputs: exact in f64) are summed
//! in f64 and added to the f32 accumulator with one rounding. A GPU's tensor
//! cores sum in their own order and internal precision, so results can
//! differ in the last bits of the f32 accumulator, far inside the puzzles'
//! BF16 tolerance.

use crate::exec::world::{Access, BlockMemory, Cluster, World, shared_name};
use crate::exec::world::{read, write};
use crate::hazard::{Kind, Strength};
use crate::parse::inst::Op;
use crate::parse::inst::{Inst, Operand, Space, Ty};
use crate::parse::module::Kernel;
use crate::thread::{Stop, ThreadState, describe};

fn regs(o: &Operand) -> Vec<&Operand> {
    match o {
        Operand::Vector(v) => v.iter().collect(),
        other => vec![other],
    }
}

fn half(v: u64, k: u32, bf: bool) -> f32 {
    let h = (v >> (16 * k)) as u16;
    if bf {
        half::bf16::from_bits(h).to_f32()
    } else {
        half::f16::from_bits(h).to_f32()
    }
}

/// Carries out one matrix instruction for the 32 lanes `group` (lane = index − `lo`).
pub fn execute(
    i: &Inst,
    threads: &mut [ThreadState],
    group: &[usize],
    lo: usize,
    w: &mut World,
    mem: &mut Cluster<'_>,
) {
    match i.base.as_str() {
        "ldmatrix" => ldmatrix(i, threads, group, lo, w, mem),
        "mma" => mma(i, threads, group, lo, w),
        _ => wmma(i, threads, group, lo, w, mem),
    }
}

fn lane_thread(group: &[usize], lo: usize, lane: usize) -> Option<usize> {
    group.iter().copied().find(|&j| j - lo == lane)
}

/// `ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 {d…}, [addr]`:
/// lanes 8m … 8m + 7 give the rows of matrix m; lane l then holds row l/4,
/// columns 2(l%4) and +1 of each matrix (transposed: those of its transpose).
fn ldmatrix(
    i: &Inst,
    threads: &mut [ThreadState],
    group: &[usize],
    lo: usize,
    w: &mut World,
    mem: &mut Cluster<'_>,
) {
    let count = if i.has("x4") {
        4
    } else if i.has("x2") {
        2
    } else {
        1
    };
    let trans = i.has("trans");
    // matrices[m][r][c]: 8 × 8 halves, as bits.
    let mut matrices = vec![[[0u16; 8]; 8]; count];
    for (m, matrix) in matrices.iter_mut().enumerate() {
        for (r, row) in matrix.iter_mut().enumerate() {
            let Some(j) = lane_thread(group, lo, 8 * m + r) else {
                continue;
            };
            let Some(addr) = w.address(&threads[j], &i.operands[1], Space::Shared) else {
                continue;
            };
            for (c, cell) in row.iter_mut().enumerate() {
                let a = Access {
                    addr: addr + 2 * c as u64,
                    width: 2,
                    write: false,
                    atomic: false,
                    strength: Strength::Plain,
                    first: c == 0,
                    line: i.line as usize,
                };
                *cell = w.load(&mut threads[j], mem, a) as u16;
            }
        }
    }
    let dst = regs(&i.operands[0]);
    for &j in group {
        let l = j - lo;
        for (m, d) in dst.iter().enumerate().take(count) {
            let (r, c) = (l / 4, 2 * (l % 4));
            let (x, y) = if trans {
                (matrices[m][c][r], matrices[m][c + 1][r])
            } else {
                (matrices[m][r][c], matrices[m][r][c + 1])
            };
            write(&mut threads[j], d, u64::from(x) | (u64::from(y) << 16));
        }
    }
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32 d, a, b, c`.
fn mma(i: &Inst, threads: &mut [ThreadState], group: &[usize], lo: usize, w: &mut World) {
    let o = &i.operands;
    let bf = i.has("bf16");
    let mut a = [[0f32; 16]; 16];
    let mut b = [[0f32; 8]; 16];
    let mut c = [[0f32; 8]; 16];
    for &j in group {
        let l = j - lo;
        let (g, q) = (l / 4, l % 4);
        let t = &threads[j];
        let ar: Vec<u64> = regs(&o[1]).iter().map(|x| read(t, w, x, Ty::B32)).collect();
        let br: Vec<u64> = regs(&o[2]).iter().map(|x| read(t, w, x, Ty::B32)).collect();
        let cr: Vec<u64> = regs(&o[3]).iter().map(|x| read(t, w, x, Ty::B32)).collect();
        for (k, &v) in ar.iter().enumerate().take(4) {
            let row = g + 8 * (k % 2);
            let col = 2 * q + 8 * (k / 2);
            a[row][col] = half(v, 0, bf);
            a[row][col + 1] = half(v, 1, bf);
        }
        for (k, &v) in br.iter().enumerate().take(2) {
            let row = 2 * q + 8 * k;
            b[row][g] = half(v, 0, bf);
            b[row + 1][g] = half(v, 1, bf);
        }
        for (k, &v) in cr.iter().enumerate().take(4) {
            c[g + 8 * (k / 2)][2 * q + k % 2] = f32::from_bits(v as u32);
        }
    }
    for &j in group {
        let l = j - lo;
        let (g, q) = (l / 4, l % 4);
        for (k, d) in regs(&o[0]).iter().enumerate().take(4) {
            let (row, col) = (g + 8 * (k / 2), 2 * q + k % 2);
            let products: f64 = a[row]
                .iter()
                .zip(&b)
                .map(|(x, brow)| f64::from(*x) * f64::from(brow[col]))
                .sum();
            let sum = (f64::from(c[row][col]) + products) as f32;
            write(&mut threads[j], d, u64::from(sum.to_bits()));
        }
    }
}

/// WMMA m16n16k16: `load.{a,b,c}`, `mma`, `store.d`, with the checker's layout.
fn wmma(
    i: &Inst,
    threads: &mut [ThreadState],
    group: &[usize],
    lo: usize,
    w: &mut World,
    mem: &mut Cluster<'_>,
) {
    let o = &i.operands;
    let verb = i.mods.first().map(String::as_str).unwrap_or("");
    let col_major = i.has("col");
    let space = if i.space == Space::Generic {
        Space::Generic
    } else {
        i.space
    };
    match verb {
        "load" | "store" => {
            let store = verb == "store";
            let (data, addr_op) = if store {
                (&o[1], &o[0])
            } else {
                (&o[0], &o[1])
            };
            let f32s = i.ty == Ty::F32;
            for &j in group {
                let l = j - lo;
                let t = &threads[j];
                let Some(base) = w.address(t, addr_op, space) else {
                    continue;
                };
                let stride = o.get(2).map_or(16, |s| read(t, w, s, Ty::U32));
                let dst = regs(data);
                for e in 0..8usize {
                    let idx = 8 * l + e;
                    let (r, c) = ((idx / 16) as u64, (idx % 16) as u64);
                    let at = if col_major {
                        c * stride + r
                    } else {
                        r * stride + c
                    };
                    let width = if f32s { 4 } else { 2 };
                    let a = Access {
                        addr: base + at * width,
                        width: width as u32,
                        write: store,
                        atomic: false,
                        strength: Strength::Plain,
                        first: e == 0,
                        line: i.line as usize,
                    };
                    let reg = if f32s { e } else { e / 2 };
                    if reg >= dst.len() {
                        continue;
                    }
                    let shift = if f32s { 0 } else { 16 * (e % 2) };
                    if store {
                        let v = read(&threads[j], w, dst[reg], Ty::B32) >> shift;
                        w.store(
                            &mut threads[j],
                            mem,
                            a,
                            v & if f32s { 0xFFFF_FFFF } else { 0xFFFF },
                        );
                    } else {
                        let v = w.load(&mut threads[j], mem, a);
                        let old = if shift == 0 {
                            0
                        } else {
                            read(&threads[j], w, dst[reg], Ty::B32)
                        };
                        write(&mut threads[j], dst[reg], old | (v << shift));
                    }
                }
            }
        }
        _ => {
            let bf = i.has("bf16");
            let mut a = [[0f32; 16]; 16];
            let mut b = [[0f32; 16]; 16];
            let mut c = [[0f32; 16]; 16];
            for &j in group {
                let l = j - lo;
                let t = &threads[j];
                let ar: Vec<u64> = regs(&o[1]).iter().map(|x| read(t, w, x, Ty::B32)).collect();
                let br: Vec<u64> = regs(&o[2]).iter().map(|x| read(t, w, x, Ty::B32)).collect();
                let cr: Vec<u64> = regs(&o[3]).iter().map(|x| read(t, w, x, Ty::B32)).collect();
                for e in 0..8 {
                    let idx = 8 * l + e;
                    let (r, col) = (idx / 16, idx % 16);
                    a[r][col] = half(ar.get(e / 2).copied().unwrap_or(0), (e % 2) as u32, bf);
                    b[r][col] = half(br.get(e / 2).copied().unwrap_or(0), (e % 2) as u32, bf);
                    c[r][col] = f32::from_bits(cr.get(e).copied().unwrap_or(0) as u32);
                }
            }
            for &j in group {
                let l = j - lo;
                for (e, d) in regs(&o[0]).iter().enumerate().take(8) {
                    let idx = 8 * l + e;
                    let (r, col) = (idx / 16, idx % 16);
                    let products: f64 = (0..16)
                        .map(|k| f64::from(a[r][k]) * f64::from(b[k][col]))
                        .sum();
                    let sum = (f64::from(c[r][col]) + products) as f32;
                    write(&mut threads[j], d, u64::from(sum.to_bits()));
                }
            }
        }
    }
}

/// Completes every `wgmma.mma_async` whose warpgroup (four warps, 128
/// threads) has all arrived at it; true where one did.
pub fn resolve_warpgroups(
    kernel: &Kernel,
    threads: &mut [ThreadState],
    w: &mut World,
    mem: &mut Cluster<'_>,
) -> bool {
    let mut any = false;
    for lo in (0..threads.len()).step_by(128) {
        let hi = (lo + 128).min(threads.len());
        let pc = threads[lo].pc;
        let at_wgmma = |t: &ThreadState| {
            matches!(t.stop, Some(Stop::Warp { .. }))
                && t.pc == pc
                && kernel.body.get(t.pc).is_some_and(|i| i.op == Op::Wgmma)
        };
        if hi - lo < 128 || !threads[lo..hi].iter().all(at_wgmma) {
            continue;
        }
        let i = &kernel.body[pc];
        if i.has("wait_group") {
            let keep = i
                .operands
                .first()
                .map_or(0, |x| read(&threads[lo], w, x, Ty::U32) as usize);
            retire(&mut threads[lo], keep, w, mem);
        } else {
            wgmma(i, &mut threads[lo..hi], w, mem);
        }
        // The tensor cores read for the whole warpgroup (the reads are kept
        // as its first thread's, at the product and again at the wait that
        // retires it): any of its threads that releases after this (an
        // mbarrier arrival handing the stage back) releases them too.
        let first = threads[lo].index;
        let released = threads[lo].released + 1;
        threads[lo].released = released;
        for t in &mut threads[lo + 1..hi] {
            let knows = std::sync::Arc::make_mut(&mut t.knows);
            let r = knows.threads.entry(first).or_insert(0);
            *r = (*r).max(released);
        }
        for t in &mut threads[lo..hi] {
            t.pc += 1;
            t.stop = None;
        }
        any = true;
    }
    any
}

/// Where element (`i`, `k`) of a wgmma operand lies in shared memory, from
/// its descriptor: `i` is the row of A or the column of B, `mn_major` says
/// `i` runs along the 128-byte rows (B with `imm-trans-b` = 1).
fn wgmma_address(desc: u64, i: u64, k: u64, eb: u64, mn_major: bool) -> Option<u64> {
    let start = (desc & 0x3FFF) << 4;
    let lbo = ((desc >> 16) & 0x3FFF) << 4;
    let sbo = ((desc >> 32) & 0x3FFF) << 4;
    let width: u64 = match desc >> 62 {
        1 => 128,
        2 => 64,
        3 => 32,
        _ => return None,
    };
    let per_row = width / eb;
    let l = if mn_major {
        start + (i / per_row) * lbo + (k / 8) * sbo + (k % 8) * width + (i % per_row) * eb
    } else {
        start + (i / 8) * sbo + (i % 8) * width + k * eb
    };
    Some(crate::exec::asynchronous::swizzled(l, width as u32))
}

/// The element types a `wgmma` reads: 16-bit ones take k = 16 a product
/// and may be transposed; FP8 ones take k = 32 and must be K-major.
#[derive(Clone, Copy)]
enum WgmmaInput {
    Bf16,
    F16,
    E4m3,
    E5m2,
}

impl WgmmaInput {
    fn of(i: &Inst) -> Self {
        if i.has("e4m3") {
            WgmmaInput::E4m3
        } else if i.has("e5m2") {
            WgmmaInput::E5m2
        } else if i.has("bf16") {
            WgmmaInput::Bf16
        } else {
            WgmmaInput::F16
        }
    }

    fn bytes(self) -> u64 {
        match self {
            WgmmaInput::Bf16 | WgmmaInput::F16 => 2,
            WgmmaInput::E4m3 | WgmmaInput::E5m2 => 1,
        }
    }

    /// The value of the element whose bits are the low `bytes()` of `v`.
    fn value(self, v: u64) -> f32 {
        match self {
            WgmmaInput::Bf16 => half(v, 0, true),
            WgmmaInput::F16 => half(v, 0, false),
            WgmmaInput::E4m3 => float8::F8E4M3::from_bits(v as u8).to_f32(),
            WgmmaInput::E5m2 => float8::F8E5M2::from_bits(v as u8).to_f32(),
        }
    }
}

/// A taken from the warpgroup's registers: four 32-bit registers a thread,
/// in mma.sync's A-fragment layout for each warp's band of 16 rows. Lane `l`
/// of warp `w` holds rows 16w + l/4 (registers 0 and 2) and 16w + l/4 + 8
/// (1 and 3); registers 0 and 1 hold the first half of k, 2 and 3 the
/// second, each its `4 / bytes` neighbouring values from k = (4 / bytes)(l % 4).
fn register_operand(
    regs_op: &Operand,
    group: &[ThreadState],
    w: &World,
    input: WgmmaInput,
    a: &mut [Vec<f32>],
    scale: f32,
) {
    let regs_of = regs(regs_op);
    let per_reg = (4 / input.bytes()) as usize;
    let k = a.first().map_or(0, Vec::len);
    for (idx, t) in group.iter().enumerate() {
        let (warp, lane) = (idx / 32, idx % 32);
        for (j, r) in regs_of.iter().enumerate().take(4) {
            let bits = read(t, w, r, Ty::B32);
            let row = 16 * warp + lane / 4 + 8 * (j % 2);
            for e in 0..per_reg {
                let col = (j / 2) * (k / 2) + per_reg * (lane % 4) + e;
                let byte = e as u64 * input.bytes() * 8;
                if let Some(x) = a.get_mut(row).and_then(|r| r.get_mut(col)) {
                    *x = input.value(bits >> byte) * scale;
                }
            }
        }
    }
}

/// `wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}.{bf16,f16} d, a-desc,
/// b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b`, and
/// `….m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2} d, a-desc, b-desc, scale-d,
/// imm-scale-a, imm-scale-b` (FP8 has no transposes: both operands K-major),
/// b from shared memory, a from shared memory or (`{a0, a1, a2, a3}`, then
/// no imm-trans-a) from registers; the accumulators as mma.sync's, a
/// 16-row band a warp. Products of FP8 (or 16-bit) inputs are exact in f64.
fn wgmma(i: &Inst, group: &mut [ThreadState], w: &mut World, mem: &mut Cluster<'_>) {
    let o = &i.operands;
    let (n, k): (u64, usize) = i
        .mods
        .iter()
        .find_map(|m| {
            let (n, k) = m.strip_prefix("m64n")?.split_once('k')?;
            Some((n.parse().ok()?, k.parse().ok()?))
        })
        .unwrap_or((8, 16));
    let input = WgmmaInput::of(i);
    // A from registers (`{a0, a1, a2, a3}`) has no descriptor and no
    // transpose operand: its imm-trans-b comes one place earlier.
    let a_in_registers = matches!(o[1], Operand::Vector(_));
    let first = &group[0];
    let a_desc = if a_in_registers {
        0
    } else {
        read(first, w, &o[1], Ty::B64)
    };
    let b_desc = read(first, w, &o[2], Ty::B64);
    let accumulate = read(first, w, &o[3], Ty::Pred) != 0;
    let imm = |k: usize| {
        o.get(k)
            .map_or(1, |x| read(first, w, x, Ty::S32) as u32 as i32)
    };
    let (scale_a, scale_b) = (imm(4), imm(5));
    // FP8's instruction has no transpose operands: absent means K-major.
    let trans = |k: usize| o.get(k).is_some() && imm(k) == 1;
    let (trans_a, trans_b) = if a_in_registers {
        (false, trans(6))
    } else {
        (trans(6), trans(7))
    };
    let mut a = vec![vec![0f32; k]; 64];
    if a_in_registers {
        register_operand(&o[1], group, w, input, &mut a, scale_a as f32);
    }
    let line = i.line as usize;
    let eb = input.bytes();
    let mut reads = Vec::new();
    let mut load = |desc: u64, row: u64, k: u64, mn: bool, t: &mut ThreadState| -> f32 {
        let Some(off) = wgmma_address(desc, row, k, eb, mn) else {
            return 0.0;
        };
        let a = Access {
            addr: crate::memory::address::SHARED + off,
            width: eb as u32,
            write: false,
            atomic: false,
            strength: Strength::Plain,
            first: false,
            line,
        };
        reads.push(a.addr);
        check_async_read(w, t, &mem.mems[mem.own], off as usize, eb as usize, line);
        input.value(w.load(t, mem, a))
    };
    let mut b = vec![vec![0f32; k]; n as usize];
    {
        let t = &mut group[0];
        if !a_in_registers {
            for (m, row) in a.iter_mut().enumerate() {
                for (k, x) in row.iter_mut().enumerate() {
                    *x = load(a_desc, m as u64, k as u64, trans_a, t) * scale_a as f32;
                }
            }
        }
        for (col, column) in b.iter_mut().enumerate() {
            for (k, x) in column.iter_mut().enumerate() {
                *x = load(b_desc, col as u64, k as u64, trans_b, t) * scale_b as f32;
            }
        }
    }
    group[0]
        .wgmma_reads
        .open
        .extend(runs(reads, eb as u32, line));
    let dst = regs(&o[0]);
    for (idx, t) in group.iter_mut().enumerate() {
        let (warp, lane) = ((idx / 32) as u64, (idx % 32) as u64);
        for (r, d) in dst.iter().enumerate() {
            let r = r as u64;
            let (j, c) = (r / 4, r % 4);
            let row = 16 * warp + lane / 4 + 8 * (c / 2);
            let col = 8 * j + 2 * (lane % 4) + c % 2;
            if row >= 64 || col >= n {
                continue;
            }
            let before = if accumulate {
                f32::from_bits(read(t, w, d, Ty::B32) as u32)
            } else {
                0.0
            };
            let (x, y) = (&a[row as usize], &b[col as usize]);
            let products: f64 = x
                .iter()
                .zip(y)
                .map(|(p, q)| f64::from(*p) * f64::from(*q))
                .sum();
            let sum = (f64::from(before) + products) as f32;
            write(t, d, u64::from(sum.to_bits()));
        }
    }
}

/// A wgmma's reads (addresses of `width`-byte elements) as runs of
/// contiguous bytes, none over 8 bytes or across an 8-byte boundary: what
/// `retire` reads again, with an eighth of the accesses.
fn runs(mut addrs: Vec<u64>, width: u32, line: usize) -> Vec<(u64, u32, usize)> {
    addrs.sort_unstable();
    addrs.dedup();
    let mut out: Vec<(u64, u32, usize)> = Vec::new();
    for a in addrs {
        match out.last_mut() {
            Some((start, bytes, _))
                if *start + u64::from(*bytes) == a
                    && (a + u64::from(width) - 1) / 8 == *start / 8 =>
            {
                *bytes += width;
            }
            _ => out.push((a, width, line)),
        }
    }
    out
}

/// `wgmma.commit_group`: the reads issued since the last commit become a
/// group (only the warpgroup's first thread holds any).
pub fn commit(t: &mut ThreadState) {
    if !t.wgmma_reads.open.is_empty() {
        let group = std::mem::take(&mut t.wgmma_reads.open);
        t.wgmma_reads.committed.push_back(group);
    }
}

/// `wgmma.wait_group keep`, for the warpgroup whose first thread is `t`:
/// every group but the `keep` newest is done, and its operands' reads
/// happen again here, as `t`'s. The tensor cores may read an operand at
/// any time until this wait, so a stage handed back to a producer before
/// it (an mbarrier arrival between the commit and the wait) is overwritten
/// while still being read: the producer's copy races with these reads,
/// which the checker reports.
fn retire(t: &mut ThreadState, keep: usize, w: &mut World, mem: &mut Cluster<'_>) {
    while t.wgmma_reads.committed.len() > keep {
        let Some(group) = t.wgmma_reads.committed.pop_front() else {
            break;
        };
        for (addr, width, line) in group {
            w.tensor_core_lines.insert(line);
            let a = Access {
                addr,
                width,
                write: false,
                atomic: false,
                strength: Strength::Plain,
                first: false,
                line,
            };
            w.load(t, mem, a);
        }
    }
}

/// Checks a read of `width` bytes at shared offset `off` of `mem` by the
/// async proxy (a wgmma issued by `t` at `.loc` line `line`): a word some
/// thread wrote through the generic proxy, with no proxy fence by it since,
/// is reported as a race with that write.
fn check_async_read(
    w: &mut World,
    t: &ThreadState,
    mem: &BlockMemory,
    off: usize,
    width: usize,
    line: usize,
) {
    let Some(proxy) = mem.proxy.as_ref() else {
        return;
    };
    let Some((writer, write_line)) =
        (off / 4..=(off + width - 1) / 4).find_map(|w| proxy.unfenced(w))
    else {
        return;
    };
    let at = w.lines.line(line);
    if w.hazards.known(Kind::Race, at) {
        return;
    }
    let message = format!(
        "the wgmma that {} issues here reads {} (shared memory) through the async proxy, and \
         {} wrote it at line {} through the generic proxy (an ordinary store, or a cp.async \
         landing) with no fence.proxy.async after it: the PTX ISA orders the two only through \
         that fence, so the tensor cores may read what the tile held before. Put \
         fence.proxy.async.shared::cta after the writes, before the barrier that hands the \
         tile to the warpgroup",
        describe(&t.thread),
        shared_name(mem, off as u64, width),
        w.thread_name(writer),
        w.lines.line(write_line),
    );
    w.hazards.add(Kind::Race, line, at, message);
}
