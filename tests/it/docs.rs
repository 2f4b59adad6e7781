//! `docs/rules/` is generated from `rules/` and `facts::FACTS` (`generate.rs`); this test
//! fails when it is stale. Regenerate with `cargo dev generate-all`.

use std::path::Path;

use crate::generate::{self, NewRule};

#[test]
fn rule_docs_are_fresh() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules");
    let stale = generate::stale(&dir, &generate::rule_docs());
    assert!(
        stale.is_empty(),
        "docs/rules is stale ({}); run `{}`",
        stale.join(", "),
        generate::REGENERATE
    );
}

/// `write` makes a directory hold exactly the expected files, and `stale` then finds
/// nothing; before, it names each difference.
#[test]
fn generate_all_writes_what_the_check_expects() {
    let dir = tempfile::tempdir().unwrap();
    let expected = generate::rule_docs();
    std::fs::write(dir.path().join("AML999-gone.md"), "old").unwrap();
    std::fs::write(dir.path().join("README.md"), "old").unwrap();
    let before = generate::stale(dir.path(), &expected);
    assert!(before.contains(&"AML999-gone.md documents no rule".to_string()));
    assert!(before.contains(&"README.md differs".to_string()));
    assert!(before.contains(&"facts.md is missing".to_string()));
    let written = generate::write(dir.path(), &expected).unwrap();
    assert_eq!(
        written.len(),
        expected.len() + 1,
        "every file, and the removed one"
    );
    assert!(generate::stale(dir.path(), &expected).is_empty());
    assert!(generate::write(dir.path(), &expected).unwrap().is_empty());
}

/// The scaffold is a rule file the registry reads (with the built-in rules beside it),
/// in the area asked for; it is never written over an existing file, and taken codes,
/// names and unknown areas are refused.
#[test]
fn new_rule_scaffolds_a_rule_file_the_registry_reads() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("rules/cost")).unwrap();
    std::fs::create_dir_all(root.path().join("rules/data")).unwrap();
    for native in [false, true] {
        let rule = NewRule {
            code: if native { "AML998" } else { "AML999" },
            name: if native {
                "native-scaffold"
            } else {
                "declarative-scaffold"
            },
            area: "cost",
            native,
        };
        let path = generate::new_rule(root.path(), &rule).unwrap();
        assert_eq!(
            path,
            root.path()
                .join(format!("rules/cost/{}-{}.yaml", rule.code, rule.name))
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = amlint::registry::Registry::from_files([(path.to_str().unwrap(), text.as_str())])
            .unwrap_or_else(|e| panic!("{e:?}"));
        let meta = parsed.get(rule.code).unwrap();
        assert_eq!((meta.name, meta.native), (rule.name, native));
        assert_eq!(meta.declarative.is_some(), !native);
        let again = generate::new_rule(root.path(), &rule).unwrap_err();
        assert!(again.contains("exists"), "{again}");
    }
    let refused = |code: &str, name: &str, area: &str| {
        generate::new_rule(
            root.path(),
            &NewRule {
                code,
                name,
                area,
                native: true,
            },
        )
        .unwrap_err()
    };
    assert!(refused("AML601", "x-y", "cost").contains("taken by `cluster-min-instances-nonzero`"));
    assert!(refused("AML997", "cluster-min-instances-nonzero", "cost").contains("taken by AML601"));
    assert!(refused("AML99", "x-y", "cost").contains("three digits"));
    assert!(refused("AML997", "Not_Kebab", "cost").contains("kebab-case"));
    assert!(refused("AML997", "x-y", "data").contains("one of: cost"));
}
