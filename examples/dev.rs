//! The developer commands, as ruff's `cargo dev` (alias in `.cargo/config.toml`):
//!
//! ```text
//! cargo dev generate-all            # write docs/rules/ from rules/ and facts::FACTS
//! cargo dev generate-all --check    # exit 1 if docs/rules/ is stale (what the test suite checks)
//! cargo dev new-rule AML811 output-input-type --area dataflow [--native]
//! ```
// A maintainer tool reading the repository's own files, not a path a checked file names.
#![allow(clippy::disallowed_methods)]

#[path = "../tests/it/generate.rs"]
mod generate;

use std::path::Path;
use std::process::ExitCode;

const USAGE: &str = "usage: cargo dev generate-all [--check]\n       cargo dev new-rule <AMLnnn> <kebab-name> --area <area> [--native]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["generate-all"] => {
            let dir = root.join("docs/rules");
            match generate::write(&dir, &generate::rule_docs()) {
                Ok(changed) if changed.is_empty() => println!("docs/rules is up to date"),
                Ok(changed) => {
                    for name in changed {
                        println!("docs/rules/{name}");
                    }
                }
                Err(e) => {
                    eprintln!("{}: {e}", dir.display());
                    return ExitCode::from(2);
                }
            }
            ExitCode::SUCCESS
        }
        ["generate-all", "--check"] => {
            let stale = generate::stale(&root.join("docs/rules"), &generate::rule_docs());
            if stale.is_empty() {
                return ExitCode::SUCCESS;
            }
            for s in stale {
                eprintln!("docs/rules/{s}");
            }
            eprintln!("docs/rules is stale: run `{}`", generate::REGENERATE);
            ExitCode::from(1)
        }
        ["new-rule", code, name, rest @ ..] => {
            let (area, native) = match rest {
                ["--area", area] => (*area, false),
                ["--area", area, "--native"] | ["--native", "--area", area] => (*area, true),
                _ => {
                    eprintln!("{USAGE}");
                    return ExitCode::from(2);
                }
            };
            let rule = generate::NewRule {
                code,
                name,
                area,
                native,
            };
            match generate::new_rule(root, &rule) {
                Ok(path) => {
                    println!("{}", path.display());
                    println!(
                        "Next: fill in every <...> field and the example; {}; add a fixture with `# expect: {code}` under fixtures/; then `{}` and `cargo test --test it rule_examples:: fixtures:: docs::`.",
                        if native {
                            format!(
                                "emit the finding from a check in src/checks/ with `Diagnostic::new(codes::{code}, span, message)`"
                            )
                        } else {
                            "replace the condition and report (rules/rule.schema.json)".to_string()
                        },
                        generate::REGENERATE
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("{e}");
                    ExitCode::from(2)
                }
            }
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
