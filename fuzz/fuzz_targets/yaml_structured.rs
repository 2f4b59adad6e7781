#![no_main]

// The harness is shared with tests/it/fuzz_replay.rs: see amlint::fuzzing::yaml_structured.
libfuzzer_sys::fuzz_target!(|data: &[u8]| amlint::fuzzing::yaml_structured(data));
