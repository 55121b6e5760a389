//! A game's metadata record: its key (8 bytes), then the value.

#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| sandglass_fuzz::record(bytes));
