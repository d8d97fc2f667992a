//! libFuzzer entry for the `sim` target of `puzzle-fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| puzzle_fuzz::sim(data));
