//! libFuzzer entry for the `constants` target of `puzzle-fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| puzzle_fuzz::constants(data));
