//! A stored snapshot: its event index (8 bytes, little-endian), a byte choosing the game's
//! ruleset, then the value; played on when it decodes.

#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| sandglass_fuzz::snapshot(bytes));
