//! What the repository generates from its data, and the rule scaffold: shared by
//! `cargo dev` (`examples/dev.rs`, which includes this file by path) and the freshness
//! test (`docs.rs`).
//!
//! - `docs/rules/`: a page per built-in rule (`report::rule_page`), the index
//!   (`README.md`) and the facts a rule can read (`facts.md`, from `facts::FACTS`).
//! - `new_rule`: a rule file to fill in, under `rules/<area>/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use amlint::registry;
use amlint::report::rule_page::{self, SourceLink};

/// How to regenerate, as the generated files and the freshness test say it.
pub const REGENERATE: &str = "cargo dev generate-all";

/// Every file of `docs/rules/`, by name.
pub fn rule_docs() -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut index = format!(
        "# Rules\n\nGenerated from `rules/` by `{REGENERATE}`; do not edit.\n\n\
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
    let mut out = format!(
        "# Facts\n\nGenerated from `src/facts/table.rs` by `{REGENERATE}`; do not edit.\n\n\
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

/// How `dir` differs from `expected`: one line per file that differs, is missing, or
/// documents no rule. Empty when fresh.
pub fn stale(dir: &Path, expected: &BTreeMap<String, String>) -> Vec<String> {
    let mut stale = Vec::new();
    for (name, text) in expected {
        match std::fs::read_to_string(dir.join(name)) {
            Ok(on_disk) if &on_disk == text => {}
            Ok(_) => stale.push(format!("{name} differs")),
            Err(_) => stale.push(format!("{name} is missing")),
        }
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if !expected.contains_key(&name) {
                stale.push(format!("{name} documents no rule"));
            }
        }
    }
    stale.sort();
    stale
}

/// Makes `dir` hold exactly `expected`: writes what differs, removes what documents no
/// rule. Returns the names written or removed.
pub fn write(dir: &Path, expected: &BTreeMap<String, String>) -> std::io::Result<Vec<String>> {
    std::fs::create_dir_all(dir)?;
    let mut changed = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().to_string();
        if !expected.contains_key(&name) {
            std::fs::remove_file(entry.path())?;
            changed.push(name);
        }
    }
    for (name, text) in expected {
        if std::fs::read_to_string(dir.join(name)).ok().as_ref() != Some(text) {
            std::fs::write(dir.join(name), text)?;
            changed.push(name.clone());
        }
    }
    Ok(changed)
}

/// What `new_rule` is asked for.
pub struct NewRule<'a> {
    /// `AML` and three digits, not taken.
    pub code: &'a str,
    /// kebab-case, not taken.
    pub name: &'a str,
    /// An existing directory under `rules/` (`cost`, `dataflow`, `schema`, ...).
    pub area: &'a str,
    /// A rule whose check is written in Rust (`native: true`) rather than a condition.
    pub native: bool,
}

/// Writes `rules/<area>/<code>-<name>.yaml` under `root` (never over an existing file):
/// the rule's metadata with every field to fill in named, and, for a declarative rule, a
/// condition and report to replace. Returns its path.
pub fn new_rule(root: &Path, rule: &NewRule) -> Result<PathBuf, String> {
    let code_ok = rule.code.len() == 6
        && rule.code.starts_with("AML")
        && rule.code[3..].bytes().all(|b| b.is_ascii_digit());
    if !code_ok {
        return Err(format!(
            "`{}`: a built-in rule code is `AML` and three digits",
            rule.code
        ));
    }
    let name_ok = !rule.name.is_empty()
        && rule
            .name
            .split('-')
            .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
    if !name_ok {
        return Err(format!(
            "`{}`: a rule name is kebab-case (lowercase words joined by `-`)",
            rule.name
        ));
    }
    let rules = registry::builtin();
    if let Some(taken) = rules.get(rule.code) {
        return Err(format!(
            "{} is taken by `{}` ({})",
            rule.code, taken.name, taken.source
        ));
    }
    if let Some(taken) = rules.find(rule.name) {
        return Err(format!("the name `{}` is taken by {}", rule.name, taken.code));
    }
    let areas = root.join("rules");
    let mut known: Vec<String> = std::fs::read_dir(&areas)
        .map_err(|e| format!("{}: {e}", areas.display()))?
        .flatten()
        .filter(|e| e.path().is_dir() && e.file_name() != "data")
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    known.sort();
    if !known.iter().any(|a| a == rule.area) {
        return Err(format!(
            "`{}` is not an area of rules/; one of: {}",
            rule.area,
            known.join(", ")
        ));
    }
    let path = areas
        .join(rule.area)
        .join(format!("{}-{}.yaml", rule.code, rule.name));
    let body = if rule.native {
        "native: true\n".to_string()
    } else {
        "# The condition (rules/rule.schema.json; the facts it can read: docs/rules/facts.md).\n\
         kinds: [amlCompute]\n\
         when:\n  field: min_instances\n  greater: 0\n\
         report:\n  at: min_instances\n  \
         message: \"<what is wrong here, with the value: `{value}`>\"\n  \
         help: \"<what to do instead>\"\n"
            .to_string()
    };
    let text = format!(
        "# yaml-language-server: $schema=../rule.schema.json\n\
         code: {code}\n\
         name: {name}\n\
         severity: error\n\
         summary: \"<one line, the finding's title>\"\n\
         {body}\
         what: |\n  <What the rule reports, and exactly where (the key or value).>\n\
         why: |\n  <Why it is a problem: what `az ml` or the service does with it. Name the source.>\n\
         example:\n  \
         path: compute.yml\n  \
         bad: |\n    $schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\n    \
         name: cpu-cluster\n    type: amlcompute\n    size: Standard_DS3_v2\n    min_instances: 1\n  \
         good: |\n    $schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\n    \
         name: cpu-cluster\n    type: amlcompute\n    size: Standard_DS3_v2\n    min_instances: 0\n\
         references:\n  - https://learn.microsoft.com/azure/machine-learning/\n",
        code = rule.code,
        name = rule.name,
    );
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    std::io::Write::write_all(&mut file, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}
