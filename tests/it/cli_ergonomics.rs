//! The command line's output ergonomics (issue 24): `--format concise`, `--statistics`,
//! `--select`/`--extend-select`/`--ignore` over the configuration, `--show-settings`,
//! `--output-file`, `--quiet` and infos in the summary, shell completions.

use super::common::{amlint, project, write};

/// A cluster with two warnings fixable with --unsafe-fixes (AML601, AML702) and an info
/// (AML704); a job with an error (AML101, safe fix), a warning (AML003, safe fix) and an
/// error on the same value (AML102: a tag must be text).
fn sample() -> tempfile::TempDir {
    let dir = project();
    write(
        dir.path(),
        "cluster.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: gpu-cluster\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 2\n",
    );
    write(
        dir.path(),
        "job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncomand: echo\nenvironment: azureml:env:1\ncompute: azureml:gpu-cluster\ntags: {nightly: on}\n",
    );
    dir
}

fn run(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = amlint(dir).arg("check").args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn concise_is_one_line_per_finding() {
    let dir = sample();
    let (code, out, _) = run(dir.path(), &["--format", "concise"]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "cluster.yml:2:7: AML702 [warning] the nodes of `gpu-cluster` get public IP addresses: `enable_node_public_ip: false` is not set, and public IPs are the default"
    );
    assert!(lines.contains(&"cluster.yml:2:7: AML704 [info] `gpu-cluster` is not placed in a virtual network (no `network_settings.subnet`)"), "{out}");
    // `[*]`: --fix fixes it.
    assert!(
        lines.iter().any(
            |l| l.starts_with("job.yml:2:1: AML101 [error] `comand` is not a key") && l.ends_with(" [*]")
        ),
        "{out}"
    );
    let findings = lines.iter().filter(|l| l.contains(": AML")).count();
    assert_eq!(findings, 6, "{out}");
    assert_eq!(
        lines[lines.len() - 2],
        "2 fixable with `amlint check --fix` (2 more with `--unsafe-fixes`)"
    );
    assert_eq!(
        lines[lines.len() - 1],
        "2 files checked, 0 skipped: 2 errors, 3 warnings; 1 info"
    );
    // The default format is unchanged: miette's report.
    let (_, human, _) = run(dir.path(), &["--color", "never"]);
    assert!(human.contains("AML702 node-public-ip-enabled\n"), "{human}");
    assert!(human.lines().count() > 3 * findings, "{human}");
}

#[test]
fn quiet_hides_infos_and_the_summary() {
    let dir = sample();
    let (code, out, _) = run(dir.path(), &["--format", "concise", "--quiet"]);
    assert_eq!(code, 1);
    assert!(!out.contains("[info]"), "{out}");
    assert!(!out.contains("files checked"), "{out}");
    assert_eq!(out.lines().count(), 5, "{out}");
    let (_, human, _) = run(dir.path(), &["--quiet", "--color", "never"]);
    assert!(!human.contains("AML704"), "{human}");
    assert!(human.contains("AML702"), "{human}");
    // GitHub annotations: no notices under --quiet, the warnings stay.
    let (_, github, _) = run(dir.path(), &["--format", "github"]);
    assert!(
        github.contains("::notice ") && github.contains("AML704"),
        "{github}"
    );
    let (_, github, _) = run(dir.path(), &["--format", "github", "--quiet"]);
    assert!(
        !github.contains("::notice ") && !github.contains("AML704"),
        "{github}"
    );
    assert!(
        github.contains("::warning ") && github.contains("AML702"),
        "{github}"
    );
    // The exit code still counts what --quiet hides.
    let (code, _, _) = run(
        dir.path(),
        &["--quiet", "--fail-on", "info", "--select", "AML704"],
    );
    assert_eq!(code, 1);
}

#[test]
fn statistics_count_by_rule_with_fixable_counts() {
    let dir = sample();
    let (code, out, _) = run(dir.path(), &["--statistics"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("AML601  cluster-min-instances-nonzero  warning  [1 with --unsafe-fixes]"),
        "{out}"
    );
    assert!(out.contains("AML101  unknown-key"), "{out}");
    assert!(
        out.ends_with(
            "6 findings of 6 rules; 2 fixable with --fix, 2 more with --unsafe-fixes\n\
             1 compute defined in 1 definition; 1 compute reference: 1 to a definition of the project, 0 to [inventory], 0 unresolved\n"
        ),
        "{out}"
    );
    let (_, json, _) = run(dir.path(), &["--statistics", "--format", "json"]);
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let aml101 = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["code"] == "AML101")
        .unwrap();
    assert_eq!(aml101["count"], 1);
    assert_eq!(aml101["fixable"], 1);
    assert_eq!(aml101["severity"], "error");
    let (_, clean, _) = run(dir.path(), &["--statistics", "--select", "AML505"]);
    assert_eq!(
        clean,
        "no findings\n1 compute defined in 1 definition; 1 compute reference: 1 to a definition of the project, 0 to [inventory], 0 unresolved\n"
    );
}

#[test]
fn selection_on_the_command_line_wins_over_the_configuration() {
    let dir = sample();
    write(
        dir.path(),
        "amlint.toml",
        "ignore = [\"AML702\"]\n[severity]\nAML601 = \"off\"\n",
    );
    let codes = |args: &[&str]| -> Vec<String> {
        let (_, out, err) = run(dir.path(), &[&["--format", "concise", "--quiet"], args].concat());
        assert!(err.is_empty(), "{err}");
        let mut codes: Vec<String> = out
            .lines()
            .filter_map(|l| l.split(": ").nth(1))
            .map(|c| c.split(' ').next().unwrap().to_string())
            .collect();
        codes.sort();
        codes.dedup();
        codes
    };
    assert_eq!(codes(&[]), ["AML003", "AML101", "AML102"]);
    // The command line's most specific selector decides: AML7 selects AML702 though the
    // configuration ignores it.
    assert_eq!(codes(&["--select", "AML7"]), ["AML702"]);
    assert_eq!(codes(&["--select", "AML702,AML003"]), ["AML003", "AML702"]);
    assert_eq!(
        codes(&["--select", "AML702", "--select", "AML003"]),
        ["AML003", "AML702"]
    );
    assert_eq!(
        codes(&["--extend-select", "node-public-ip-enabled"]),
        ["AML003", "AML101", "AML102", "AML702"]
    );
    // `off` in [severity] is overridden by naming the rule; it keeps its default severity.
    let (_, out, _) = run(dir.path(), &["--format", "concise", "--select", "AML601"]);
    assert!(out.contains("AML601 [warning]"), "{out}");
    assert_eq!(codes(&["--ignore", "AML0"]), ["AML101", "AML102"]);
    assert_eq!(
        codes(&["--select", "AML1", "--ignore", "unknown-key"]),
        ["AML102"]
    );
    // An unknown selector is a usage error, with the option and a suggestion.
    let (code, _, err) = run(dir.path(), &["--ignore", "unknown-keys"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--ignore: `unknown-keys` is not a rule code"),
        "{err}"
    );
    assert!(err.contains("Did you mean `unknown-key`?"), "{err}");
}

#[test]
fn show_settings_says_where_each_value_comes_from() {
    let dir = sample();
    write(
        dir.path(),
        "amlint.toml",
        "profile = \"production\"\nignore = [\"AML702\"]\n\n[severity]\nAML601 = \"error\"\n[params]\napproved_vm_series = [\"Dsv2\"]\n",
    );
    let (code, out, _) = run(
        dir.path(),
        &["--show-settings", "--extend-select", "AML702", "cluster.yml"],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("# cluster.yml\nconfiguration = "), "{out}");
    assert!(out.contains("profile = \"production\"  # "), "{out}");
    assert!(out.contains("ignore = [\"AML702\"]  # amlint.toml:2\n"), "{out}");
    assert!(out.contains("select = [\"ALL\"]  # default\n"), "{out}");
    assert!(
        out.contains("params.approved_vm_series = [\"Dsv2\"]  # amlint.toml:7\n"),
        "{out}"
    );
    assert!(
        out.contains("extend-select = [\"AML702\"]  # command line (--extend-select)"),
        "{out}"
    );
    assert!(
        out.contains("AML702 node-public-ip-enabled = warning  # command line (--extend-select AML702)"),
        "{out}"
    );
    assert!(
        out.contains(
            "AML601 cluster-min-instances-nonzero = error  # selected: default; amlint.toml [severity]\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("AML101 unknown-key = error  # selected: default; default severity\n"),
        "{out}"
    );
    // A rule's own severity under the profile (AML203 is an info, a warning in production).
    assert!(
        out.contains("AML203 unresolved-compute = warning  # selected: default; default severity\n"),
        "{out}"
    );
    // Values an `extend` chain brings name the file they come from.
    write(
        dir.path(),
        "base.toml",
        "ignore = [\"AML702\"]\n[severity]\nAML601 = \"error\"\n",
    );
    write(
        dir.path(),
        "amlint.toml",
        "extend = \"base.toml\"\nextend-select = [\"AML5\"]\n",
    );
    let (_, out, _) = run(dir.path(), &["--show-settings", "cluster.yml"]);
    assert!(out.contains("ignore = [\"AML702\"]  # base.toml\n"), "{out}");
    assert!(
        out.contains("extend-select = [\"AML5\"]  # amlint.toml:2\n"),
        "{out}"
    );
    assert!(
        out.contains("AML702 node-public-ip-enabled = off  # not selected: base.toml\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "AML503 vm-series-requires-approval = warning  # selected: amlint.toml:2; default severity\n"
        ),
        "{out}"
    );
    let (_, out, _) = run(dir.path(), &["--show-settings", "--no-config", "job.yml"]);
    assert!(out.contains("configuration = none (amlint's defaults)"), "{out}");
    assert!(
        out.contains("AML101 unknown-key = error  # selected: default; default severity"),
        "{out}"
    );
}

#[test]
fn output_file_is_written_atomically_and_a_failed_write_is_exit_2() {
    let dir = sample();
    let (code, out, _) = run(dir.path(), &["--format", "json", "--output-file", "report.json"]);
    assert_eq!(code, 1);
    assert!(out.is_empty(), "{out}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap();
    assert_eq!(report["summary"]["errors"], 2);
    // Replaced on the next run.
    let (_, _, _) = run(
        dir.path(),
        &["--format", "concise", "-o", "report.json", "--select", "AML101"],
    );
    let text = std::fs::read_to_string(dir.path().join("report.json")).unwrap();
    assert!(text.starts_with("job.yml:2:1: AML101"), "{text}");
    // A directory, or a missing one, cannot be written: exit 2 whatever the findings.
    std::fs::create_dir(dir.path().join("out")).unwrap();
    for target in ["out", "missing/report.txt"] {
        let (code, _, err) = run(dir.path(), &["--output-file", target]);
        assert_eq!(code, 2, "{target}: {err}");
        assert!(err.contains("cannot write"), "{err}");
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("report.json", dir.path().join("link.json")).unwrap();
        let (code, _, err) = run(dir.path(), &["--output-file", "link.json"]);
        assert_eq!(code, 2, "{err}");
        assert!(
            std::fs::symlink_metadata(dir.path().join("link.json"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
}

#[test]
fn the_summary_sets_infos_apart() {
    let dir = project();
    write(
        dir.path(),
        "cluster.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\nsize: Standard_DS3_v2\nenable_node_public_ip: false\n",
    );
    let (code, out, _) = run(dir.path(), &["--color", "never"]);
    assert_eq!(code, 0);
    assert!(
        out.ends_with("1 file checked, 0 skipped: no errors or warnings; 1 info\n"),
        "{out}"
    );
}

#[test]
fn completions_for_every_shell() {
    let dir = project();
    for (shell, mark) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef amlint"),
        ("fish", "complete -c amlint"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = amlint(dir.path()).args(["completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(mark), "{shell}: {text}");
        assert!(
            text.contains("unsafe-fixes"),
            "{shell}: the check flags are completed"
        );
    }
    let out = amlint(dir.path()).args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn concise_and_statistics_escape_what_comes_from_files() {
    let dir = project();
    write(
        dir.path(),
        "job\u{1b}[2J.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo\nenvironment: azureml:env:1\ncompute: azureml:c\n\"::error x\u{1b}[31m\": 1\n",
    );
    let (_, out, _) = run(dir.path(), &["--format", "concise"]);
    assert!(!out.contains('\u{1b}'), "{out:?}");
    assert!(out.contains("job\\u{1b}[2J.yml:"), "{out}");
    assert!(out.lines().all(|l| !l.trim_start().starts_with("::")), "{out}");
}
