#![no_main]

// The harness is shared with tests/it/fuzz_replay.rs: see amlint::fuzzing::check.
libfuzzer_sys::fuzz_target!(|data: &[u8]| amlint::fuzzing::check(data));
