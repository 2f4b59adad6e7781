#![no_main]

// The harness is shared with tests/it/fuzz_replay.rs: see tests/it/fuzzing.rs.
#[allow(dead_code)] // each target uses one harness
#[path = "../../tests/it/fuzzing.rs"]
mod fuzzing;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzzing::loader(data));
