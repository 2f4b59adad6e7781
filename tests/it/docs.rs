//! `docs/rules/` is generated from `rules/`; this test fails when it is stale.
//! Regenerate with `AMLINT_UPDATE_DOCS=1 cargo test --test it docs::`.

use std::collections::BTreeMap;
use std::path::Path;

use amlint::registry;

fn expected_files() -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut index = String::from(
        "# Rules\n\nGenerated from `rules/` by `AMLINT_UPDATE_DOCS=1 cargo test --test it docs::`; do not edit.\n\n\
         | Code | Name | Default severity | Summary |\n|---|---|---|---|\n",
    );
    for rule in registry::builtin().rules() {
        index.push_str(&format!(
            "| [`{}`]({}) | `{}` | {} | {} |\n",
            rule.code,
            rule.doc_file_name(),
            rule.name,
            rule.severity,
            rule.summary.trim().replace('|', "\\|")
        ));
        files.insert(rule.doc_file_name(), rule.markdown());
    }
    files.insert("README.md".to_string(), index);
    files
}

#[test]
fn rule_docs_are_fresh() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules");
    let expected = expected_files();
    if std::env::var_os("AMLINT_UPDATE_DOCS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            if !expected.contains_key(&*entry.file_name().to_string_lossy()) {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
        for (name, text) in &expected {
            std::fs::write(dir.join(name), text).unwrap();
        }
        return;
    }
    let mut stale = Vec::new();
    for (name, text) in &expected {
        match std::fs::read_to_string(dir.join(name)) {
            Ok(on_disk) if &on_disk == text => {}
            Ok(_) => stale.push(format!("{name} differs")),
            Err(_) => stale.push(format!("{name} is missing")),
        }
    }
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if !expected.contains_key(&name) {
                stale.push(format!("{name} documents no rule"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "docs/rules is stale ({}); run `AMLINT_UPDATE_DOCS=1 cargo test --test it docs::`",
        stale.join(", ")
    );
}
