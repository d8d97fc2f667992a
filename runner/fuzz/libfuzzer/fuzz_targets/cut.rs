//! libFuzzer entry for the `cut` target of `puzzle-fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| puzzle_fuzz::cut(data));
