//! The file system as hostile input (`docs/security.md`): links out of the project, pipes
//! and devices where files are expected, link loops, unreadable directories, full disks,
//! colliding names, endless inputs. Each case runs the real binary with a timeout (a hang
//! fails the test); the cases about memory run it under a 256 MB address-space limit
//! (`prlimit --as`), so that reading an endless file fails the test instead of the machine.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

/// Far above what any case takes; reaching it means a hang.
const BOUND: Duration = Duration::from_secs(60);

/// A command job with one finding: AML002 on line 5.
pub(crate) const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: local\ncompute: local\n";

/// What a file outside the project holds: it must never appear in any output.
pub(crate) const SECRET: &str = "CI_TOKEN = \"hunter2-secret\"\n";

pub(crate) struct Case {
    /// Kept alive for the case; the project is `root`.
    pub(crate) _dirs: (tempfile::TempDir, tempfile::TempDir),
    /// A git work tree (the project).
    pub(crate) root: PathBuf,
    /// A file outside the project, holding [`SECRET`].
    pub(crate) secret: PathBuf,
}

pub(crate) fn case() -> Case {
    let project = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    std::fs::create_dir(root.join(".git")).unwrap();
    let secret = outside.path().canonicalize().unwrap().join("secret.toml");
    std::fs::write(&secret, SECRET).unwrap();
    Case {
        _dirs: (project, outside),
        root,
        secret,
    }
}

impl Case {
    pub(crate) fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.root.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    pub(crate) fn link(&self, target: impl AsRef<Path>, name: &str) {
        let p = self.root.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        symlink(target, p).unwrap();
    }

    pub(crate) fn fifo(&self, name: &str) {
        let p = self.root.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    pub(crate) fn amlint(&self) -> Command {
        let mut c = Command::cargo_bin("amlint").unwrap();
        c.timeout(BOUND)
            .current_dir(&self.root)
            .env("AMLINT_TODAY", "2026-11-22");
        c
    }

    /// `amlint <args>` under a 256 MB address-space limit.
    pub(crate) fn amlint_limited(&self, args: &[&str]) -> Output {
        let out = Command::new("prlimit")
            .arg("--as=268435456")
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_amlint"))
            .args(args)
            .current_dir(&self.root)
            .timeout(BOUND)
            .output()
            .unwrap();
        assert!(out.status.code().is_some(), "killed: {out:?}");
        out
    }
}

pub(crate) fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// (path, code, message) of every diagnostic of a JSON report.
pub(crate) fn findings(out: &Output) -> Vec<(String, String, String)> {
    let json: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(out)));
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

pub(crate) fn codes_of<'a>(f: &'a [(String, String, String)], path: &str) -> Vec<&'a str> {
    f.iter()
        .filter(|(p, _, _)| p == path)
        .map(|(_, c, _)| c.as_str())
        .collect()
}

fn message_of<'a>(f: &'a [(String, String, String)], path: &str) -> &'a str {
    f.iter()
        .find(|(p, _, _)| p == path)
        .map(|(_, _, m)| m.as_str())
        .unwrap_or_default()
}

/// Defect 2: an ignore file that is a link to `/dev/zero` (read by the `ignore` crate
/// line by line: one endless line) aborted on memory; a pipe named `.gitignore` hung the
/// walk. Both are refused before the crate opens them: a configuration error (exit 2)
/// naming the file.
#[test]
fn ignore_files_that_never_end_or_never_open() {
    for (name, how) in [
        (".gitignore", "zero"),
        ("sub/.ignore", "zero"),
        (".gitignore", "fifo"),
        ("deep/er/.gitignore", "fifo"),
    ] {
        let c = case();
        c.write("jobs/job.yml", JOB);
        c.write("sub/job.yml", JOB);
        c.write("deep/er/job.yml", JOB);
        match how {
            "zero" => c.link("/dev/zero", name),
            _ => c.fifo(name),
        }
        let out = c.amlint_limited(&["check", "--no-config", "."]);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{name} ({how}): {all}");
        assert!(all.contains(".gitignore") || all.contains(".ignore"), "{all}");
        assert!(
            all.contains(if how == "zero" {
                "outside the project"
            } else {
                "named pipe"
            }),
            "{name} ({how}): {all}"
        );
    }
}

/// Git's `info/exclude` is an ignore file too.
#[test]
fn git_excludes_are_ignore_files() {
    let c = case();
    c.write("job.yml", JOB);
    std::fs::create_dir_all(c.root.join(".git/info")).unwrap();
    c.fifo(".git/info/exclude");
    let out = c.amlint().args(["check", "--no-config", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("exclude"), "{}", text(&out));
    // A regular exclude file is honoured as before.
    std::fs::remove_file(c.root.join(".git/info/exclude")).unwrap();
    c.write(".git/info/exclude", "job.yml\n");
    c.write("other.yml", JOB);
    let out = c
        .amlint()
        .args(["check", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    let f = findings(&out);
    assert!(
        codes_of(&f, "job.yml").is_empty() && codes_of(&f, "other.yml") == ["AML002"],
        "{f:?}"
    );
}

/// Defect 4: `rules-dirs` with a link loop did not end, and `rules-dirs = ["/"]` read the
/// whole machine. A loop ends (each directory is read once, by its real path); a rules
/// directory outside the project is a configuration error at its value.
#[test]
fn rules_dirs_stay_inside_the_project_and_loops_end() {
    let c = case();
    c.write("job.yml", JOB);
    c.write("amlint.toml", "rules-dirs = [\"policies\"]\n");
    std::fs::create_dir_all(c.root.join("policies/a")).unwrap();
    // Two links back up: without a set of visited directories, 2^depth paths.
    c.link(c.root.join("policies"), "policies/a/up");
    c.link(c.root.join("policies"), "policies/a/again");
    c.link(".", "policies/loop");
    let out = c
        .amlint()
        .args(["check", "--format", "json", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(codes_of(&findings(&out), "job.yml"), ["AML002"]);

    for dirs in ["\"/\"", "\"..\"", "\"outside\""] {
        let c = case();
        c.write("job.yml", JOB);
        c.link(c.secret.parent().unwrap(), "outside");
        c.write("amlint.toml", &format!("rules-dirs = [{dirs}]\n"));
        let out = c.amlint().args(["check", "."]).output().unwrap();
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{dirs}: {all}");
        assert!(all.contains("outside the project"), "{dirs}: {all}");
        assert!(!all.contains("hunter2"), "{all}");
    }
}

/// Defect 5: a configuration or rule file that is a link to a file outside the
/// repository had its text echoed in the parse error (into the CI log); a checked file
/// was read through such a link too. Each is refused without being read.
#[test]
fn links_out_of_the_project_are_not_read() {
    for name in ["amlint.toml", ".amlint.toml", "pyproject.toml"] {
        let c = case();
        c.write("job.yml", JOB);
        c.link(&c.secret, name);
        let out = c.amlint().args(["check", "."]).output().unwrap();
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {all}");
        assert!(
            all.contains("outside the project") && !all.contains("hunter2"),
            "{name}: {all}"
        );
    }
    // `--config` naming a link in the project, and a rule file.
    let c = case();
    c.write("job.yml", JOB);
    c.link(&c.secret, "ci.toml");
    let out = c
        .amlint()
        .args(["check", "--config", "ci.toml", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(!text(&out).contains("hunter2"), "{}", text(&out));
    let c = case();
    c.write("job.yml", JOB);
    c.write("amlint.toml", "rules-dirs = [\"policies\"]\n");
    c.link(&c.secret, "policies/steal.yaml");
    let out = c.amlint().args(["check", "."]).output().unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("outside the project") && !all.contains("hunter2"),
        "{all}"
    );

    // Checked files: walked, and named on the command line (directly, or through a
    // linked directory); a link inside the project is followed.
    let c = case();
    c.write("job.yml", JOB);
    let yaml_secret = c.secret.with_file_name("secret.yml");
    std::fs::write(&yaml_secret, format!("{JOB}token: hunter2-secret\n")).unwrap();
    c.link(&yaml_secret, "stolen.yml");
    c.link(yaml_secret.parent().unwrap(), "elsewhere");
    c.link(c.root.join("job.yml"), "alias.yml");
    for args in [
        &["."][..],
        &[
            "stolen.yml",
            "elsewhere/secret.yml",
            "elsewhere",
            "alias.yml",
            "job.yml",
        ][..],
    ] {
        let out = c
            .amlint()
            .args(["check", "--no-config", "--format", "json"])
            .args(args)
            .output()
            .unwrap();
        let all = text(&out);
        assert!(!all.contains("hunter2"), "{all}");
        let f = findings(&out);
        assert_eq!(codes_of(&f, "stolen.yml"), ["AML004"], "{f:?}");
        assert!(
            message_of(&f, "stolen.yml").contains("outside the project"),
            "{f:?}"
        );
        assert_eq!(codes_of(&f, "alias.yml"), ["AML002"], "{f:?}");
        assert_eq!(codes_of(&f, "job.yml"), ["AML002"], "{f:?}");
        if args.len() > 1 {
            assert_eq!(codes_of(&f, "elsewhere/secret.yml"), ["AML004"], "{f:?}");
            assert_eq!(codes_of(&f, "elsewhere"), ["AML004"], "{f:?}");
        }
    }
}

/// A file named on the command line outside any project is the invoker's choice: it is
/// checked where it is (its directory is then the project), links inside it followed.
#[test]
fn a_file_named_outside_the_project_is_its_own_project() {
    let c = case();
    let elsewhere = c.secret.parent().unwrap();
    std::fs::write(elsewhere.join("job.yml"), JOB).unwrap();
    symlink(elsewhere.join("job.yml"), elsewhere.join("alias.yml")).unwrap();
    let out = c
        .amlint()
        .args(["check", "--no-config", "--format", "json"])
        .arg(elsewhere.join("alias.yml"))
        .output()
        .unwrap();
    let f = findings(&out);
    let shown = elsewhere.join("alias.yml").display().to_string();
    assert_eq!(codes_of(&f, &shown), ["AML002"], "{f:?}");
}

/// Defect 6: a link to `/proc/kmsg` (a kernel file that blocks when read, and whose
/// reading consumes the kernel's messages) or to a device hung amlint as a checked or
/// configuration file. Neither is opened.
#[test]
fn blocking_kernel_files_and_devices_are_not_opened() {
    let c = case();
    c.write("job.yml", JOB);
    c.link("/proc/kmsg", "kmsg.yml");
    c.link("/dev/zero", "zero.yml");
    c.fifo("pipe.yml");
    let out = c
        .amlint()
        .args(["check", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    let f = findings(&out);
    assert_eq!(codes_of(&f, "kmsg.yml"), ["AML004"], "{f:?}");
    assert_eq!(codes_of(&f, "zero.yml"), ["AML004"], "{f:?}");
    assert_eq!(codes_of(&f, "pipe.yml"), ["AML004"], "{f:?}");
    assert!(message_of(&f, "pipe.yml").contains("named pipe"), "{f:?}");
    assert_eq!(codes_of(&f, "job.yml"), ["AML002"]);
    // Named on the command line, and as configuration files.
    let out = c
        .amlint()
        .args(["check", "--no-config", "--format", "json", "kmsg.yml", "pipe.yml"])
        .output()
        .unwrap();
    assert_eq!(codes_of(&findings(&out), "kmsg.yml"), ["AML004"]);
    for target in ["/proc/kmsg", "/dev/zero"] {
        let c = case();
        c.write("job.yml", JOB);
        c.link(target, "amlint.toml");
        let out = c.amlint().args(["check", "."]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{target}: {}", text(&out));
    }
    let c = case();
    c.write("job.yml", JOB);
    c.fifo("amlint.toml");
    let out = c.amlint().args(["check", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("named pipe"), "{}", text(&out));
}

/// Defect 13: a directory amlint could not list was skipped silently (exit 0). Tests run
/// as root, which lists mode-000 directories: the run drops to an unprivileged user with
/// `setpriv` (util-linux) for the case; without it (and as root) the case cannot be made
/// and is said to be skipped.
#[test]
fn an_unreadable_directory_is_a_finding() {
    let c = case();
    c.write("job.yml", JOB);
    c.write("locked/x.yml", JOB);
    std::fs::set_permissions(c.root.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    // The unprivileged user must reach the project and the binary.
    for d in c.root.ancestors() {
        if d.starts_with(std::env::temp_dir()) && d != std::env::temp_dir() {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let root_user = std::fs::read_dir(c.root.join("locked")).is_ok();
    let setpriv = std::process::Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok();
    let out = if root_user {
        if !setpriv {
            eprintln!("skipped: running as root without setpriv, a mode-000 directory is readable");
            return;
        }
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(env!("CARGO_BIN_EXE_amlint"))
            .args(["check", "--no-config", "--format", "json", "."])
            .current_dir(&c.root)
            .timeout(BOUND)
            .output()
            .unwrap()
    } else {
        c.amlint()
            .args(["check", "--no-config", "--format", "json", "."])
            .output()
            .unwrap()
    };
    std::fs::set_permissions(c.root.join("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let f = findings(&out);
    assert_eq!(codes_of(&f, "locked"), ["AML004"], "{f:?}");
    assert!(
        message_of(&f, "locked").contains("cannot list this directory"),
        "{f:?}"
    );
    assert_eq!(codes_of(&f, "job.yml"), ["AML002"]);
}

/// Defect 14: two checked paths to one file (through a link) or whose names show alike
/// (`a\b.yml` and `a/b.yml`; two names that are not UTF-8) were merged, and one dropped.
/// Each path is reported; one path named twice is checked once.
#[test]
fn paths_that_collide_are_each_reported() {
    use std::os::unix::ffi::OsStrExt;
    let c = case();
    c.write("job.yml", JOB);
    c.link("job.yml", "alias.yml");
    c.write("a/b.yml", JOB);
    c.write("a\\b.yml", JOB);
    std::fs::create_dir(c.root.join("sub")).unwrap();
    std::fs::write(c.root.join(std::ffi::OsStr::from_bytes(b"caf\xe9.yml")), JOB).unwrap();
    std::fs::write(c.root.join(std::ffi::OsStr::from_bytes(b"caf\xe8.yml")), JOB).unwrap();
    let out = c
        .amlint()
        .args([
            "check",
            "--no-config",
            "--format",
            "json",
            ".",
            "job.yml",
            "./job.yml",
            "sub/../job.yml",
            "alias.yml",
        ])
        .output()
        .unwrap();
    let f = findings(&out);
    let paths: Vec<&str> = f.iter().map(|(p, _, _)| p.as_str()).collect();
    for p in [
        "job.yml",
        "alias.yml",
        "a/b.yml",
        "a\\b.yml",
        "caf\\xE9.yml",
        "caf\\xE8.yml",
    ] {
        assert_eq!(paths.iter().filter(|x| **x == p).count(), 1, "{p}: {paths:?}");
    }
    assert_eq!(paths.len(), 6, "{paths:?}");
}

/// Defect 15: output written to a full device was lost and the run exited 0 (or 1).
#[test]
fn output_that_cannot_be_written_exits_2() {
    let c = case();
    c.write("job.yml", "a: 1\n");
    for format in ["human", "json", "sarif"] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_amlint"))
            .args(["check", "--no-config", "--format", format, "."])
            .current_dir(&c.root)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{format}: {}", text(&out));
        assert!(text(&out).contains("cannot write the output"), "{}", text(&out));
    }
}

/// Audit 23, case 05: help and the version, written to a full device, were lost with exit
/// 0; like every other output they exit 2 and say so.
#[test]
fn help_and_version_that_cannot_be_written_exit_2() {
    for args in [&["--help"][..], &["check", "--help"], &["--version"], &["-V"]] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_amlint"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains("cannot write the output"), "{}", text(&out));
    }
}

/// Audit 23, case 07: a walked script that runs `az ml compute create`, with one byte
/// that is not UTF-8 (`# café` saved as Latin-1), was skipped as "not an Azure ML
/// configuration" and its computes lost; it is AML004, as when it is named. A walked file
/// of the same bytes that no definition reader would read stays skipped.
#[test]
fn a_walked_definition_file_that_is_not_utf8_is_reported() {
    let c = case();
    std::fs::write(
        c.root.join("deploy.sh"),
        b"# caf\xe9\naz ml compute create -n gpu --type amlcompute --size Standard_NC6\n",
    )
    .unwrap();
    std::fs::write(c.root.join("notes.sh"), b"# caf\xe9\necho hello\n").unwrap();
    let out = c
        .amlint()
        .args(["check", "--no-config", "--format", "concise", "."])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stdout.contains("deploy.sh:1:6: AML004 [error] the file is not valid UTF-8"),
        "{stdout}"
    );
    assert!(!stdout.contains("notes.sh"), "{stdout}");
}

/// Audit 23, case 03: a walked script over the size limit that runs `az ml compute
/// create` was skipped like data, and its computes lost without a word; it is reported
/// (AML005, a warning: the file may be right, amlint's reading falls short), its words
/// found on disk past the first read. A walked file as large that no definition reader
/// would read (no such words) is data and stays skipped; a file named explicitly keeps
/// its error.
#[test]
fn a_walked_definition_file_over_the_size_limit_is_reported() {
    let c = case();
    let create = "az ml compute create -n gpu --type amlcompute --size Standard_NC6\n";
    c.write("deploy.sh", &format!("{}{create}", "# padding\n".repeat(1_000)));
    c.write("notes.sh", &"echo hello\n".repeat(1_000));
    // Words a reader looks further for, but not of a definition (audit 25, D1).
    c.write("big.py", &"import os\n".repeat(1_000));
    c.write("vars.tfvars", &"module = \"x\"\n".repeat(1_000));
    c.write("page.html.sh", &"echo html computers\n".repeat(1_000));
    let run = |args: &[&str]| {
        let out = c
            .amlint()
            .args([
                "check",
                "--no-config",
                "--format",
                "concise",
                "--max-file-size",
                "4096",
            ])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, stdout) = run(&["."]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains(
            "deploy.sh:1:1: AML005 [warning] the file is 9.8 KiB, larger than the 4.0 KiB limit; it was not read: the computes it may define are not known"
        ),
        "{stdout}"
    );
    for quiet in ["notes.sh", "big.py", "vars.tfvars", "page.html.sh"] {
        assert!(!stdout.contains(quiet), "{quiet}: {stdout}");
    }
    let (code, stdout) = run(&["deploy.sh"]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("deploy.sh:1:1: AML005 [error]"), "{stdout}");
    assert_eq!(stdout.matches("AML005").count(), 1, "{stdout}");
}

/// Audit 23, case 01: a definition file beyond what its reader parses (a Terraform,
/// Bicep or Python file of more than 250,000 tokens, a notebook of more than 250,000
/// JSON values) was skipped as "not an Azure ML configuration", its computes lost without
/// a word; each is reported, saying which limit. Files as large that name no compute
/// stay silent.
#[test]
fn a_definition_file_beyond_its_readers_limits_is_reported() {
    let c = case();
    let tf = r#"resource "azurerm_machine_learning_compute_cluster" "gpu" {
  name    = "gpu-cluster"
  vm_size = "Standard_NC6"
}
"#;
    c.write(
        "main.tf",
        &format!("{tf}locals {{\n  x = [{}]\n}}\n", "1,".repeat(260_000)),
    );
    c.write(
        "data.tf",
        &format!("locals {{\n  x = [{}]\n}}\n", "1,".repeat(260_000)),
    );
    // A module call alone (the module, read on its own, defines the compute), an import
    // alone: no AML005 (audit 25, D1).
    c.write(
        "calls.tf",
        &format!(
            "module \"m\" {{\n  source = \"./m\"\n}}\nlocals {{\n  x = [{}]\n}}\n",
            "1,".repeat(260_000)
        ),
    );
    c.write(
        "imports.py",
        &format!("import os\nx = [{}]\n", "1,".repeat(260_000)),
    );
    let bicep = "resource c 'Microsoft.MachineLearningServices/workspaces/computes@2024-04-01' = {\n  name: 'ws/gpu'\n}\n";
    c.write(
        "main.bicep",
        &format!("{bicep}var x = [\n{}]\n", "1\n".repeat(130_000)),
    );
    c.write(
        "make.py",
        &format!("AmlCompute(name='gpu')\nx = [{}]\n", "1,".repeat(260_000)),
    );
    let outputs = vec!["a"; 260_000];
    let nb = serde_json::json!({
        "cells": [
            {"cell_type": "code", "source": "AmlCompute(name='gpu', size='Standard_NC6')\n",
             "outputs": [{"output_type": "stream", "name": "stdout", "text": outputs}]}
        ],
        "metadata": {"kernelspec": {"language": "python"}}
    });
    c.write("train.ipynb", &nb.to_string());
    let out = c
        .amlint()
        .args(["check", "--no-config", "--format", "concise", "."])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for (file, why) in [
        (
            "main.tf",
            "it has more than 250000 tokens, the most the Terraform reader parses",
        ),
        (
            "main.bicep",
            "it has more than 250000 tokens, the most the Bicep reader parses",
        ),
        (
            "make.py",
            "its Python has more than 250000 tokens, the most the Python SDK reader parses",
        ),
        (
            "train.ipynb",
            "its JSON is beyond a limit of the loader (this file has more than 250000 nodes",
        ),
    ] {
        let line =
            format!("{file}:1:1: AML005 [warning] the computes this file may define were not read: {why}");
        assert!(stdout.contains(&line), "{line}\n{stdout}");
    }
    for quiet in ["data.tf", "calls.tf", "imports.py"] {
        assert!(!stdout.contains(quiet), "{quiet}: {stdout}");
    }
}

/// Defect 16: `--write-baseline` renamed over links, pipes and devices, and reset the
/// file's mode. Only a regular file is replaced, keeping its mode.
#[test]
fn the_baseline_is_written_only_as_a_regular_file() {
    let c = case();
    c.write("job.yml", JOB);
    c.link("/dev/null", "null.json");
    c.link(&c.secret, "secret.json");
    c.fifo("pipe.json");
    for name in ["null.json", "secret.json", "pipe.json"] {
        let out = c
            .amlint()
            .args(["check", "--no-config", "--write-baseline", name, "."])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}: {}", text(&out));
        assert!(text(&out).contains("writes only regular files"), "{}", text(&out));
    }
    assert!(
        std::fs::symlink_metadata(c.root.join("null.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&c.secret).unwrap(), SECRET);
    let baseline = c.write("baseline.json", "{}");
    std::fs::set_permissions(&baseline, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = c
        .amlint()
        .args(["check", "--no-config", "--write-baseline", "baseline.json", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let meta = std::fs::metadata(&baseline).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(std::fs::read_to_string(&baseline).unwrap().contains("AML002"));
}

/// Defect 17: standard input, `--baseline` and `amlint init`'s read of `pyproject.toml`
/// were read without a bound (and a baseline or `pyproject.toml` through any link).
#[test]
fn stdin_baselines_and_init_are_read_with_a_bound() {
    let c = case();
    // Endless standard input: read up to the size limit, then AML005.
    let out = c.amlint_limited_stdin(&[
        "check",
        "--no-config",
        "--format",
        "json",
        "--max-file-size",
        "1000",
        "-",
    ]);
    assert_eq!(codes_of(&findings(&out), "<stdin>"), ["AML005"], "{}", text(&out));
    // A baseline that never ends, a pipe, a link out of the project, one too large.
    c.link("/dev/zero", "zero.json");
    c.fifo("pipe.json");
    c.link(&c.secret, "secret.json");
    let big = std::fs::File::create(c.root.join("big.json")).unwrap();
    big.set_len(200 * 1024 * 1024).unwrap();
    c.write("job.yml", JOB);
    for (name, says) in [
        ("zero.json", "outside the project"),
        ("pipe.json", "named pipe"),
        ("secret.json", "outside the project"),
        ("big.json", "limit"),
    ] {
        let out = c.amlint_limited(&["check", "--no-config", "--baseline", name, "."]);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {all}");
        assert!(all.contains(says) && !all.contains("hunter2"), "{name}: {all}");
    }
    // `init` reads `pyproject.toml` to see whether it configures amlint.
    for how in ["zero", "fifo", "secret", "big"] {
        let c = case();
        match how {
            "zero" => c.link("/dev/zero", "pyproject.toml"),
            "fifo" => c.fifo("pyproject.toml"),
            "big" => {
                let big = std::fs::File::create(c.root.join("pyproject.toml")).unwrap();
                big.set_len(200 * 1024 * 1024).unwrap();
            }
            _ => c.link(&c.secret, "pyproject.toml"),
        }
        let out = c.amlint_limited(&["init"]);
        assert_eq!(out.status.code(), Some(2), "{how}: {}", text(&out));
        assert!(!c.root.join("amlint.toml").exists());
    }
    // `init` never writes through a link (even one to nothing) or over a pipe.
    let c = case();
    c.link(c.root.join("elsewhere.toml"), "amlint.toml");
    let out = c.amlint().arg("init").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(!c.root.join("elsewhere.toml").exists());
    let c = case();
    let out = c.amlint().arg("init").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        std::fs::read_to_string(c.root.join("amlint.toml"))
            .unwrap()
            .contains("amlint")
    );
}

impl Case {
    /// [`Case::amlint_limited`] with `/dev/zero` as standard input.
    fn amlint_limited_stdin(&self, args: &[&str]) -> Output {
        // The file itself as standard input (assert_cmd's `pipe_stdin` would read it
        // whole first).
        let zero = std::fs::File::open("/dev/zero").unwrap();
        let out = std::process::Command::new("timeout")
            .arg(BOUND.as_secs().to_string())
            .arg("prlimit")
            .arg("--as=268435456")
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_amlint"))
            .args(args)
            .current_dir(&self.root)
            .stdin(zero)
            .output()
            .unwrap();
        assert!(out.status.code().is_some(), "killed: {out:?}");
        out
    }
}

/// Defect 19: control characters in a file name were printed raw to the terminal (an
/// escape sequence could clear the screen or hide findings). Human output escapes them;
/// JSON escapes them by its format.
#[test]
fn control_characters_in_file_names_are_escaped() {
    let c = case();
    c.write("evil\u{1b}[2J\r.yml", JOB);
    let out = c
        .amlint()
        .args(["check", "--no-config", "--color", "never", "."])
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(!all.contains('\u{1b}') && !all.contains('\r'), "{all:?}");
    assert!(all.contains("evil\\u{1b}[2J\\r.yml"), "{all}");
    let out = c
        .amlint()
        .args(["check", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    assert_eq!(codes_of(&findings(&out), "evil\u{1b}[2J\r.yml"), ["AML002"]);
}

/// Under pre-commit only the changed files are named; a name they use is searched for in
/// the rest of the project. That search walks it too: an ignore file there that is a
/// pipe is refused (a configuration error, as in a walk of the whole project) instead of
/// hanging the hook.
#[test]
fn the_search_of_the_rest_of_the_project_refuses_ignore_files_too() {
    let c = case();
    c.write(
        "jobs/job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: azureml:cpu-cluster\n",
    );
    c.write(
        "computes/cluster.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: cpu-cluster\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 0\nmax_instances: 2\n",
    );
    c.fifo("other/.gitignore");
    let out = c
        .amlint()
        .args(["check", "--no-config", "jobs/job.yml"])
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("other/.gitignore") && all.contains("named pipe"),
        "{all}"
    );
    // Named as the whole run names it, relative to the working directory (audit 12,
    // case 02): from a subfolder through `..`, never as the machine's absolute path.
    let root = c.root.to_string_lossy().into_owned();
    assert!(!all.contains(&root), "{all}");
    let out = c
        .amlint()
        .current_dir(c.root.join("jobs"))
        .args(["check", "--no-config", "job.yml"])
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("../other/.gitignore") && !all.contains(&root),
        "{all}"
    );
    // Without it, the name is found and the file is clean.
    std::fs::remove_file(c.root.join("other/.gitignore")).unwrap();
    let out = c
        .amlint()
        .args(["check", "--no-config", "jobs/job.yml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// A command job with one safe fix: AML107 removes the read-only `status`.
const FIXABLE: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo\nenvironment: azureml:env:1\nstatus: x\n";

/// Uid and gid of the user the unprivileged cases run as.
const NOBODY: u32 = 65534;

/// `amlint ARGS` run in `dir` as the unprivileged user [`NOBODY`] (with `groups` too),
/// through `setpriv`; `None` (said to be skipped) when the tests do not run as root or
/// `setpriv` is missing.
fn as_nobody(c: &Case, dir: &Path, groups: &[u32], args: &[&str]) -> Option<Output> {
    use std::os::unix::fs::MetadataExt;
    let root = std::fs::metadata(&c.root).unwrap().uid() == 0 && unsafe { libc::geteuid() } == 0;
    if !root || Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipped: the case needs root and setpriv to run as another user");
        return None;
    }
    // The unprivileged user must reach the project and the binary.
    for d in c.root.ancestors() {
        if d.starts_with(std::env::temp_dir()) && d != std::env::temp_dir() && d != dir {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let groups = if groups.is_empty() {
        "--clear-groups".to_string()
    } else {
        format!(
            "--groups={}",
            groups.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
        )
    };
    let out = Command::new("setpriv")
        .args([
            format!("--reuid={NOBODY}"),
            format!("--regid={NOBODY}"),
            groups,
            "--".to_string(),
        ])
        .arg(env!("CARGO_BIN_EXE_amlint"))
        .args(args)
        .current_dir(dir)
        .env("AMLINT_TODAY", "2026-11-22")
        .timeout(BOUND)
        .output()
        .unwrap();
    Some(out)
}

fn owner(path: &Path) -> (u32, u32) {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).unwrap();
    (m.uid(), m.gid())
}

/// Issue 34, defect 10: `--fix` replaced a file with a second hard link by a new file,
/// splitting the two names (the other kept the old text). It is refused, said, and the
/// run exits 2; the summary counts nothing fixed.
#[test]
fn fix_refuses_a_file_with_other_hard_links() {
    let c = case();
    let file = c.write("job.yml", FIXABLE);
    std::fs::hard_link(&file, c.root.join("other-name.yml")).unwrap();
    let out = c
        .amlint()
        .args(["check", "--no-config", "--fix", "--format", "concise", "job.yml"])
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("job.yml: not fixed: the file has 2 hard links"),
        "{all}"
    );
    assert!(all.contains("Fixed 0 findings in 0 files ("), "{all}");
    assert!(all.contains("1 file not written, see above)"), "{all}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), FIXABLE);
    let (a, b) = (
        std::fs::metadata(&file).unwrap(),
        std::fs::metadata(c.root.join("other-name.yml")).unwrap(),
    );
    use std::os::unix::fs::MetadataExt;
    assert_eq!((a.ino(), a.nlink()), (b.ino(), 2), "still one file");
}

/// Issue 34, defect 10: run as a user who may not write a file in a folder it may write,
/// `--fix` replaced the file (its owner changed to that user); in a folder it may not
/// write, it exited 2 but printed "Fixed 1 finding"; a file of another owner the user may
/// write (its group's) was replaced with the user as owner. Each is refused, said, not
/// counted, and the run exits 2; the file is as it was, with its owner.
#[test]
fn fix_as_another_user_writes_only_what_it_may_write_as_it_is_owned() {
    use std::os::unix::fs::PermissionsExt as _;
    let c = case();
    let set_mode =
        |p: &Path, mode: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    // A folder anyone may write, a file only root may.
    let open = c.root.join("open");
    let file = c.write("open/job.yml", FIXABLE);
    set_mode(&open, 0o777);
    set_mode(&file, 0o644);
    // A folder only root may write, a file anyone may.
    let closed = c.root.join("closed");
    let closed_file = c.write("closed/job.yml", FIXABLE);
    set_mode(&closed, 0o755);
    set_mode(&closed_file, 0o666);
    // A file of root and group 4242 the group may write, in a folder anyone may write.
    let shared = c.root.join("shared");
    let shared_file = c.write("shared/job.yml", FIXABLE);
    set_mode(&shared, 0o777);
    set_mode(&shared_file, 0o664);
    let chown = |p: &Path, uid: u32, gid: u32| std::os::unix::fs::chown(p, Some(uid), Some(gid));
    if chown(&shared_file, 0, 4242).is_err() {
        eprintln!("skipped: not root");
        return;
    }
    let args = ["check", "--no-config", "--fix", "--format", "concise", "job.yml"];
    for (dir, path, groups, why) in [
        (&open, &file, &[][..], "you may not write this file"),
        (
            &closed,
            &closed_file,
            &[][..],
            "its directory does not allow that",
        ),
        (
            &shared,
            &shared_file,
            &[4242][..],
            "belongs to another user or group",
        ),
    ] {
        let before = owner(path);
        let Some(out) = as_nobody(&c, dir, groups, &args) else {
            return;
        };
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{why}: {all}");
        assert!(
            all.contains("job.yml: not fixed: ") && all.contains(why),
            "{why}: {all}"
        );
        assert!(all.contains("Fixed 0 findings in 0 files ("), "{why}: {all}");
        assert_eq!(std::fs::read_to_string(path).unwrap(), FIXABLE, "{why}");
        assert_eq!(owner(path), before, "{why}");
    }
    // Root fixing another user's file keeps its owner.
    let theirs = c.write("theirs/job.yml", FIXABLE);
    chown(&theirs, NOBODY, NOBODY).unwrap();
    let out = c
        .amlint()
        .args([
            "check",
            "--no-config",
            "--fix",
            "--format",
            "concise",
            "theirs/job.yml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!std::fs::read_to_string(&theirs).unwrap().contains("status"));
    assert_eq!(owner(&theirs), (NOBODY, NOBODY));
}

/// AML206 reads the conda file an environment names: a pipe, a link to `/dev/zero` or to
/// a file outside the project, a directory, an alias bomb and a deeply nested file are
/// each refused or read within bounds (256 MB of address space, no hang), and what lies
/// outside is never shown.
#[test]
fn conda_files_that_never_end_lead_out_or_explode_are_read_safely() {
    let c = case();
    c.fifo("envs/pipe.yml");
    c.link("/dev/zero", "envs/zero.yml");
    c.link(&c.secret, "envs/secret.yml");
    std::fs::create_dir_all(c.root.join("envs/dir.yml")).unwrap();
    // Each alias repeats the one before three times: 3^40 nodes if expanded.
    let mut bomb = String::from("a0: &a0 [x, x, x]\n");
    for i in 1..40 {
        bomb.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}]\n", p = i - 1));
    }
    c.write("envs/bomb.yml", &bomb);
    c.write(
        "envs/deep.yml",
        &format!("dependencies: {}{}\n", "[".repeat(20_000), "]".repeat(20_000)),
    );
    c.write(
        "envs/broken.yml",
        "dependencies:\n  -pip:\n    - numpy\n\tbad: tab\n",
    );
    let targets = ["pipe", "zero", "secret", "dir", "bomb", "deep", "broken"];
    for t in targets {
        c.write(
            &format!("envs/env-{t}.yml"),
            &format!(
                "$schema: https://azuremlschemas.azureedge.net/latest/environment.schema.json\nname: e-{t}\nimage: mcr.microsoft.com/azureml/openmpi4.1.0-ubuntu20.04\nconda_file: {t}.yml\n"
            ),
        );
    }
    let out = c.amlint_limited(&[
        "check",
        "--no-config",
        "--format",
        "json",
        "--fail-on",
        "never",
        "envs",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!text(&out).contains("hunter2"), "{}", text(&out));
    let f = findings(&out);
    let codes = |t: &str| codes_of(&f, &format!("envs/env-{t}.yml"));
    assert_eq!(codes("zero"), ["AML201"], "{f:?}");
    assert_eq!(codes("secret"), ["AML201"], "{f:?}");
    assert_eq!(codes("dir"), ["AML201"], "{f:?}");
    // The pipe is never opened (the walk reports it itself); the bomb is a mapping of
    // lists, never expanded; the nesting is past the reader's depth bound: not judged.
    assert!(codes("pipe").is_empty(), "{f:?}");
    assert!(codes("bomb").is_empty(), "{f:?}");
    assert!(codes("deep").is_empty(), "{f:?}");
    assert_eq!(codes("broken"), ["AML206"], "{f:?}");
    assert_eq!(codes_of(&f, "envs/pipe.yml"), ["AML004"], "{f:?}");
}
