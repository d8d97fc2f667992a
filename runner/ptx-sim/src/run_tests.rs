//! The checker end to end, on PTX that NVRTC 12.9 made from the small CUDA
//! kernels beside it in `testdata/` (each `.ptx` from its `.cu`): values
//! come back right, and each hazard is found at its source line.

use crate::hazard::{Kind, SameLines};
use crate::launch::{Buffer, Config, Launch, Param};
use crate::parse::module::Module;

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A buffer of `n` floats with guard bands of 4 floats on each side.
fn buffer(name: &str, values: Option<&[f32]>, n: usize) -> Buffer {
    let band = vec![0xAAu8; 16];
    let data = match values {
        Some(v) => floats(v),
        None => floats(&vec![f32::NAN; n]),
    };
    Buffer {
        name: name.into(),
        bytes: [band.clone(), data, band].concat(),
        lead: 16,
        len: n * 4,
        element_bytes: 4,
        poisoned: values.is_none(),
    }
}

fn run(
    ptx: &str,
    entry: &str,
    grid: u32,
    block: u32,
    buffers: Vec<Buffer>,
    extra: Vec<Param>,
) -> crate::launch::Run {
    let module = Module::parse(ptx).expect("NVRTC's PTX parses");
    let mut args: Vec<Param> = (0..buffers.len()).map(Param::Buffer).collect();
    args.extend(extra);
    let launch = Launch {
        entry: entry.into(),
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        dynamic_shared_bytes: 0,
        args,
        rank: 0,
    };
    crate::run(&module, &[launch], &buffers, &SameLines, &Config::default()).expect("runs")
}

fn out_values(run: &crate::launch::Run, n: usize) -> Vec<f32> {
    run.buffers[0][16..16 + 4 * n]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// (case, PTX, hazards expected as (kind, line))
#[test]
fn shared_memory_race_is_found_and_its_barrier_clears_it() {
    let a: Vec<f32> = (0..8).map(|i| i as f32).collect();
    let cases: [(&str, &str, &[(Kind, usize)]); 2] = [
        (
            "no barrier",
            include_str!("testdata/race.ptx"),
            &[(Kind::Race, 5)],
        ),
        ("barrier", include_str!("testdata/guarded.ptx"), &[]),
    ];
    for (case, ptx, want) in cases {
        let r = run(
            ptx,
            "shift",
            1,
            8,
            vec![buffer("out", None, 8), buffer("a", Some(&a), 8)],
            vec![],
        );
        // The race is reported at whichever of its two lines came second
        // (an uninitialized read may come with it, as the order had it).
        let mut races: Vec<(Kind, usize)> = r
            .findings
            .hazards
            .iter()
            .filter(|h| h.kind == Kind::Race)
            .map(|h| (h.kind, if h.at == 4 { 5 } else { h.at }))
            .collect();
        races.dedup();
        assert_eq!(races, want, "{case}: {:#?}", r.findings.hazards);
        if want.is_empty() {
            assert!(
                r.findings.hazards.is_empty(),
                "{case}: {:#?}",
                r.findings.hazards
            );
            assert_eq!(
                out_values(&r, 8),
                [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0],
                "{case}"
            );
            assert_eq!(
                (r.findings.access.reads.max, r.findings.access.writes.max),
                (1, 1),
                "{case}"
            );
        }
    }
}

#[test]
fn a_warp_sum_by_shuffles_and_a_mask_naming_exited_lanes() {
    let a: Vec<f32> = (0..32).map(|i| i as f32).collect();
    let size = |n: u32| vec![Param::Value(n.to_le_bytes().to_vec())];
    let ptx = include_str!("testdata/shfl.ptx");
    let r = run(
        ptx,
        "warp_sum",
        1,
        32,
        vec![buffer("out", None, 1), buffer("a", Some(&a), 32)],
        size(32),
    );
    assert!(r.findings.hazards.is_empty(), "{:#?}", r.findings.hazards);
    assert_eq!(out_values(&r, 1), [496.0]);
    // Lanes 20.. return before the shuffle its full mask names them in.
    let r = run(
        ptx,
        "warp_sum",
        1,
        32,
        vec![buffer("out", None, 1), buffer("a", Some(&a), 32)],
        size(20),
    );
    let got: Vec<(Kind, usize)> = r.findings.hazards.iter().map(|h| (h.kind, h.at)).collect();
    assert_eq!(got, [(Kind::Deadlock, 5)], "{:#?}", r.findings.hazards);
}

#[test]
fn writes_past_the_end_are_out_of_bounds_and_land_in_the_band() {
    let a: Vec<f32> = (0..8).map(|i| i as f32).collect();
    // Two blocks of 8 over buffers of 6: threads 6.. read and write past the end.
    let r = run(
        include_str!("testdata/oob.ptx"),
        "add_10",
        2,
        4,
        vec![buffer("out", None, 6), buffer("a", Some(&a[..6]), 6)],
        vec![],
    );
    let kinds: Vec<Kind> = r.findings.hazards.iter().map(|h| h.kind).collect();
    assert_eq!(kinds, [Kind::OutOfBounds], "{:#?}", r.findings.hazards);
    assert!(
        r.findings.hazards[0]
            .message
            .contains("outside its 6 elements"),
        "{}",
        r.findings.hazards[0].message
    );
    assert_eq!(&out_values(&r, 6), &[10.0, 11.0, 12.0, 13.0, 14.0, 15.0]);
    assert_ne!(
        &r.buffers[0][16 + 24..16 + 32],
        &[0xAA; 8],
        "the band took the writes"
    );
}

/// `__activemask()` is the lanes that reach it together (lane 3 has
/// returned): a shuffle under that mask is no deadlock, but lane 2's read
/// of lane 3 is a read outside the mask.
#[test]
fn activemask_names_the_lanes_that_reach_it() {
    let a: Vec<f32> = (0..4).map(|i| i as f32).collect();
    let r = run(
        include_str!("testdata/activemask.ptx"),
        "add_10",
        1,
        4,
        vec![buffer("out", None, 4), buffer("a", Some(&a), 4)],
        vec![],
    );
    let got: Vec<(Kind, usize)> = r.findings.hazards.iter().map(|h| (h.kind, h.at)).collect();
    assert_eq!(
        got,
        [(Kind::DivergentSubgroup, 6)],
        "{:#?}",
        r.findings.hazards
    );
    assert_eq!(&out_values(&r, 3), &[10.0, 11.0, 12.0]);
}

/// A local array indexed at run time lives in `.local` memory, and
/// `printf` reads its format and arguments (ints, a negative, a double, a
/// string, a char, a 64-bit value, hex) from global and local memory.
#[test]
fn printf_and_local_arrays() {
    let a = [1.0f32, 2.0, 3.0, 4.0];
    let r = run(
        include_str!("testdata/printf.ptx"),
        "local_sum",
        1,
        4,
        vec![buffer("out", None, 4), buffer("a", Some(&a), 4)],
        vec![Param::Value(4u32.to_le_bytes().to_vec())],
    );
    assert!(r.findings.hazards.is_empty(), "{:#?}", r.findings.hazards);
    assert_eq!(out_values(&r, 4), [11.0; 4]);
    let mut lines: Vec<&str> = r.printed.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "t0|0|10.00|ok|A|0|ff",
            "t1|-1|10.00|ok|B|8589934592|ff",
            "t2|-2|10.00|ok|C|17179869184|ff",
            "t3|-3|10.00|ok|D|25769803776|ff",
        ]
    );
    assert_eq!(r.printed_left_out, 0);
}

/// `red.global.add.v4.f32` (sm_90), which the attention backward's dq uses:
/// an atomic addition an element, every thread's landing. Hand-written PTX,
/// in the form NVRTC gives `atomicAdd(float4*, float4)`.
#[test]
fn vector_atomic_additions_add_every_element() {
    let ptx = "
.version 8.5
.target sm_90a
.address_size 64
.visible .entry red_v4(.param .u64 out)
{
    .reg .b64 %rd<3>;
    .reg .f32 %f<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.f32 %f1, 0f3F800000;
    mov.f32 %f2, 0f40000000;
    mov.f32 %f3, 0f40400000;
    mov.f32 %f4, 0f40800000;
    red.global.add.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};
    ret;
}
";
    let r = run(
        ptx,
        "red_v4",
        1,
        8,
        vec![buffer("out", Some(&[0.5; 4]), 4)],
        vec![],
    );
    assert!(
        r.findings.hazards.is_empty(),
        "atomics never race: {:#?}",
        r.findings.hazards
    );
    assert_eq!(out_values(&r, 4), [8.5, 16.5, 24.5, 32.5]);
}

/// Named barriers with a count (`testdata/named.cu`): two producer warps
/// arrive without waiting and two consumer warps wait, while a fifth warp
/// takes no part. The hand-off is ordered and its values arrive; a count
/// that no phase reaches hangs, and is reported; producers that skip the
/// barrier race with the readers.
#[test]
fn named_barriers_hand_off_between_warps() {
    let a: Vec<f32> = (0..64).map(|i| i as f32).collect();
    // (case, kernel, the hazard wanted and words of its message).
    let cases: [(&str, &str, Option<(Kind, &str)>); 3] = [
        (
            "arrive and sync, 128",
            include_str!("testdata/named.ptx"),
            None,
        ),
        (
            "a count of 192",
            include_str!("testdata/named_hang.ptx"),
            Some((Kind::Deadlock, "named barrier 1 for 192 threads, but")),
        ),
        (
            "no arrival",
            include_str!("testdata/named_race.ptx"),
            Some((Kind::Race, "")),
        ),
    ];
    for (case, ptx, want) in cases {
        let r = run(
            ptx,
            "handoff",
            1,
            160,
            vec![buffer("out", None, 64), buffer("a", Some(&a), 64)],
            vec![],
        );
        match want {
            None => {
                assert!(
                    r.findings.hazards.is_empty(),
                    "{case}: {:#?}",
                    r.findings.hazards
                );
                let doubled: Vec<f32> = a.iter().map(|x| 2.0 * x).collect();
                assert_eq!(out_values(&r, 64), doubled, "{case}");
            }
            Some((kind, words)) => assert!(
                r.findings
                    .hazards
                    .iter()
                    .any(|h| h.kind == kind && h.message.contains(words)),
                "{case}: wanted {kind:?} saying {words:?}, got {:#?}",
                r.findings.hazards
            ),
        }
    }
}
