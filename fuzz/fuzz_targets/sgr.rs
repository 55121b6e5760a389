//! A replay file's bytes, read and then verified as `sandglass verify` does.

#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| sandglass_fuzz::sgr(bytes));
