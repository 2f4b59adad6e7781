//! `amlint check --fix`, `--unsafe-fixes` and `--diff`, driven by the inputs of
//! `tests/data/fix/`: each file's text after `--fix` and after `--unsafe-fixes` is a
//! snapshot; fixing twice changes nothing; a fixed file has no finding that had a fix
//! and no new finding; CRLF, a byte-order mark, comments and anchors survive; the diff
//! applies with `patch`; standard input, links, files changed meanwhile, conflicts. The
//! corpus test applies every fix to a copy of azureml-examples and compares the trees.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use amlint::diagnostic::Applicability;
use amlint::pipeline::{Options, check_paths};

use super::common::{amlint, project, write};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fix")
}

/// The inputs, by file name.
fn cases() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(data_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        out.insert(name, std::fs::read_to_string(&path).unwrap());
    }
    assert!(out.len() >= 9, "{out:?}");
    out
}

/// A project holding one file.
fn project_with(name: &str, text: &str) -> tempfile::TempDir {
    let dir = project();
    write(dir.path(), name, text);
    dir
}

/// Runs `amlint check --no-config ARGS` in `dir`: exit code, stdout, stderr.
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = amlint(dir)
        .args(["check", "--no-config"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The findings of the file `name` in `dir` (as the library reports them): code,
/// whether it has a fix the mode applies.
fn findings(dir: &Path, name: &str, unsafe_fixes: bool) -> Vec<(String, bool)> {
    let options = Options {
        config: amlint::config::ConfigChoice::Disabled,
        today: Some("2026-11-22".to_string()),
        ..Options::default()
    };
    let report = check_paths(&[dir.join(name)], &options);
    report
        .diagnostics()
        .map(|(_, d)| (d.code.to_string(), d.fix_for(unsafe_fixes).is_some()))
        .collect()
}

/// A project holding `name` with `text`, fixed with `--fix` (and `--unsafe-fixes` when
/// asked): the project, standard output and standard error.
fn fix_in_project(name: &str, text: &str, unsafe_fixes: bool) -> (tempfile::TempDir, String, String) {
    let dir = project_with(name, text);
    let mut args = vec!["--fix", "--format", "concise"];
    if unsafe_fixes {
        args.push("--unsafe-fixes");
    }
    args.push(name);
    let (code, out, err) = run(dir.path(), &args);
    assert!(code == 0 || code == 1, "{name}: {code}\n{out}\n{err}");
    (dir, out, err)
}

fn fix_once(name: &str, text: &str, unsafe_fixes: bool) -> (String, tempfile::TempDir) {
    let (dir, out, _) = fix_in_project(name, text, unsafe_fixes);
    assert!(
        out.contains("Fixed "),
        "{name}: the summary says what was fixed\n{out}"
    );
    let fixed = std::fs::read_to_string(dir.path().join(name)).unwrap();
    (fixed, dir)
}

#[test]
fn each_input_after_fix_and_after_unsafe_fixes() {
    for (name, text) in cases() {
        let (safe, _) = fix_once(&name, &text, false);
        let (all, _) = fix_once(&name, &text, true);
        assert_ne!(all, text, "{name}: every input has a fix");
        insta::assert_snapshot!(
            format!("fix__{}", name.replace('.', "_")),
            format!("--- --fix\n{safe}--- --unsafe-fixes\n{all}")
        );
    }
}

#[test]
fn fixing_twice_changes_nothing_and_adds_no_finding() {
    for (name, text) in cases() {
        for unsafe_fixes in [false, true] {
            let before = {
                let dir = project_with(&name, &text);
                findings(dir.path(), &name, unsafe_fixes)
            };
            let (fixed, dir) = fix_once(&name, &text, unsafe_fixes);
            let after = findings(dir.path(), &name, unsafe_fixes);
            // Each finding that had a fix is gone, and no other finding appeared.
            let mut left: BTreeMap<&str, isize> = BTreeMap::new();
            for (code, fixable) in &before {
                if !fixable {
                    *left.entry(code).or_default() += 1;
                }
            }
            for (code, _) in &after {
                let n = left.entry(code).or_default();
                *n -= 1;
                assert!(
                    *n >= 0,
                    "{name} (unsafe: {unsafe_fixes}): {code} after the fixes\nbefore: {before:?}\nafter: {after:?}\n{fixed}"
                );
            }
            // Again: nothing changes.
            let (_, out, _) = run(
                dir.path(),
                &["--fix", "--format", "concise", "--unsafe-fixes", &name],
            );
            let again = std::fs::read_to_string(dir.path().join(&name)).unwrap();
            if unsafe_fixes {
                assert_eq!(again, fixed, "{name}: a second --unsafe-fixes changed the file");
                assert!(out.contains("Fixed 0 findings"), "{name}: {out}");
            }
            let (_, out, _) = run(dir.path(), &["--fix", "--format", "concise", &name]);
            assert!(out.contains("Fixed 0 findings"), "{name}: {out}");
        }
    }
}

/// `text` with CRLF line ends and a byte-order mark.
fn crlf_bom(text: &str) -> String {
    format!("\u{feff}{}", text.replace('\n', "\r\n"))
}

#[test]
fn crlf_a_byte_order_mark_comments_and_anchors_survive() {
    for name in [
        "component-version.yml",
        "cluster.yml",
        "job-typos.yml",
        "deploymentconfig.json",
    ] {
        let text = &cases()[name];
        let (lf, _) = fix_once(name, text, true);
        let (crlf, _) = fix_once(name, &crlf_bom(text), true);
        assert_eq!(crlf, crlf_bom(&lf), "{name}");
    }
    let (fixed, _) = fix_once("component-version.yml", &cases()["component-version.yml"], false);
    assert!(
        fixed.contains("version: \"1.1\"   # the CLI reads 1.1\n"),
        "{fixed}"
    );
    assert!(fixed.contains("defaults: &defaults\n"), "{fixed}");
    assert!(fixed.starts_with("# A component whose version"), "{fixed}");
    let (fixed, _) = fix_once("cluster.yml", &cases()["cluster.yml"], true);
    assert!(
        fixed.contains("name: gpu-cluster   # a comment that stays\n"),
        "{fixed}"
    );
}

#[test]
fn the_diff_applies_with_patch_and_changes_nothing() {
    let dir = project();
    for (name, text) in cases() {
        write(dir.path(), &name, &text);
    }
    write(dir.path(), "crlf/cluster.yml", &crlf_bom(&cases()["cluster.yml"]));
    let (code, diff, err) = run(dir.path(), &["--diff", "--unsafe-fixes", "."]);
    assert_eq!(code, 1, "a fix is pending: {err}");
    assert!(diff.starts_with("--- a/"), "{diff}");
    assert!(err.contains("would be applied"), "{err}");
    for (name, text) in cases() {
        assert_eq!(
            std::fs::read_to_string(dir.path().join(&name)).unwrap(),
            text,
            "--diff wrote {name}"
        );
    }
    let patch_file = dir.path().join("fixes.patch");
    std::fs::write(&patch_file, &diff).unwrap();
    let dry = std::process::Command::new("patch")
        .current_dir(dir.path())
        .args(["-p1", "--dry-run", "-i", "fixes.patch"])
        .output();
    let Ok(dry) = dry else {
        eprintln!("skipped: no `patch` program");
        return;
    };
    assert!(
        dry.status.success(),
        "{}\n{diff}",
        String::from_utf8_lossy(&dry.stdout)
    );
    // Applied for real, the patch gives what --fix --unsafe-fixes writes.
    let applied = std::process::Command::new("patch")
        .current_dir(dir.path())
        .args(["-p1", "-s", "-i", "fixes.patch"])
        .status()
        .unwrap();
    assert!(applied.success());
    std::fs::remove_file(&patch_file).unwrap();
    for (name, text) in cases() {
        let (fixed, _) = fix_once(&name, &text, true);
        assert_eq!(
            std::fs::read_to_string(dir.path().join(&name)).unwrap(),
            fixed,
            "{name}"
        );
    }
    // Nothing pending any more: exit 0, an empty diff.
    let (code, diff, _) = run(dir.path(), &["--diff", "--unsafe-fixes", "."]);
    assert_eq!((code, diff.as_str()), (0, ""));
}

#[test]
fn fix_with_standard_input_writes_the_fixed_text_to_standard_output() {
    let dir = project();
    let text = crlf_bom(&cases()["component-version.yml"]);
    let out = amlint(dir.path())
        .args([
            "check",
            "--no-config",
            "--fix",
            "--stdin-filename",
            "component.yml",
            "-",
        ])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        stdout,
        text.replace("version: 1.10", "version: \"1.1\"")
            .replace("learning_rate: 1e-3", "learning_rate: \"1e-3\"")
    );
    assert!(
        stderr.contains("Fixed 2 findings in 1 file (0 remaining)"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(0));
    // Nothing to fix: the text comes back as it was.
    let clean =
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo\n";
    let out = amlint(dir.path())
        .args([
            "check",
            "--no-config",
            "--fix",
            "--stdin-filename",
            "job.yml",
            "-",
        ])
        .write_stdin(clean)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), clean);
}

#[test]
fn fix_and_diff_together_and_with_a_baseline_are_usage_errors() {
    let dir = project_with("job.yml", &cases()["job-typos.yml"]);
    for args in [
        &["--fix", "--diff", "job.yml"][..],
        &["--fix", "--write-baseline", "b.json", "job.yml"],
        &["--diff", "--write-baseline", "b.json", "job.yml"],
        &["--diff", "--statistics", "job.yml"],
        &["--show-settings", "--fix", "job.yml"],
    ] {
        let (code, _, err) = run(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("cannot be used with"), "{args:?}: {err}");
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("job.yml")).unwrap(),
        cases()["job-typos.yml"]
    );
}

#[cfg(unix)]
#[test]
fn a_linked_file_is_not_replaced_and_a_changed_file_is_not_written() {
    let dir = project();
    write(dir.path(), "real/cluster.yml", &cases()["cluster.yml"]);
    std::os::unix::fs::symlink("real/cluster.yml", dir.path().join("cluster.yml")).unwrap();
    let (_, _, err) = run(dir.path(), &["--fix", "--unsafe-fixes", "cluster.yml"]);
    assert!(
        err.contains("not fixed") && err.contains("symbolic link"),
        "{err}"
    );
    let meta = std::fs::symlink_metadata(dir.path().join("cluster.yml")).unwrap();
    assert!(meta.file_type().is_symlink(), "the link is still a link");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("real/cluster.yml")).unwrap(),
        cases()["cluster.yml"]
    );
    // The write itself: a file that is not what was read is left alone.
    let file = dir.path().join("job.yml");
    std::fs::write(&file, "edited meanwhile\n").unwrap();
    let r = amlint::fsio::replace_if_unchanged(&file, b"as read\n", b"fixed\n");
    assert!(matches!(r, Err(amlint::fsio::WriteRefusal::Changed)), "{r:?}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "edited meanwhile\n");
    amlint::fsio::replace_if_unchanged(&file, b"edited meanwhile\n", b"fixed\n").unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "fixed\n");
}

#[test]
fn rule_files_declare_every_fix_their_findings_carry() {
    let registry = amlint::registry::builtin();
    let mut made: BTreeSet<(String, Applicability)> = BTreeSet::new();
    let options = Options {
        today: Some("2026-11-22".to_string()),
        config: amlint::config::ConfigChoice::Disabled,
        ..Options::default()
    };
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for root in [data_dir(), fixtures] {
        let report = check_paths(&[root], &options);
        for (file, d) in report.diagnostics() {
            for fix in d.fixes() {
                let rule = registry.get(d.code).unwrap();
                assert!(
                    rule.fixes.iter().any(|f| f.applicability == fix.applicability),
                    "{}: {} makes a {} fix (`{}`) its rule file does not declare",
                    file.source.path,
                    d.code,
                    fix.applicability,
                    fix.title
                );
                made.insert((d.code.to_string(), fix.applicability));
            }
        }
    }
    // And every declared fix is made by some input: the docs describe real fixes.
    for rule in registry.rules() {
        for f in &rule.fixes {
            assert!(
                made.contains(&(rule.code.to_string(), f.applicability)),
                "{} declares a {} fix that no input of tests/data/fix or fixtures/ makes",
                rule.code,
                f.applicability
            );
            assert!(
                f.set.is_none() || rule.declarative.is_some(),
                "{}: `set` is for declarative rules",
                rule.code
            );
        }
    }
}

/// Every file of the azureml-examples corpus, copied, fixed with `--unsafe-fixes`: each
/// still parses as the same kinds, and the only values that differ are those the fixes
/// name (the node an edit replaces, a renamed key, a field a fix sets).
#[test]
fn fixes_on_a_copy_of_the_corpus_change_only_what_they_name() {
    let corpus = Path::new("/work/shared/corpus/azureml-examples");
    if !corpus.is_dir() {
        eprintln!("skipped: the corpus is not at {}", corpus.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("azureml-examples");
    copy_tree(corpus, &copy);
    std::fs::create_dir_all(copy.join(".git")).unwrap();
    let options = Options {
        today: Some("2026-11-22".to_string()),
        ..Options::default()
    };
    let before = check_paths(std::slice::from_ref(&copy), &options);
    // What each file's fixes may change: JSON pointers (a change below one counts).
    let mut allowed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let registry = amlint::registry::builtin();
    for file in &before.files {
        let loaded = amlint::load::parse_text(
            &file.source.path,
            file.source.text.clone(),
            amlint::load::Format::for_path(&file.source.path),
            &amlint::limits::Limits::default(),
        );
        for d in &file.diagnostics {
            // A fix may change the key or value its finding is about (a removal covers
            // whole lines, not one node's span).
            if let (Some(p), true) = (&d.pointer, d.fixes().next().is_some()) {
                allowed
                    .entry(file.source.path.clone())
                    .or_default()
                    .push(p.to_string());
            }
            for fix in d.fixes() {
                let spans: std::collections::HashSet<_> = fix.edits.iter().map(|e| e.span).collect();
                for doc in &loaded.documents {
                    for p in doc.pointers_for(&spans).into_values() {
                        let text = p.to_string();
                        let mut parent = p.clone();
                        parent.pop();
                        for e in &fix.edits {
                            // A rename: the new key under the same parent.
                            let key = e.replacement.trim_matches('"');
                            allowed
                                .entry(file.source.path.clone())
                                .or_default()
                                .push(parent.child(key).to_string());
                        }
                        allowed.entry(file.source.path.clone()).or_default().push(text);
                    }
                }
                for f in &registry.get(d.code).unwrap().fixes {
                    if let Some(set) = &f.set {
                        allowed
                            .entry(file.source.path.clone())
                            .or_default()
                            .push(format!("/{}", set.field.replace('.', "/")));
                    }
                }
            }
        }
    }
    let out = amlint(&copy)
        .args(["check", "--fix", "--unsafe-fixes", "--format", "concise", "."])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary = stdout.lines().rev().nth(1).unwrap_or_default().to_string();
    eprintln!("corpus: {summary}");
    assert!(summary.starts_with("Fixed "), "{stdout}");
    let after = check_paths(std::slice::from_ref(&copy), &options);
    let kinds = |r: &amlint::Report| -> BTreeMap<String, Vec<Option<&'static str>>> {
        r.files
            .iter()
            .map(|f| (f.source.path.clone(), f.kinds.clone()))
            .collect()
    };
    assert_eq!(kinds(&before), kinds(&after), "every file keeps its kinds");
    let mut changed_files = 0;
    for file in &before.files {
        let path = Path::new(&file.source.path);
        let now = std::fs::read_to_string(path).unwrap_or_default();
        if now == file.source.text {
            continue;
        }
        changed_files += 1;
        let format = amlint::load::Format::for_path(&file.source.path);
        let limits = amlint::limits::Limits::default();
        let old = amlint::load::parse_text(&file.source.path, file.source.text.clone(), format, &limits);
        let new = amlint::load::parse_text(&file.source.path, now.clone(), format, &limits);
        assert_eq!(old.documents.len(), new.documents.len(), "{}", file.source.path);
        let names = allowed.get(&file.source.path).cloned().unwrap_or_default();
        for (a, b) in old.documents.iter().zip(&new.documents) {
            let (mut fa, mut fb) = (BTreeMap::new(), BTreeMap::new());
            flatten(&a.to_json(), String::new(), &mut fa);
            flatten(&b.to_json(), String::new(), &mut fb);
            let keys: BTreeSet<&String> = fa.keys().chain(fb.keys()).collect();
            for k in keys {
                if fa.get(k) == fb.get(k) {
                    continue;
                }
                assert!(
                    names.iter().any(|n| k == n || k.starts_with(&format!("{n}/"))),
                    "{}: {k} changed ({:?} -> {:?}), but the fixes name only {names:?}",
                    file.source.path,
                    fa.get(k),
                    fb.get(k)
                );
            }
        }
    }
    assert!(changed_files > 0, "the corpus has fixes to apply");
}

fn flatten(v: &serde_json::Value, at: String, out: &mut BTreeMap<String, serde_json::Value>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                let k = k.replace('~', "~0").replace('/', "~1");
                flatten(v, format!("{at}/{k}"), out);
            }
        }
        serde_json::Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                flatten(v, format!("{at}/{i}"), out);
            }
        }
        other => {
            out.insert(at, other.clone());
        }
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            if entry.file_name() != ".git" {
                copy_tree(&entry.path(), &target);
            }
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The data of `text` read as the file `name`, as the Azure ML CLI sees it.
fn data_of(name: &str, text: &str) -> Vec<serde_json::Value> {
    let loaded = amlint::load::parse_text(
        name,
        text.to_string(),
        amlint::load::Format::for_path(name),
        &amlint::limits::Limits::default(),
    );
    assert!(
        loaded.documents.iter().all(|d| !d.partial),
        "{name} reads:\n{text}"
    );
    loaded.documents.iter().map(|d| d.to_json()).collect()
}

/// `name` holding `text`, fixed with `--fix` (and `--unsafe-fixes` when asked): the text
/// after, and standard error.
fn fixed_text(name: &str, text: &str, unsafe_fixes: bool) -> (String, String) {
    let (dir, _, err) = fix_in_project(name, text, unsafe_fixes);
    (std::fs::read_to_string(dir.path().join(name)).unwrap(), err)
}

const JOB_HEAD: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo\nenvironment: azureml:env:1\n";

/// `data` with the top-level key `key` removed.
fn without(mut data: Vec<serde_json::Value>, key: &str) -> Vec<serde_json::Value> {
    data[0].as_object_mut().unwrap().remove(key).unwrap();
    data
}

/// Issue 34, defect 9: YAML (PyYAML) ends a line at a NEL, LS or PS, and at a CR alone,
/// where editors do not. Removing an unused suppression or a read-only key whose line
/// ends in one deleted the key after it.
#[test]
fn a_removal_ends_at_the_line_break_yaml_reads() {
    for sep in ["\u{2028}", "\u{2029}", "\u{85}", "\r"] {
        let shown = sep.escape_unicode().to_string();
        // A suppression after a value, silencing nothing (AML009).
        let text = format!("{JOB_HEAD}code: src  # amlint: ignore[AML503]{sep}display_name: kept\n");
        let (fixed, _) = fixed_text("job.yml", &text, false);
        assert_eq!(
            fixed,
            format!("{JOB_HEAD}code: src{sep}display_name: kept\n"),
            "{shown}"
        );
        assert_eq!(data_of("job.yml", &fixed), data_of("job.yml", &text), "{shown}");
        // A suppression on its own line.
        let text = format!("{JOB_HEAD}# amlint: ignore[AML503]{sep}display_name: kept\n");
        let (fixed, _) = fixed_text("job.yml", &text, false);
        assert_eq!(fixed, format!("{JOB_HEAD}display_name: kept\n"), "{shown}");
        assert_eq!(data_of("job.yml", &fixed), data_of("job.yml", &text), "{shown}");
        // A read-only key (AML107) with a comment.
        let text = format!("{JOB_HEAD}status: x  # exported{sep}display_name: kept\n");
        let (fixed, _) = fixed_text("job.yml", &text, false);
        assert_eq!(fixed, format!("{JOB_HEAD}display_name: kept\n"), "{shown}");
        assert_eq!(
            data_of("job.yml", &fixed),
            without(data_of("job.yml", &text), "status"),
            "{shown}"
        );
    }
}

/// Issue 34, defect 9: a key reached through `<<: *t` is written in the mapping `t`; a
/// fix of it edited `t` (here `tags`) instead. A value an alias repeats changed in every
/// place. Such nodes are not fixed: no fix is offered, and the file stays as it is.
#[test]
fn a_node_reached_through_a_merge_key_or_an_alias_is_not_fixed() {
    let cases = [
        // AML101: the rename of a merged key.
        format!("{JOB_HEAD}tags: &t\n  descripton: x\n<<: *t\n"),
        // AML107: the removal of a merged read-only key.
        format!("{JOB_HEAD}tags: &t\n  status: x\n<<: *t\n"),
        // AML003: the version an alias repeats (both of its fixes change the value).
        "$schema: https://azuremlschemas.azureedge.net/latest/commandComponent.schema.json\nname: c\nversion: &v 1.10\ncommand: echo\nenvironment: azureml:env:1\ntags:\n  v: *v\n".to_string(),
    ];
    for text in &cases {
        let dir = project_with("x.yml", text);
        let (_, out, _) = run(dir.path(), &["--format", "concise", "x.yml"]);
        assert!(!out.contains("[*]"), "a fix is offered:\n{out}\n{text}");
        for unsafe_fixes in [false, true] {
            let (fixed, _) = fixed_text("x.yml", text, unsafe_fixes);
            assert_eq!(&fixed, text);
        }
    }
    // The key written in the mapping itself still is fixed.
    let text = format!("{JOB_HEAD}tags: &t\n  a: x\nresources:\n  <<: *t\n  instance_cont: 1\n");
    let (fixed, _) = fixed_text("x.yml", &text, false);
    assert_eq!(fixed, text.replace("instance_cont", "instance_count"));
}

/// Where a correct edit exists for a key reached through a merge or written twice, it is
/// the one made: a value set on a merged key is written in the mapping itself, which
/// overrides it (the anchored mapping stays as it is); a repeated key is renamed or
/// removed everywhere it is written (renaming the last only brought the first back).
#[test]
fn a_merged_or_repeated_key_gets_the_edit_that_keeps_the_rest() {
    let compute = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\nsize: Standard_DS3_v2\nenable_node_public_ip: false\ndefaults: &d\n  min_instances: 2\n<<: *d\n";
    let (fixed, _) = fixed_text("compute.yml", compute, true);
    assert!(fixed.contains("defaults: &d\n  min_instances: 2\n"), "{fixed}");
    let mut expected = data_of("compute.yml", compute);
    expected[0]["min_instances"] = serde_json::json!(0);
    assert_eq!(data_of("compute.yml", &fixed), expected, "{fixed}");
    let text = format!("{JOB_HEAD}descripton: a\ndescripton: b\n");
    let (fixed, _) = fixed_text("job.yml", &text, false);
    assert_eq!(fixed, text.replace("descripton", "description"));
    let mut expected = data_of("job.yml", &text);
    let object = expected[0].as_object_mut().unwrap();
    let value = object.remove("descripton").unwrap();
    object.insert("description".to_string(), value);
    assert_eq!(data_of("job.yml", &fixed), expected);
    let text = format!("{JOB_HEAD}status: a\ndisplay_name: d\nstatus: b\n");
    let (fixed, _) = fixed_text("job.yml", &text, false);
    assert_eq!(fixed, format!("{JOB_HEAD}display_name: d\n"));
}

/// Issue 34, defect 9: blank lines after a block scalar that keeps its line breaks
/// (`|+`, `>+`) are part of its value, and a `|` block that ends the file without a line
/// break has none: a line removed or added next to one changed its value. The fixes are
/// made so that they do not.
#[test]
fn a_fix_beside_a_block_scalar_keeps_its_value() {
    let compute = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\nsize: Standard_DS3_v2\n";
    // AML702 adds `enable_node_public_ip: false` (unsafe).
    for tail in [
        "description: |+\n  text\n\n",
        "description: >+\n  text\n\n\n# end\n",
        "description: |\n  text",
        "description: |2+\n    text\n  \n",
        "tags:\n  note: |+\n    text\n\n",
    ] {
        let text = format!("{compute}{tail}");
        let (fixed, _) = fixed_text("compute.yml", &text, true);
        let mut expected = data_of("compute.yml", &text);
        expected[0]
            .as_object_mut()
            .unwrap()
            .insert("enable_node_public_ip".to_string(), serde_json::json!(false));
        assert_eq!(data_of("compute.yml", &fixed), expected, "{tail:?}\n{fixed}");
    }
    // AML107 removes a read-only key; AML009 an unused suppression on its own line.
    for (tail, removed) in [
        ("description: >+\n  text\n\nstatus: x  # c\n\n", Some("status")),
        ("description: |+\n  text\n\nstatus: x\n\n\n", Some("status")),
        ("description: |+\n  text\n# amlint: ignore[AML503]\n\n", None),
        (
            "description: |+\n  text\n\n# amlint: ignore[AML503]\n  \n\n",
            None,
        ),
    ] {
        let text = format!("{JOB_HEAD}{tail}");
        let (fixed, _) = fixed_text("job.yml", &text, false);
        assert_ne!(fixed, text, "{tail:?}: fixed");
        let expected = match removed {
            Some(key) => without(data_of("job.yml", &text), key),
            None => data_of("job.yml", &text),
        };
        assert_eq!(data_of("job.yml", &fixed), expected, "{tail:?}\n{fixed}");
    }
}

/// Guard 3 of issue 34: a fix whose text changes data it does not declare is not
/// applied, the others are, and the output says so (standard error, the summary line).
/// Here a user rule's `set` value writes a second key.
#[test]
fn a_fix_that_changes_more_than_it_declares_is_dropped_and_said_so() {
    let dir = project();
    write(dir.path(), "amlint.toml", "rules-dirs = [\"policies\"]\n");
    let rule = super::common::INJECTING_RULE;
    write(dir.path(), "policies/team.yaml", rule);
    let text = format!("{JOB_HEAD}tags:\n  team: data\nstatus: x\n");
    write(dir.path(), "job.yml", &text);
    let out = amlint(dir.path())
        .args(["check", "--fix", "--format", "concise", "job.yml"])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    let fixed = std::fs::read_to_string(dir.path().join("job.yml")).unwrap();
    // The read-only key is removed; the team is not set.
    assert_eq!(fixed, text.replace("status: x\n", ""), "{stdout}{stderr}");
    assert!(
        stderr.contains("job.yml: fix not applied (ORG100: Set `tags.team:")
            && stderr.contains("it would also change `/tags/owner`"),
        "{stderr}"
    );
    assert!(
        stdout.contains("Fixed 1 finding in 1 file (1 remaining")
            && stdout.contains("1 fix not applied, see above)"),
        "{stdout}"
    );
}

/// Issue 34, defect 4 (guard 4): `--fix -` is an editor's filter: standard output
/// replaces the buffer. On input it cannot read (a Latin-1 byte, a NUL, more than
/// `--max-file-size`) or with a configuration error, standard output was the report and
/// the exit code that of a successful fix. Standard output is now the input unchanged,
/// the report goes to standard error, and the run exits 2.
#[test]
fn fix_on_standard_input_it_cannot_fix_gives_it_back_unchanged() {
    let dir = project();
    let mut big = JOB_HEAD.as_bytes().to_vec();
    while big.len() < 200_000 {
        big.extend_from_slice(b"# a long comment line that pads the input well beyond the limit\n");
    }
    let cases: Vec<(&str, Vec<u8>, &[&str], &str)> = vec![
        (
            "latin-1",
            format!("{JOB_HEAD}description: caf")
                .bytes()
                .chain(*b"\xe9\n")
                .collect(),
            &[],
            "AML004",
        ),
        (
            "nul",
            format!("{JOB_HEAD}status: x\n\0\n").into_bytes(),
            &[],
            "AML004",
        ),
        ("too large", big, &["--max-file-size", "1000"], "AML005"),
        (
            "utf-16",
            b"\xff\xfec\x00:\x00 \x001\x00\n\x00".to_vec(),
            &[],
            "AML004",
        ),
    ];
    for (what, input, extra, code) in cases {
        for format in ["human", "json", "concise"] {
            let out = amlint(dir.path())
                .args([
                    "check",
                    "--no-config",
                    "--fix",
                    "--format",
                    format,
                    "--stdin-filename",
                    "job.yml",
                ])
                .args(extra)
                .arg("-")
                .write_stdin(input.clone())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{what} ({format}): {stderr}");
            assert!(
                out.stdout == input,
                "{what} ({format}): standard output is not the input"
            );
            assert!(stderr.contains(code), "{what} ({format}): {stderr}");
        }
    }
    // A configuration error: the input back, the error on standard error.
    write(dir.path(), "amlint.toml", "select = [\n");
    let input = format!("{JOB_HEAD}status: x\n");
    for format in ["human", "json"] {
        let out = amlint(dir.path())
            .args([
                "check",
                "--fix",
                "--format",
                format,
                "--stdin-filename",
                "job.yml",
                "-",
            ])
            .write_stdin(input.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&out.stdout), input, "{format}");
    }
}

/// Issue 34, defect 11: for a file named `my job.yml`, `patch -p1` could not apply the
/// diff: the `---`/`+++` lines need git's tab after a name holding a space. Names are
/// written as git writes them (a trailing tab; C quoting for quotes, backslashes, control
/// characters and bytes beyond ASCII), and the real `patch -p1` and `git apply` apply the
/// diff.
#[test]
fn the_diff_of_files_with_spaces_and_quotes_in_their_names_applies() {
    let names = [
        "my job.yml",
        "dir with space/job.yml",
        "q\"uote.yml",
        "back\\slash.yml",
        "tab\there.yml",
        "caf\u{e9} job.yml",
    ];
    let text = format!("{JOB_HEAD}status: x\n");
    let fixed = JOB_HEAD.to_string();
    for tool in ["patch", "git"] {
        let dir = project();
        for n in names {
            write(dir.path(), n, &text);
        }
        let (code, diff, err) = run(dir.path(), &["--diff", "."]);
        assert_eq!(code, 1, "{err}");
        assert!(
            diff.contains("--- a/my job.yml\t\n+++ b/my job.yml\t\n"),
            "{diff}"
        );
        assert!(diff.contains("--- \"a/q\\\"uote.yml\"\n"), "{diff}");
        std::fs::write(dir.path().join("fixes.patch"), &diff).unwrap();
        let args: &[&str] = match tool {
            "patch" => &["-p1", "-i", "fixes.patch"],
            _ => &["apply", "fixes.patch"],
        };
        let Ok(out) = std::process::Command::new(tool)
            .current_dir(dir.path())
            .args(args)
            .output()
        else {
            eprintln!("skipped: no `{tool}` program");
            continue;
        };
        assert!(
            out.status.success(),
            "{tool}: {}{}\n{diff}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        for n in names {
            assert_eq!(
                std::fs::read_to_string(dir.path().join(n)).unwrap(),
                fixed,
                "{tool}: {n}"
            );
        }
    }
}

/// Where a fix may change the data: at or below each pointer a fix declares, and below
/// a renamed key's new name.
fn declared_places(diagnostics: &[amlint::diagnostic::Diagnostic], out: &mut BTreeSet<String>) {
    use amlint::diagnostic::Change;
    for d in diagnostics {
        for fix in d.fixes() {
            for change in &fix.changes {
                out.insert(change.at().to_string());
                if let Change::Rename { at, to } = change {
                    let mut parent = at.clone();
                    parent.pop();
                    out.insert(parent.child(to).to_string());
                }
            }
        }
    }
}

/// Guard 3 of issue 34, as a property of every file of `root`: fixed (safe fixes, and
/// unsafe ones too) in memory, each round checked as `--fix` checks it, the fixed text
/// has no new finding, its data differs from the original only at or below the places
/// the fixes of its rounds declare (compared as flattened JSON, not by the verifier's
/// digests), no fix was refused by the verifier (a refusal is an edit builder's bug), and
/// fixing it again changes nothing. Returns the number of files changed.
fn fix_property(root: &Path) -> usize {
    let options = &Options {
        today: Some("2026-11-22".to_string()),
        ..Options::default()
    };
    let report = check_paths(&[root.to_path_buf()], options);
    let limits = amlint::limits::Limits::default();
    let recheck = |display: &str, text: &str| -> Option<Vec<amlint::diagnostic::Diagnostic>> {
        let buffer = amlint::pipeline::Buffer {
            display: display.to_string(),
            text: Ok(text.to_string()),
        };
        let checked = amlint::pipeline::run(&[], vec![buffer], options);
        checked
            .files
            .into_iter()
            .find(|f| f.source.path == display && f.checked)
            .map(|f| f.diagnostics)
    };
    let mut changed = 0;
    for file in report.files.iter().filter(|f| f.checked) {
        let name = file.source.path.clone();
        for unsafe_fixes in [false, true] {
            if file.diagnostics.iter().all(|d| d.fix_for(unsafe_fixes).is_none()) {
                continue;
            }
            let mut places = BTreeSet::new();
            declared_places(&file.diagnostics, &mut places);
            let fixed = amlint::fix::fix_text(
                &name,
                file.source.text.clone(),
                file.diagnostics.clone(),
                unsafe_fixes,
                &limits,
                &mut |text| {
                    let found = recheck(&name, text);
                    if let Some(found) = &found {
                        declared_places(found, &mut places);
                    }
                    found
                },
            );
            assert!(fixed.unverified.is_empty(), "{name}: {:?}", fixed.unverified);
            if fixed.text == file.source.text {
                continue;
            }
            changed += 1;
            // No new finding.
            let count = |ds: &[amlint::diagnostic::Diagnostic]| {
                let mut c: BTreeMap<&str, usize> = BTreeMap::new();
                for d in ds {
                    *c.entry(d.code).or_default() += 1;
                }
                c
            };
            let (before, after) = (count(&file.diagnostics), count(&fixed.diagnostics));
            for (code, n) in &after {
                assert!(
                    before.get(code).is_some_and(|b| b >= n),
                    "{name}: {n} {code} after the fixes, {:?} before\n{}",
                    before.get(code),
                    fixed.text
                );
            }
            // The data changes only where the fixes say.
            let old = data_of(&name, &file.source.text);
            let new = data_of(&name, &fixed.text);
            assert_eq!(old.len(), new.len(), "{name}");
            for (a, b) in old.iter().zip(&new) {
                let (mut fa, mut fb) = (BTreeMap::new(), BTreeMap::new());
                flatten(a, String::new(), &mut fa);
                flatten(b, String::new(), &mut fb);
                let keys: BTreeSet<&String> = fa.keys().chain(fb.keys()).collect();
                for k in keys.into_iter().filter(|k| fa.get(*k) != fb.get(*k)) {
                    assert!(
                        places.iter().any(|p| k == p || k.starts_with(&format!("{p}/"))),
                        "{name}: {k} changed ({:?} -> {:?}), but the fixes name only {places:?}",
                        fa.get(k),
                        fb.get(k)
                    );
                }
            }
            // A second --fix changes nothing.
            let again = amlint::fix::fix_text(
                &name,
                fixed.text.clone(),
                fixed.diagnostics.clone(),
                unsafe_fixes,
                &limits,
                &mut |text| recheck(&name, text),
            );
            assert_eq!(again.text, fixed.text, "{name}: a second fix changed it");
        }
    }
    changed
}

#[test]
fn fixes_of_every_fixture_change_only_what_they_declare() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let changed = fix_property(&fixtures);
    eprintln!("fixtures: {changed} fixed files");
    assert!(changed > 40, "{changed} fixtures fixed");
}

/// The same over the real-world corpus (`../shared/realworld`), read in place: nothing
/// is written.
#[test]
fn fixes_of_the_realworld_corpus_change_only_what_they_declare() {
    let Some(corpus) = [
        std::env::var_os("AMLINT_REALWORLD").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld")),
        Some(PathBuf::from("/work/shared/realworld")),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.join("oracle.jsonl").is_file()) else {
        eprintln!("skipped: the real-world corpus is not there");
        return;
    };
    let changed = fix_property(&corpus);
    eprintln!("realworld: {changed} fixed files");
    assert!(changed > 40, "{changed} files fixed");
}
