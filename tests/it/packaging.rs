//! The install channels, proved as far as they can be without publishing
//! (docs/install.md): the crate's package contents, actionlint on the workflows, the VS
//! Code extension's `.vsix` (`scripts/vscode-package.sh`) and the `amlint-system`
//! pre-commit hook under the real `pre-commit`. The PyPI wheel is proved by
//! `scripts/wheel-smoke.sh`, which `.ci/run` runs after the tests, not from here: maturin
//! builds with `cargo rustc`, whose dependency features leave out those the
//! dev-dependencies turn on, so it compiles amlint again (about a minute) and would replace
//! `target/debug/amlint` under the tests that are running it.
//!
//! The tools come from `$AMLINT_TOOLS` (a venv, default `~/.cache/amlint-tools`, filled by
//! `scripts/ci-tools.sh`, which `.ci/run` calls) or PATH. Where one is missing the test says
//! so on stderr and passes without proving anything; under CI (`CI` set) a missing tool
//! fails the test instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A tool from `$AMLINT_TOOLS/bin` or PATH; `None` (with the reason on stderr) when absent
/// outside CI.
fn tool(name: &str, test: &str) -> Option<PathBuf> {
    let tools = std::env::var_os("AMLINT_TOOLS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/amlint-tools")));
    if let Some(found) = tools.map(|t| t.join("bin").join(name)).filter(|p| p.is_file()) {
        return Some(found);
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if on_path.is_none() {
        let why = format!(
            "{test}: `{name}` not found in $AMLINT_TOOLS/bin nor on PATH (scripts/ci-tools.sh installs it)"
        );
        assert!(
            std::env::var_os("CI").is_none(),
            "{why}; CI must prove this channel"
        );
        eprintln!("SKIPPED {why}");
    }
    on_path
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `cargo package`: the crate holds what its build reads (build.rs reads rules/ and
/// schemas/; the sources' include_str!/include_bytes! name files under src/) and none of
/// the tests, fixtures, fuzz corpora, benchmarks, editor client, docs or scripts.
#[test]
fn crate_package_holds_what_the_build_needs_and_nothing_else() {
    let out = Command::new(env!("CARGO"))
        .args(["package", "--list", "--locked", "--allow-dirty", "--offline"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let list = String::from_utf8(out.stdout).unwrap();
    let files: Vec<&str> = list.lines().collect();
    for needed in [
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
        "README.md",
        "LICENSE",
        "THIRD-PARTY-NOTICES.md",
        "src/main.rs",
        "src/lib.rs",
        "schemas/kinds.yaml",
    ] {
        assert!(files.contains(&needed), "the crate lacks {needed}");
    }
    // Every rule and schema file.
    for dir in ["rules", "schemas"] {
        for entry in walk(&repo().join(dir)) {
            let rel = entry.strip_prefix(repo()).unwrap().to_str().unwrap().to_string();
            assert!(files.contains(&rel.as_str()), "the crate lacks {rel}");
        }
    }
    // Every file the sources embed.
    for source in walk(&repo().join("src")) {
        let Ok(code) = std::fs::read_to_string(&source) else {
            continue;
        };
        for macro_ in ["include_str!(\"", "include_bytes!(\""] {
            for part in code.split(macro_).skip(1) {
                let name = part.split('"').next().unwrap();
                let path = amlint::config::normalize(&source.parent().unwrap().join(name));
                let rel = path.strip_prefix(repo()).unwrap().to_str().unwrap().to_string();
                assert!(
                    files.contains(&rel.as_str()),
                    "{} embeds {rel}, which the crate lacks",
                    source.display()
                );
            }
        }
    }
    for file in &files {
        let top = file.split('/').next().unwrap();
        assert!(
            ![
                "tests", "fixtures", "fuzz", "bench", "editors", "docs", "scripts", "python", "examples",
                ".github", "target",
            ]
            .contains(&top),
            "the crate should not hold {file}"
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// actionlint passes on every workflow (and on action.yml, through the `uses: ./` of
/// ci.yml), and fails on a workflow that gives the action an input it does not have.
#[test]
fn workflows_pass_actionlint() {
    let Some(actionlint) = tool("actionlint", "actionlint") else {
        return;
    };
    let out = Command::new(&actionlint)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let workflows = walk(&repo().join(".github/workflows"));
    assert!(workflows.len() >= 2, "{workflows:?}");

    // The same check fails on a wrong input: actionlint reads action.yml.
    let scratch = tempfile::tempdir().unwrap();
    let ci = std::fs::read_to_string(repo().join(".github/workflows/ci.yml")).unwrap();
    assert!(ci.contains("          version: source\n"));
    std::fs::create_dir_all(scratch.path().join(".github/workflows")).unwrap();
    std::fs::create_dir_all(scratch.path().join(".git")).unwrap();
    std::fs::write(
        scratch.path().join(".github/workflows/ci.yml"),
        ci.replace("          version: source\n", "          versoin: source\n"),
    )
    .unwrap();
    std::fs::copy(repo().join("action.yml"), scratch.path().join("action.yml")).unwrap();
    let out = Command::new(&actionlint)
        .current_dir(scratch.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out).contains("input \"versoin\" is not defined"),
        "{}",
        text(&out)
    );
}

/// `vsce package` succeeds on a bundled extension of 7 files; amlint.path is machine-scoped.
#[test]
fn vscode_extension_packages() {
    if tool("node", "vscode").is_none() || tool("npm", "vscode").is_none() {
        return;
    }
    let out = Command::new("bash")
        .arg(repo().join("scripts/vscode-package.sh"))
        .output()
        .unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let line = said
        .lines()
        .find(|l| l.starts_with("vscode-package: amlint.vsix"))
        .unwrap_or_else(|| panic!("{said}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let bytes: u64 = words[2].parse().unwrap();
    let files: u64 = words[4].parse().unwrap();
    assert_eq!(files, 7, "{line}");
    assert!(bytes < 200_000, "{line}");
    eprintln!("{line}");
}

/// The `amlint-system` hook under the real pre-commit (`pre-commit run` with a
/// configuration naming this repository, offline: the hook runs the amlint of this test build
/// on PATH): scripts/precommit-try-repo.sh's five checks. The hook definition comes from the committed HEAD.
#[test]
fn precommit_system_hook_with_real_pre_commit() {
    let Some(pre_commit) = tool("pre-commit", "pre-commit") else {
        return;
    };
    if !repo().join(".git").exists() {
        eprintln!("SKIPPED pre-commit: not a git checkout");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("amlint");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg(repo().join("scripts/precommit-try-repo.sh"))
        .env("PRE_COMMIT", &pre_commit)
        .env("HOOK", "amlint-system")
        .env("PRE_COMMIT_HOME", home.path())
        .env("PATH", path)
        .output()
        .unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("ok 5:") && said.contains("all checks passed (hook amlint-system"),
        "{said}"
    );
}
