//! libFuzzer entry for the `expr` target of `puzzle-fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| puzzle_fuzz::expr(data));
