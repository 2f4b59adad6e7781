//! Data files compiled into the binary by `build.rs`: rule files (`rules/**/*.yaml`),
//! reference tables (`rules/data/*.yaml`) and schemas (`schemas/**`). The YAML is
//! converted to JSON at build time (it parses several times faster; `tests/it/embedded.rs`
//! proves each equal to its source read by the loader); the kind schemas are preprocessed
//! and bundled (`KIND_SCHEMAS`) with the definitions they share (`SHARED_SCHEMAS`).

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// A data file under `schemas/` by its relative path (`kinds.yaml`); the kind schemas are
/// in `KIND_SCHEMAS`, preprocessed and bundled by `build.rs`.
pub fn schema_file(name: &str) -> Option<&'static str> {
    SCHEMA_FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// A file under `rules/data/` by its relative path (`vm-sizes.yaml`).
pub fn data_file(name: &str) -> Option<&'static str> {
    DATA_FILES.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}
