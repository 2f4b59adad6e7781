//! The cookbook of organisation policies (`examples/policies/`, docs/policies.md): every
//! rule loads as a user rule, and its own bad example fires it while its good one does not,
//! run as a project that names the cookbook in `rules-dirs`.

use std::path::{Path, PathBuf};

use amlint::pipeline::{Options, check_paths};
use amlint::registry::{Example, Registry};

use crate::common::write;

fn cookbook() -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/policies");
    let mut files: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    files.sort();
    files
}

/// The codes reported on `at` (relative to the project) when the example's file holds
/// `text` there, with the whole cookbook as the project's user rules.
fn codes_for(example: &Example, at: &str, text: &str) -> Vec<String> {
    let dir = crate::common::project();
    let d = dir.path();
    for (path, rule) in cookbook() {
        write(
            d,
            &format!("policies/{}", path.file_name().unwrap().to_string_lossy()),
            &rule,
        );
    }
    let config = format!(
        "rules-dirs = [\"policies\"]\n{}",
        example.config.as_deref().unwrap_or("")
    );
    write(d, "amlint.toml", &config);
    for (rel, body) in &example.files {
        write(d, rel, body);
    }
    write(d, at, text);
    let options = Options {
        today: Some("2026-11-22".to_string()),
        ..Options::default()
    };
    let report = check_paths(&[d.to_path_buf()], &options);
    assert!(report.config_errors.is_empty(), "{:?}", report.config_errors);
    let target = d.join(at);
    report
        .files
        .iter()
        .filter(|f| Path::new(&f.source.path) == target)
        .flat_map(|f| f.diagnostics.iter().map(|d| d.code.to_string()))
        .collect()
}

#[test]
fn every_cookbook_rule_loads_and_its_examples_behave() {
    let files = cookbook();
    assert!(files.len() >= 9, "{} cookbook rules", files.len());
    let pairs: Vec<(String, String)> = files
        .iter()
        .map(|(p, t)| (p.display().to_string(), t.clone()))
        .collect();
    let registry = Registry::with_user_rules(&pairs).unwrap_or_else(|errors| {
        panic!(
            "{}",
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    let mut problems = Vec::new();
    for rule in registry.rules().iter().filter(|r| r.code.starts_with("ORG")) {
        let example = rule.example.as_ref().expect("cookbook rules ship examples");
        let bad = codes_for(example, &example.path, &example.bad);
        if !bad.iter().any(|c| c == rule.code) {
            problems.push(format!(
                "{}: the bad example does not fire it (got {bad:?})",
                rule.code
            ));
        }
        let good = codes_for(example, &example.path, &example.good);
        if good.iter().any(|c| c == rule.code) {
            problems.push(format!("{}: the good example fires it", rule.code));
        }
        // No cookbook rule fires on another's good example's file by accident: each good
        // example is clean of every cookbook error but those it is not about.
        let errors: Vec<&String> = good
            .iter()
            .filter(|c| c.starts_with("AML1") || c.starts_with("AML0"))
            .collect();
        if !errors.is_empty() {
            problems.push(format!(
                "{}: the good example is not a valid file ({errors:?})",
                rule.code
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_gpu_rule_reads_the_file_s_folder() {
    let rule = cookbook()
        .into_iter()
        .find(|(p, _)| p.to_string_lossy().contains("ORG009"))
        .unwrap();
    let registry = Registry::with_user_rules(&[(rule.0.display().to_string(), rule.1)]).unwrap();
    let example = registry.get("ORG009").unwrap().example.clone().unwrap();
    assert!(codes_for(&example, "experiments/compute.yml", &example.bad).contains(&"ORG009".to_string()));
    assert!(!codes_for(&example, "teams/vision/compute.yml", &example.bad).contains(&"ORG009".to_string()));
    assert!(!codes_for(&example, "teams/nlp/gpu/compute.yml", &example.bad).contains(&"ORG009".to_string()));
}

/// The cookbook passes `amlint test` as a platform team would run it: the rules in a
/// project's `rules-dirs`, every example checked (docs/policies.md).
#[test]
fn the_cookbook_passes_amlint_test() {
    let dir = crate::common::project();
    let d = dir.path();
    for (path, rule) in cookbook() {
        write(
            d,
            &format!("policies/{}", path.file_name().unwrap().to_string_lossy()),
            &rule,
        );
    }
    write(d, "amlint.toml", "rules-dirs = [\"policies\"]\n");
    let out = crate::common::amlint(d)
        .args(["test", "--user-only"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let examples = 2 * cookbook().len();
    assert!(
        stdout.ends_with(&format!("test result: ok. {examples} passed; 0 failed\n")),
        "{stdout}"
    );
}
