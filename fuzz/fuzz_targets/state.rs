//! A state's encoding (`State::decode`), played on when it decodes: where the state
//! fuzzing happens, since no mutation gets past a snapshot's checksum and hash.

#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| sandglass_fuzz::state(bytes));
