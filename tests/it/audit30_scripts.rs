//! Audit 30: the files a script names, as the shell finds them — PowerShell's and cmd's
//! backslashes and `$PSScriptRoot` (defect 2), a sourced file named from the script's own
//! directory (defect 4). A `--file` that is not read always says why.

use serde_json::Value;

use crate::common::{findings, inventory, json_check, project, write};

const NC6: &str = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\ntype: amlcompute\nsize: Standard_NC6\n";

/// Every definition of the inventory (named or not), by path and line: (name or why
/// not known, size or why not known, notes).
fn definitions(inv: &Value) -> Vec<(String, u64, String, String, Vec<String>)> {
    let named = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["definitions"].as_array().unwrap().iter());
    let unnamed = inv["unnamed_definitions"].as_array().unwrap().iter();
    let either = |v: &Value| match v["value"].as_str() {
        Some(s) => s.to_string(),
        None => format!("? {}", v["why"].as_str().unwrap_or("")),
    };
    let mut out: Vec<_> = named
        .chain(unnamed)
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                either(&d["name"]),
                either(&d["settings"]["size"]),
                d["notes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The definition at `path:line`.
fn at(
    defs: &[(String, u64, String, String, Vec<String>)],
    path: &str,
    line: u64,
) -> (String, String, Vec<String>) {
    let d = defs
        .iter()
        .find(|d| d.0 == path && d.1 == line)
        .unwrap_or_else(|| panic!("no definition at {path}:{line}: {defs:#?}"));
    (d.2.clone(), d.3.clone(), d.4.clone())
}

fn retired_at(json: &Value, path: &str) -> Vec<u64> {
    findings(json)
        .into_iter()
        .filter(|f| f.0 == "AML505" && f.1 == path)
        .map(|f| f.2)
        .collect()
}

/// Audit 30, defect 2 (case 05): PowerShell and cmd take `\` as a path separator (it is no
/// escape there): `--file .\scripts\c.yml` in a `.ps1`, a `.cmd`, an Azure Pipelines
/// `AzureCLI@2` task with `scriptType: ps`/`pscore`/`batch` and a `script:` step on a
/// Windows pool (cmd) reads the YAML as `./scripts/c.yml` does; PowerShell's dot-sourcing
/// `. .\scripts\vars.ps1` and `. "$PSScriptRoot\vars.ps1"` (`$PSScriptRoot`: the script
/// file's own directory, also after a `Set-Location`), cmd's `%~dp0c.yml`. In bash `\`
/// is an escape: `scripts\c.yml` is `scriptsc.yml`, not read, with a note.
#[test]
fn powershell_and_cmd_paths_with_backslashes_are_read() {
    let dir = project();
    let d = dir.path();
    write(d, "scripts/c.yml", NC6);
    write(d, "my scripts/c.yml", NC6);
    write(
        d,
        "scripts/vars.ps1",
        "$ComputeName = \"ps-cluster\"\n$VmSize = \"Standard_NC6\"\n",
    );
    write(
        d,
        "scripts/a.ps1",
        "az ml compute create --name bs-file --file .\\scripts\\c.yml\n. .\\scripts\\vars.ps1\naz ml compute create --name \"$ComputeName-c\" --type amlcompute --size $VmSize\naz ml compute create --name spaces --file \".\\my scripts\\c.yml\"\nSet-Location ..\naz ml compute create --name after-cd --file $PSScriptRoot\\c.yml\n",
    );
    write(
        d,
        "scripts/d.ps1",
        ". \"$PSScriptRoot\\vars.ps1\"\naz ml compute create --name \"$ComputeName-d\" --type amlcompute --size $VmSize\n",
    );
    write(
        d,
        "scripts/e.cmd",
        "az ml compute create --name cmd-dp0 --file %~dp0c.yml\r\naz ml compute create --name cmd-bs --file .\\scripts\\c.yml\r\n",
    );
    write(
        d,
        "scripts/b.sh",
        "az ml compute create --name bash-bs --file scripts\\c.yml\n",
    );
    write(
        d,
        "azure-pipelines.yml",
        "pool:\n  vmImage: windows-latest\nsteps:\n  - task: AzureCLI@2\n    inputs:\n      azureSubscription: sc\n      scriptType: ps\n      scriptLocation: inlineScript\n      inlineScript: |\n        az ml compute create --name ado-ps --file .\\scripts\\c.yml\n  - script: az ml compute create --name ado-cmd --file scripts\\c.yml\n  - task: AzureCLI@2\n    inputs:\n      azureSubscription: sc\n      scriptType: pscore\n      inlineScript: az ml compute create --name ado-pscore --file .\\scripts\\c.yml\n  - task: AzureCLI@2\n    inputs:\n      azureSubscription: sc\n      scriptType: batch\n      inlineScript: az ml compute create --name ado-batch --file scripts\\c.yml\n",
    );
    let defs = definitions(&inventory(d));
    let from_c = vec!["values from `scripts/c.yml`".to_string()];
    let read = |name: &str| (name.to_string(), "Standard_NC6".to_string(), from_c.clone());
    assert_eq!(at(&defs, "scripts/a.ps1", 1), read("bs-file"));
    assert_eq!(
        at(&defs, "scripts/a.ps1", 3),
        ("ps-cluster-c".into(), "Standard_NC6".into(), vec![])
    );
    assert_eq!(
        at(&defs, "scripts/a.ps1", 4),
        (
            "spaces".into(),
            "Standard_NC6".into(),
            vec!["values from `my scripts/c.yml`".to_string()]
        )
    );
    // `$PSScriptRoot` is absolute: a `Set-Location` before does not move it.
    assert_eq!(at(&defs, "scripts/a.ps1", 6), read("after-cd"));
    assert_eq!(
        at(&defs, "scripts/d.ps1", 2),
        ("ps-cluster-d".into(), "Standard_NC6".into(), vec![])
    );
    assert_eq!(at(&defs, "scripts/e.cmd", 1), read("cmd-dp0"));
    assert_eq!(at(&defs, "scripts/e.cmd", 2), read("cmd-bs"));
    for (line, name) in [
        (10, "ado-ps"),
        (11, "ado-cmd"),
        (16, "ado-pscore"),
        (21, "ado-batch"),
    ] {
        assert_eq!(at(&defs, "azure-pipelines.yml", line), read(name), "{name}");
    }
    let (_, size, notes) = at(&defs, "scripts/b.sh", 1);
    assert!(size.starts_with('?') || size == "null", "{size}");
    assert_eq!(
        notes,
        ["the compute YAML `scripts\\c.yml` is not in the project; its values are not read"]
    );
    let (_, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
    assert_eq!(retired_at(&json, "scripts/a.ps1"), [1, 3, 4, 6], "{json:#}");
    assert_eq!(retired_at(&json, "scripts/d.ps1"), [2]);
    assert_eq!(retired_at(&json, "scripts/e.cmd"), [1, 2]);
    assert_eq!(retired_at(&json, "azure-pipelines.yml"), [10, 11, 16, 21]);
    assert_eq!(retired_at(&json, "scripts/b.sh"), Vec::<u64>::new());
}

/// A `--file` that is not read is never silent: with the name given (so the definition
/// is listed by it), a note says why — outside the project (`..\..\`), a link out of it,
/// a Windows absolute path, a path not known (`$env:X`), `$PSScriptRoot` in a pipeline's
/// inline script (which runs from a temporary file). A dot-sourced file that is the
/// script itself is not read, and says so; `$PSScriptRoot` read as a value is the
/// script's directory, not "the environment".
#[test]
fn a_file_not_read_says_why() {
    let base = tempfile::tempdir().unwrap();
    let d = &base.path().join("p");
    std::fs::create_dir_all(d.join(".git")).unwrap();
    write(d, "scripts/c.yml", NC6);
    write(base.path(), "outside.yml", NC6);
    #[cfg(unix)]
    std::os::unix::fs::symlink(base.path().join("outside.yml"), d.join("scripts/link.yml")).unwrap();
    write(
        d,
        "scripts/h.ps1",
        "az ml compute create --name escape --file ..\\..\\outside.yml\naz ml compute create --name drive --file C:\\agent\\c.yml\naz ml compute create --name from-env --file $env:COMPUTE_FILE\naz ml compute create --name link-out --file .\\scripts\\link.yml\n",
    );
    write(
        d,
        "scripts/self.ps1",
        ". \"$PSScriptRoot\\self.ps1\"\naz ml compute create --name \"$Foo\" --type amlcompute\n",
    );
    write(
        d,
        "azure-pipelines.yml",
        "pool:\n  vmImage: windows-latest\nsteps:\n  - task: AzureCLI@2\n    inputs:\n      azureSubscription: sc\n      scriptType: pscore\n      inlineScript: az ml compute create --name inline-root --file \"$PSScriptRoot\\scripts\\c.yml\"\n",
    );
    write(
        d,
        "README.md",
        "```powershell\naz ml compute create --name \"$PSScriptRoot-x\" --size Standard_DS3_v2\n```\n",
    );
    let defs = definitions(&inventory(d));
    let note = |path: &str, line: u64| {
        let (_, _, notes) = at(&defs, path, line);
        assert_eq!(notes.len(), 1, "{path}:{line}: {notes:?}");
        notes[0].clone()
    };
    assert_eq!(
        note("scripts/h.ps1", 1),
        "the compute YAML `..\\..\\outside.yml` names `../../outside.yml`, which is not read: it is outside the project; its values are not read"
    );
    assert_eq!(
        note("scripts/h.ps1", 2),
        "the compute YAML `C:\\agent\\c.yml` is not in the project; its values are not read"
    );
    assert_eq!(
        note("scripts/h.ps1", 3),
        "the compute YAML `$env:COMPUTE_FILE` is not known statically: `COMPUTE_FILE` is not set in this file (it comes from the environment); its values are not read"
    );
    #[cfg(unix)]
    assert_eq!(
        note("scripts/h.ps1", 4),
        "the compute YAML `.\\scripts\\link.yml` names `scripts/link.yml`, which is not read: it is a link out of the project; its values are not read"
    );
    assert_eq!(
        note("azure-pipelines.yml", 8),
        "the compute YAML `$PSScriptRoot\\scripts\\c.yml` is not known statically: it starts at the directory of the script's own file, and this script is not a file of its own (it runs from a temporary file); its values are not read"
    );
    let (name, _, _) = at(&defs, "scripts/self.ps1", 2);
    assert_eq!(
        name,
        "? `Foo` is not set in this file; `. \"$PSScriptRoot\\self.ps1\"` on line 1 names this script itself"
    );
    let (name, _, _) = at(&defs, "README.md", 2);
    assert!(
        name.contains("`$PSScriptRoot` is the directory of the script's own file")
            && !name.contains("environment"),
        "{name}"
    );
}

/// Audit 30, defect 4 (case 04): a sourced file named from the script's own directory is
/// looked for as `--file`'s is (the same code): `source "$SCRIPT_DIR/vars.env"` after
/// `SCRIPT_DIR="$(cd "$(dirname "$0")" && pwd)"`, `source "$(dirname "$0")/vars.env"`,
/// the `${BASH_SOURCE[0]}` forms and the idiom with `&> /dev/null`; the job using the
/// name resolves and the retired size is reported. After a `cd` (bash: `$0` is relative to
/// where the script started) and when it leaves the project, not read, with why.
#[test]
fn a_file_sourced_from_the_scripts_own_directory_is_read() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "scripts/vars.env",
        "COMPUTE_NAME=env-cluster\nVM_SIZE=Standard_NC6\n",
    );
    write(d, ".env", "COMPUTE_NAME=dot-env\nVM_SIZE=Standard_NC6\n");
    let forms = [
        (
            "a",
            "SCRIPT_DIR=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\nsource \"$SCRIPT_DIR/vars.env\"",
        ),
        ("b", ": noop\nsource \"$(dirname \"$0\")/vars.env\""),
        ("c", "SCRIPT_DIR=$(dirname \"$0\")\n. \"$SCRIPT_DIR/vars.env\""),
        (
            "d",
            "SCRIPT_DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\nsource \"$SCRIPT_DIR/vars.env\"",
        ),
        (
            "e",
            "SCRIPT_DIR=\"$( cd \"$( dirname \"${BASH_SOURCE[0]}\" )\" &> /dev/null && pwd )\"\nset -a; source \"$SCRIPT_DIR/../.env\"; set +a",
        ),
        (
            "f",
            "SCRIPT_DIR=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\ncd ..\nsource \"$SCRIPT_DIR/vars.env\"",
        ),
        (
            "g",
            "SCRIPT_DIR=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\nsource \"$SCRIPT_DIR/../../outside.env\"",
        ),
    ];
    for (n, head) in forms {
        write(
            d,
            &format!("scripts/{n}.sh"),
            &format!(
                "#!/usr/bin/env bash\n{head}\naz ml compute create --name \"$COMPUTE_NAME-{n}\" --type amlcompute --size \"$VM_SIZE\"\n"
            ),
        );
    }
    write(d, "jobs/job.yml", &crate::common::job_using(&["env-cluster-a"]));
    let defs = definitions(&inventory(d));
    for n in ["a", "b", "c", "d"] {
        let (name, size, _) = at(&defs, &format!("scripts/{n}.sh"), 4);
        assert_eq!(
            (name.as_str(), size.as_str()),
            (format!("env-cluster-{n}").as_str(), "Standard_NC6"),
            "{n}"
        );
    }
    let (name, size, _) = at(&defs, "scripts/e.sh", 4);
    assert_eq!((name.as_str(), size.as_str()), ("dot-env-e", "Standard_NC6"));
    let (name, _, _) = at(&defs, "scripts/f.sh", 5);
    assert_eq!(
        name,
        "? `COMPUTE_NAME` is not set in this file; `source \"$SCRIPT_DIR/vars.env\"` on line 4 names a file not known statically: it starts at the script's own directory as named from where the script started, and a `cd` before the command moved from there"
    );
    let (name, _, _) = at(&defs, "scripts/g.sh", 4);
    assert!(
        name.contains("which is not read: it is outside the project"),
        "{name}"
    );
    let (_, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
    for n in ["a", "b", "c", "d", "e"] {
        assert_eq!(
            retired_at(&json, &format!("scripts/{n}.sh")),
            [4],
            "{n}: {json:#}"
        );
    }
    assert!(
        !findings(&json).iter().any(|f| f.0 == "AML203"),
        "the job's `env-cluster-a` resolves: {json:#}"
    );
}
