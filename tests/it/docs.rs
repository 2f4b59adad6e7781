//! `docs/rules/` is generated from `rules/`; this test fails when it is stale.
//! Regenerate with `AMLINT_UPDATE_DOCS=1 cargo test --test it docs::`.

use std::collections::BTreeMap;
use std::path::Path;

use amlint::registry;
use amlint::report::rule_page::{self, SourceLink};

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
        files.insert(
            rule.doc_file_name(),
            rule_page::markdown(rule, SourceLink::Repository),
        );
    }
    index.push_str("\nWhat declarative rules can read: [facts](facts.md).\n");
    files.insert("README.md".to_string(), index);
    files.insert("facts.md".to_string(), facts_page());
    files
}

/// `docs/rules/facts.md`, from the one table of facts (`amlint::facts::FACTS`).
fn facts_page() -> String {
    use amlint::facts::{FACTS, Fields};
    let mut out = String::from(
        "# Facts\n\nGenerated from `src/facts/table.rs` by `AMLINT_UPDATE_DOCS=1 cargo test --test it docs::`; do not edit.\n\n\
         What a rule's `when`, `report.at` and messages can read besides the document's own fields \
         (`rules/rule.schema.json`). A fact that cannot be resolved is unknown, and an unknown \
         condition never fires a rule.\n\n| Fact | Fields | What it holds |\n|---|---|---|\n",
    );
    for fact in FACTS {
        let fields = match fact.fields {
            Fields::Whole => "—".to_string(),
            Fields::AnyName => "`<name>`".to_string(),
            Fields::Named { fields, nested } => fields
                .iter()
                .map(|f| match nested.iter().find(|(n, _)| n == f) {
                    Some(_) => format!("`{f}.*`"),
                    None => format!("`{f}`"),
                })
                .collect::<Vec<_>>()
                .join(", "),
        };
        out.push_str(&format!("| `${}` | {fields} | {} |\n", fact.name, fact.summary));
    }
    out.push_str("\n`$vm.*` and `$target.vm.*` fields: ");
    out.push_str(
        &amlint::facts::VM_FIELDS
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    out.push_str(".\n");
    out
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
