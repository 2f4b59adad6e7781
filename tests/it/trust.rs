//! Issue 34, "trust by construction": the guards that make whole classes of attack
//! impossible (docs/security.md), each defect of the issue as a regression test. The
//! project is a git work tree unless a case says otherwise; a file outside it holds
//! [`SECRET`], which must never appear in any output.

use std::path::Path;

use super::hostile_fs::{JOB, SECRET, case, codes_of, findings, text};

/// A component file outside the project, with an input name that must not be shown.
const OUTSIDE_COMPONENT: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandComponent.schema.json\ntype: command\nname: outside\ninputs:\n  LEAKED_INPUT_NAME: {type: string}\ncommand: echo ${{inputs.LEAKED_INPUT_NAME}}\nenvironment: azureml:x@latest\n";

fn pipeline_naming(component: &str) -> String {
    format!(
        "$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json\ntype: pipeline\njobs:\n  a:\n    type: command\n    component: {component}\n"
    )
}

/// Defect 2: a step's `component:` outside the repository (absolute, `file:`, `../..`, or
/// through a link) was parsed and its input names printed by AML806. Now it is not read:
/// one AML201 that says it leads outside, the same whether or not the file exists.
#[test]
fn a_component_outside_the_project_is_never_read() {
    let c = case();
    let outside = c.secret.parent().unwrap().join("c.yml");
    std::fs::write(&outside, OUTSIDE_COMPONENT).unwrap();
    let missing = c.secret.parent().unwrap().join("missing.yml");
    c.link(&outside, "ml/linked.yml");
    let rel = pathdiff(&outside, &c.root.join("ml"));
    for (component, exists) in [
        (outside.display().to_string(), true),
        (format!("file:{}", outside.display()), true),
        (rel.clone(), true),
        ("linked.yml".to_string(), true),
        (missing.display().to_string(), false),
        (format!("file:{}", missing.display()), false),
    ] {
        c.write("ml/pipe.yml", &pipeline_naming(&component));
        c.write("ml/other.yml", "a: 1\n");
        // The whole project, and one file as pre-commit checks it.
        for args in [
            &["check", "--format", "json", "."][..],
            &["check", "--format", "json", "ml/pipe.yml"],
        ] {
            let out = c.amlint().args(args).output().unwrap();
            let all = text(&out);
            assert!(!all.contains("LEAKED_INPUT_NAME"), "{component} {args:?}: {all}");
            let f = findings(&out);
            assert_eq!(
                codes_of(&f, "ml/pipe.yml"),
                ["AML201"],
                "{component} ({exists}) {args:?}: {all}"
            );
            let message = &f.iter().find(|(p, _, _)| p == "ml/pipe.yml").unwrap().2;
            assert!(message.contains("outside the project"), "{component}: {message}");
        }
    }
}

/// `a/b` from `base`, as a relative path with `..`.
fn pathdiff(target: &Path, base: &Path) -> String {
    let t: Vec<_> = target.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out: Vec<String> = vec!["..".to_string(); b.len() - common];
    out.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    out.join("/")
}

/// Defect 5: `extend = ".git/config"` showed the remote URL (with its token) in the TOML
/// error's snippet; `extend = "/etc/shadow"` and a path that does not exist had different
/// messages (an existence oracle). `.git` is never a configuration; outside reads the same
/// either way.
#[test]
fn extend_never_reads_git_data_and_outside_reads_the_same_whether_it_exists() {
    let c = case();
    c.write("job.yml", JOB);
    c.write(
        ".git/config",
        "[remote \"origin\"]\n\turl = https://user:ghp_LEAKEDTOKEN@github.com/o/r.git\n",
    );
    for name in [".git/config", "./.git/../.git/config", "sub/../.git/config"] {
        c.write("amlint.toml", &format!("extend = \"{name}\"\n"));
        let out = c
            .amlint()
            .args(["check", "--format", "json", "."])
            .output()
            .unwrap();
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{all}");
        assert!(!all.contains("LEAKEDTOKEN") && !all.contains("remote"), "{all}");
        assert!(all.contains("`.git` directory"), "{all}");
    }
    // A link in the project to its own git data is git data too.
    c.link(c.root.join(".git/config"), "shared.toml");
    c.write("amlint.toml", "extend = \"shared.toml\"\n");
    let all = text(
        &c.amlint()
            .args(["check", "--format", "json", "."])
            .output()
            .unwrap(),
    );
    assert!(
        !all.contains("LEAKEDTOKEN") && all.contains("`.git` directory"),
        "{all}"
    );

    let messages: Vec<String> = [
        c.secret.display().to_string(),
        c.secret
            .parent()
            .unwrap()
            .join("absent.toml")
            .display()
            .to_string(),
        "/etc/shadow".to_string(),
        "/nonexistent/amlint.toml".to_string(),
    ]
    .iter()
    .map(|target| {
        c.write("amlint.toml", &format!("extend = \"{target}\"\n"));
        let out = c
            .amlint()
            .args(["check", "--format", "json", "."])
            .output()
            .unwrap();
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{all}");
        assert!(!all.contains("hunter2"), "{all}");
        assert!(!all.contains("symbolic link"), "{target}: {all}");
        // What the message says, with the path itself taken out.
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json["configuration_errors"][0]["message"]
            .as_str()
            .unwrap()
            .replace(target.as_str(), "TARGET")
    })
    .collect();
    assert!(messages.windows(2).all(|w| w[0] == w[1]), "{messages:#?}");
}

/// Guard 2: one project boundary. Outside a git work tree, a nested configuration's
/// `rules-dirs = ["../policies"]` (a folder of the same project) was refused as outside
/// its own directory, and the run reported nothing. The boundary is the start directory.
#[test]
fn a_nested_configuration_may_name_a_folder_of_the_same_project() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let write = |name: &str, text: &str| {
        let p = root.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "team/compute.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: gpu\ntype: amlcompute\nsize: Standard_ND96asr_v4\nmin_instances: 0\nmax_instances: 2\n",
    );
    write("team/amlint.toml", "rules-dirs = [\"../policies\"]\n");
    let org001 =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/policies/ORG001-vm-series-allow-list.yaml");
    write("policies/ORG001.yaml", &std::fs::read_to_string(org001).unwrap());
    let out = assert_cmd::Command::cargo_bin("amlint")
        .unwrap()
        .current_dir(&root)
        .args(["check", "--format", "json", "."])
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let f = findings(&out);
    assert!(codes_of(&f, "team/compute.yml").contains(&"ORG001"), "{all}");
}

/// Defect 1: `amlint test`'s `.expect` file linked to `/proc/self/environ` was printed;
/// linked to a FIFO it hung; to `/dev/zero` it read until memory ran out.
#[test]
fn expectation_files_are_read_like_every_other_file() {
    let c = case();
    c.write("cases/job.yml", JOB);
    for target in ["/proc/self/environ", "/dev/zero"] {
        let _ = std::fs::remove_file(c.root.join("cases/job.yml.expect"));
        c.link(target, "cases/job.yml.expect");
        let out = c.amlint_limited(&["test", "--user-only", "cases"]);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(1), "{target}: {all}");
        assert!(
            all.contains("outside the project") && !all.contains("PATH="),
            "{target}: {all}"
        );
    }
    std::fs::remove_file(c.root.join("cases/job.yml.expect")).unwrap();
    c.fifo("cases/job.yml.expect");
    let all = text(&c.amlint_limited(&["test", "--user-only", "cases"]));
    assert!(all.contains("named pipe"), "{all}");
    // A case file that is a link out of the project is not read either.
    std::fs::remove_file(c.root.join("cases/job.yml.expect")).unwrap();
    c.link(&c.secret, "cases/secret.yml");
    let all = text(&c.amlint_limited(&["test", "--user-only", "cases"]));
    assert!(!all.contains("hunter2"), "{all}");
    assert!(SECRET.contains("hunter2"));
}

/// Defect 3: `amlint check .` passed a file that does not parse — a tab after `$schema:`,
/// a no-break space after the colon, an unclosed quote, a leading tab — as "0 files
/// checked, 1 skipped", exit 0, while `check FILE` reported AML001. A file that names an
/// Azure ML schema or has the keys of an Azure ML configuration is reported; broken YAML
/// that is not Azure ML (a Helm template, a workflow, a conda file) stays skipped.
#[test]
fn a_broken_azure_ml_file_is_reported_not_skipped() {
    const URL: &str = "https://azuremlschemas.azureedge.net/latest/commandJob.schema.json";
    let broken = [
        format!("$schema:\t{URL}\ncommand: echo\n"),
        format!("$schema:\u{a0}{URL}\ncommand: echo\n"),
        format!("$schema: {URL}\ncommand: \"echo\n"),
        format!("\tcommand: echo\n$schema: {URL}\n"),
        "\ttype: command\ncommand: python train.py\ncompute: azureml:cpu\nenvironment: azureml:env:1\n"
            .to_string(),
        "name: cpu\ntype: amlcompute\nsize:\tStandard_DS3_v2\n".to_string(),
    ];
    for body in &broken {
        let c = case();
        c.write("ml/job.yml", body);
        let out = c
            .amlint()
            .args(["check", "--format", "json", "."])
            .output()
            .unwrap();
        let all = text(&out);
        assert_eq!(out.status.code(), Some(1), "{body:?}: {all}");
        assert_eq!(
            codes_of(&findings(&out), "ml/job.yml"),
            ["AML001"],
            "{body:?}: {all}"
        );
        let shown = c.amlint().args(["check", "--show-files", "."]).output().unwrap();
        assert!(text(&shown).contains("1 checked, 0 skipped"), "{}", text(&shown));
    }
    for (name, body) in [
        (
            "chart/templates/svc.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Values.name }}\n{{- if .Values.x }}\nspec:\n\tfoo: 1\n{{- end }}\n",
        ),
        (
            "ci/workflow.yml",
            "name: CI\non: [push]\njobs:\n  build:\n\truns-on: ubuntu\n",
        ),
        (
            "env/conda.yml",
            "name: env\nchannels:\n - conda-forge\ndependencies:\n\t- python\n",
        ),
        ("compose.yml", "version: \"3\"\nservices:\n  web:\n\timage: x\n"),
    ] {
        let c = case();
        c.write(name, body);
        let out = c
            .amlint()
            .args(["check", "--format", "json", "."])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out));
    }
}

/// Defect 6 (guard 5): file names holding ESC, BEL, a newline, `::` or RLO were printed
/// raw by `--show-files` and `--verbose`, and inside `file=` by `--format github`. Every
/// output now carries no raw control, line-separator or bidi character, and no line a
/// GitHub runner reads as a workflow command, but the annotations of `--format github`.
#[test]
fn file_names_are_escaped_in_every_output() {
    let c = case();
    let names = [
        "::error file=README.md,line=1::x.yml",
        "nl\nx.yml",
        "esc\u{1b}[31mred.yml",
        "bel\u{7}.yml",
        "rlo\u{202e}lmy.yml",
        "sep\u{2028}x.yml",
        "  ::warning::indented.yml",
    ];
    for name in names {
        c.write(name, JOB);
    }
    std::fs::create_dir_all(c.root.join("cases")).unwrap();
    for name in names {
        std::fs::write(c.root.join("cases").join(name), JOB).unwrap();
    }
    let runs: Vec<Vec<&str>> = vec![
        vec!["check", "--show-files", "."],
        vec!["check", "--show-files", "--verbose", "."],
        vec!["check", "--verbose", "."],
        vec!["check", "--statistics", "."],
        vec!["check", "--format", "human", "--color", "never", "."],
        vec!["check", "--format", "concise", "."],
        vec!["check", "--format", "json", "."],
        vec!["check", "--format", "sarif", "."],
        vec!["check", "--format", "junit", "."],
        vec!["check", "--format", "github", "."],
        vec!["check", "--diff", "."],
        vec!["test", "--user-only", "cases"],
    ];
    for args in runs {
        let out = c.amlint().args(&args).output().unwrap();
        let all = text(&out);
        assert!(out.status.code().is_some_and(|c| c <= 1), "{args:?}: {all}");
        let raw = all
            .chars()
            .find(|&ch| amlint::escape::needs_escape(ch) && ch != '\n' && ch != '\t');
        assert_eq!(raw, None, "{args:?}: a raw control character in {all:?}");
        let github = args.contains(&"github");
        for line in all.lines() {
            let t = line.trim_start();
            if t.starts_with("::") {
                assert!(
                    github && (t.starts_with("::error file=") || t.starts_with("::warning file=")),
                    "{args:?}: a workflow command: {line:?}"
                );
            }
            assert!(!line.contains("##["), "{args:?}: {line:?}");
        }
        if github {
            // One annotation per file (at the root and in `cases/`).
            let annotations = all.lines().filter(|l| l.starts_with("::error file=")).count();
            assert_eq!(annotations, 2 * names.len(), "{all}");
        }
    }
}

/// Defect 12: under `require-reason`, a reason that is only a zero-width space or only
/// punctuation was accepted. It is AML011 now; a reason in any script is one.
#[test]
fn a_reason_must_say_something() {
    let c = case();
    c.write("amlint.toml", "require-reason = true\n");
    for (reason, missing) in [
        ("\u{200b}", true),
        ("...", true),
        ("n/a", true),
        ("\u{2066}\u{2069}", true),
        ("quota ticket 4711", false),
        ("割り当て承認済み", false),
    ] {
        c.write(
            "job.yml",
            &format!("{}  # amlint: ignore[AML002] {reason}\n", JOB.trim_end()),
        );
        let out = c
            .amlint()
            .args(["check", "--format", "json", "."])
            .output()
            .unwrap();
        let codes = codes_of(&findings(&out), "job.yml").join(",");
        assert_eq!(codes.contains("AML011"), missing, "{reason:?}: {}", text(&out));
    }
}

/// A 3.5 MB inventory (the base configuration of the defect 7 cases).
fn big_inventory() -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.len() < 3_500_000 {
        out.push_str(&format!(
            "[[inventory.computes]]\nname = \"cluster-{i:06}\"\ntype = \"amlcompute\"\nsize = \"Standard_DS3_v2\"\n\n"
        ));
        i += 1;
    }
    out
}

/// A job naming a compute of [`big_inventory`].
const JOB_ON_CLUSTER: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo\nenvironment: azureml:e:1\ncompute: azureml:cluster-000001\n";

/// Defect 7 (guard 6): 60 folders each extending one 3.5 MB base took 9.7 s and 870 MB
/// (300: 40 s, 3.9 GB); a 3.5 MB root inventory with 200 one-line nested configurations,
/// 1.16 GB. A base is parsed once and shared; a nested configuration's inventory is a
/// layer over the root's, not a copy. Each run stays under the suite's caps (256 MB).
#[test]
fn a_large_base_is_parsed_once_and_shared() {
    let base = big_inventory();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(root.join("base.toml"), &base).unwrap();
    for k in 0..300 {
        let d = root.join(format!("f{k}"));
        std::fs::create_dir(&d).unwrap();
        std::fs::write(
            d.join("amlint.toml"),
            "extend = \"../base.toml\"\nignore = [\"AML003\"]\n[[inventory.computes]]\nname = \"own\"\ntype = \"amlcompute\"\n",
        )
        .unwrap();
        std::fs::write(d.join("job.yml"), JOB_ON_CLUSTER).unwrap();
    }
    let run = super::capped::amlint(root, &["check", "--format", "json", "."], b"");
    assert_eq!(run.code, Some(0), "{}{}", run.stdout_text(), run.stderr_text());

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(root.join("amlint.toml"), &base).unwrap();
    for k in 0..200 {
        let d = root.join(format!("f{k}"));
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join("amlint.toml"), "ignore = [\"AML003\"]\n").unwrap();
        std::fs::write(d.join("job.yml"), JOB_ON_CLUSTER).unwrap();
    }
    let run = super::capped::amlint(root, &["check", "--format", "json", "."], b"");
    // Every nested folder still sees the root's inventory: cluster-000001 resolves.
    assert_eq!(run.code, Some(0), "{}{}", run.stdout_text(), run.stderr_text());
}

/// Guard 7, time linear in the input, for what the issue measured quadratic:
/// - defect 16: a user rule reporting every entry of a 100,000-entry mapping, its
///   findings ignored per file (over 2 s in a release build, growing faster than the
///   input: each finding was looked up in a list of those before it);
/// - defect 17: a one-file run (pre-commit) of a job naming a 20,000-character compute no
///   file defines, beside a 2 MB file of near matches (4.5 s: a naive search).
///
/// The bound (20 s) sits between the linear run of the unoptimised build (a few seconds
/// on a loaded machine) and the quadratic one (minutes).
#[test]
fn rules_and_the_project_search_take_time_linear_in_the_input() {
    let wall = std::time::Duration::from_secs(20);
    let c = case();
    c.write(
        "policies/ORG100.yaml",
        "code: ORG100\nname: every-env-var\nseverity: warning\nsummary: Every environment variable\nkinds: [commandJob]\nwhen:\n  field: \"environment_variables.*\"\n  exists: true\nreport:\n  at: \"environment_variables.*\"\n  message: \"variable {value}\"\n  help: \"x\"\nwhat: x\nwhy: y\nexample_note: generated\n",
    );
    c.write(
        "amlint.toml",
        "rules-dirs = [\"policies\"]\n[per-file-ignores]\n\"job.yml\" = [\"ORG100\"]\n",
    );
    let mut job = String::from(JOB_ON_CLUSTER);
    job.push_str("environment_variables:\n");
    for i in 0..100_000 {
        job.push_str(&format!("  V{i}: x\n"));
    }
    c.write("job.yml", &job);
    let run = super::capped::amlint_within(&c.root, &["check", "--format", "json", "job.yml"], b"", wall);
    assert_eq!(run.code, Some(0), "{}", run.stderr_text());
    assert!(!run.stdout_text().contains("ORG100"), "ignored per file");

    let c = case();
    let name = "c".repeat(20_000);
    c.write(
        "ml/job.yml",
        &format!("$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo\nenvironment: azureml:e:1\ncompute: azureml:{name}\n"),
    );
    let near = format!("{}d", "c".repeat(19_999));
    c.write("data/near.yml", &near.repeat(100));
    let run = super::capped::amlint_within(&c.root, &["check", "--format", "json", "ml/job.yml"], b"", wall);
    assert_eq!(run.code, Some(0), "{}", run.stderr_text());
}

/// A project named with `..` from a sibling folder (`cd tools && amlint check ../ml`):
/// the paths its files name are resolved through the folder amlint started in, not
/// refused as outside (the boundary's resolution climbs only through directories that
/// tell nothing: inside, on the way to the project, on the way to the start).
#[test]
fn a_project_named_through_dot_dot_resolves_its_own_paths() {
    let c = case();
    c.write(
        "ml/job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\ncode: ./src\nenvironment: azureml:e:1\ncompute: azureml:cpu\n",
    );
    c.write("ml/src/train.py", "print(1)\n");
    // Started in another folder, beside the project: `../<project>/ml`.
    let elsewhere = tempfile::tempdir_in(c.root.parent().unwrap()).unwrap();
    let project = c.root.file_name().unwrap().to_string_lossy().into_owned();
    let out = c
        .amlint()
        .current_dir(elsewhere.path())
        .args(["check", "--format", "json", &format!("../{project}/ml")])
        .output()
        .unwrap();
    let f = findings(&out);
    // The job is checked, its `code: ./src` found: only the unresolved compute (info).
    assert_eq!(
        f.iter()
            .map(|(p, c, _)| (p.as_str(), c.as_str()))
            .collect::<Vec<_>>(),
        [(format!("../{project}/ml/job.yml").as_str(), "AML203")],
        "{}",
        text(&out)
    );
}

/// Audit 10, defect 2: an absolute path names a place on the machine that runs the
/// command (microsoft/MLOps copies an SDK v1 `inferenceconfig.json` and its scripts into a
/// Docker image's `/scripts/`): amlint cannot know whether it exists there, so it is a
/// warning, worded for the tool that reads it; a relative path that climbs out of the
/// project is missing from every clone, and stays an error.
#[test]
fn an_absolute_path_outside_the_project_is_a_warning() {
    let dir = crate::common::project();
    let d = dir.path();
    crate::common::write(
        d,
        "deploy/inferenceconfig.json",
        "{\n    \"entryScript\": \"/scripts/score.py\",\n    \"runtime\": \"python\",\n    \"condaFile\": \"/scripts/environment.yml\"\n}\n",
    );
    crate::common::write(
        d,
        "jobs/job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python a.py\ncode: /opt/src\nenvironment: azureml:e:1\n",
    );
    crate::common::write(
        d,
        "jobs/climbs.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python a.py\ncode: ../../../../../../../../../../../../opt/src\nenvironment: azureml:e:1\n",
    );
    let (code, json) = crate::common::json_check(d, &["--fail-on", "error", "."]);
    let aml201: Vec<(String, u64, String, String, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["code"] == "AML201")
        .map(|x| {
            (
                x["path"].as_str().unwrap().to_string(),
                x["range"]["start"]["line"].as_u64().unwrap(),
                x["severity"].as_str().unwrap().to_string(),
                x["message"].as_str().unwrap().to_string(),
                x["help"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let at = |path: &str, line: u64| {
        aml201
            .iter()
            .find(|f| f.0 == path && f.1 == line)
            .unwrap_or_else(|| panic!("no AML201 at {path}:{line}: {aml201:?}"))
    };
    for (path, line, shown) in [
        ("deploy/inferenceconfig.json", 2, "/scripts/score.py"),
        ("deploy/inferenceconfig.json", 4, "/scripts/environment.yml"),
        ("jobs/job.yml", 3, "/opt/src"),
    ] {
        let f = at(path, line);
        assert_eq!(f.2, "warning", "{f:?}");
        assert!(f.3.contains(shown) && f.3.contains("absolute path"), "{f:?}");
    }
    assert!(
        at("deploy/inferenceconfig.json", 2)
            .4
            .starts_with("SDK v1 reads it"),
        "{aml201:?}"
    );
    assert!(
        at("jobs/job.yml", 3).4.starts_with("The Azure ML CLI reads it"),
        "{aml201:?}"
    );
    let climbs = at("jobs/climbs.yml", 3);
    assert_eq!(climbs.2, "error", "{climbs:?}");
    assert_eq!(aml201.len(), 4, "{aml201:?}");
    assert_eq!(code, Some(1), "the climbing path is an error");
}
