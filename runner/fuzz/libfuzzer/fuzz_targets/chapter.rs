//! libFuzzer entry for the `chapter` target of `puzzle-fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| puzzle_fuzz::chapter(data));
