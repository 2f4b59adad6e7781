//! Helpers the integration-test modules share.

use std::path::Path;

/// `amlint` run in `dir`, with a fixed date and no colour variables from the environment.
pub fn amlint(dir: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("amlint").unwrap();
    cmd.current_dir(dir)
        .env("AMLINT_TODAY", "2026-11-22")
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR");
    cmd
}

/// Writes `text` to `dir/name`, creating the directories on the way.
pub fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
