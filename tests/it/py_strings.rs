//! `az ml compute create` run from a Python file's strings (`os.system("az ml compute
//! create …")`, `subprocess.run("…", shell=True)`, a docstring's example), as the labelled
//! sets record them ("command in a Python string"): each string read as a bash script at
//! its place in the `.py` file; an f-string's `{…}` is not known; the list form is not read.

use crate::common::{check_clean, findings_with, focus_lines, focused, inventory, names, unnamed, write};

const SCRIPT: &str = "import os, subprocess\n\nname = \"python-var\"\nos.system(f\"az ml compute create --name {name} --size Standard_NC6 --type amlcompute\")\nsubprocess.run(\"az ml compute create -n sub-cluster --size Standard_NC12 --type amlcompute --min-instances 1\", shell=True)\n# amlint: ignore[AML505]\nos.system(\"az ml compute create -n quiet --size Standard_NC6 --type amlcompute\")\n\n\ndef helper():\n    \"\"\"Create the cluster first:\n\n        az ml compute create -n doc-cluster --size Standard_NV6 --type amlcompute\n    \"\"\"\n    subprocess.run([\"az\", \"ml\", \"compute\", \"create\", \"-n\", \"listform\", \"--size\", \"Standard_NC6\"])\n";

#[test]
fn az_commands_in_python_strings_define_computes_at_their_options() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "tools/make.py", SCRIPT);
    write(
        d,
        "job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo hi\nenvironment: azureml:env:1\ncompute: azureml:sub-cluster\n",
    );
    let json = check_clean(d);
    assert!(findings_with(&json, "job.yml", "AML203").is_empty(), "{json:#}");
    // Line 7's is suppressed by the Python comment above it.
    assert_eq!(
        focus_lines(&json, "tools/make.py", "AML505"),
        [4, 5, 13],
        "{json:#}"
    );
    let keeps = findings_with(&json, "tools/make.py", "AML601");
    assert_eq!(focused(SCRIPT, keeps[0]), "1", "{json:#}");
    let inv = inventory(d);
    assert_eq!(names(&inv), ["doc-cluster", "quiet", "sub-cluster"], "{inv:#}");
    let dynamic = unnamed(&inv, "tools/make.py");
    assert_eq!(dynamic.len(), 1, "{inv:#}");
    assert!(
        dynamic[0]
            .to_string()
            .contains("is filled in by Python at run time"),
        "{inv:#}"
    );
}
