//! libFuzzer entry for the `ptx_parse` target of `puzzle-fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| puzzle_fuzz::ptx_parse(data));
