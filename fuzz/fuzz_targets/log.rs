//! One step of a game's log: its key, the index of its first event (8 bytes,
//! little-endian), then the value.

#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| sandglass_fuzz::log(bytes));
