//! libFuzzer entry for the `ptx_run` target of `puzzle-fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| puzzle_fuzz::ptx_run(data));
