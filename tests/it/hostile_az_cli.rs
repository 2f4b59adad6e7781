//! The az-cli readers (scripts, Makefiles, workflows) on input written to break them: a
//! script of megabytes, an unterminated quote, 100,000 continuation lines, a chain of
//! 100,000 variables, values that double at every step, thousands of variables in a
//! Makefile and a workflow, a FIFO named like a script, CRLF with a byte-order mark. One
//! walk of a project holding all of them, under the caps of `capped`: every compute named
//! by a well-formed definition still resolves, and the findings of the ordinary script
//! are still at their lines.

use serde_json::Value;
use std::fmt::Write as _;

use crate::capped;
use crate::common::{job_using as job, write};

const ORDINARY: &str = "#!/bin/sh\naz ml compute create --name ok-cluster --type amlcompute --min-instances 0 \\\n  --size Standard_NC6\n";

#[test]
fn hostile_scripts_and_workflows_stay_bounded_and_correct() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "ordinary.sh", ORDINARY);

    // Megabytes of commands that mention computes, one definition at the end.
    let mut huge = "echo az ml compute list --name x\n".repeat(120_000);
    huge.push_str("az ml compute create --name huge-cluster --type amlcompute\n");
    write(root, "huge.sh", &huge);

    // A quote never closed: the rest of the file is one word.
    let open = format!("az ml compute create --name \"open{}\n", "a".repeat(4_000_000));
    write(root, "open.sh", &open);

    // 100,000 continuation lines.
    let mut cont = String::from("az ml compute create --name cont-cluster --type amlcompute \\\n");
    cont.push_str(&"  \\\n".repeat(100_000));
    cont.push_str("  --min-instances 0\n");
    write(root, "cont.sh", &cont);
    // A command of 200,000 words is not read (no definition has them): not defined.
    let mut wide = String::from("az ml compute create --name wide-cluster --type amlcompute \\\n");
    wide.push_str(&"  --tier dedicated \\\n".repeat(100_000));
    wide.push_str("  --min-instances 0\n");
    write(root, "wide.sh", &wide);

    // A chain of 15,000 variables, each the one before: read in order, never by recursion.
    let mut chain = String::from("A0=chain-cluster\n");
    for i in 1..15_000 {
        writeln!(chain, "A{i}=$A{}", i - 1).unwrap();
    }
    chain.push_str("az ml compute create --name $A14999 --type amlcompute\n");
    write(root, "chain.sh", &chain);

    // 200,000 assignments: beyond what is kept, a variable is not known (never guessed).
    let mut many = String::from("C=many-cluster\n");
    many.push_str(&"X=1\n".repeat(200_000));
    many.push_str("az ml compute create --name $C --type amlcompute\n");
    write(root, "many.sh", &many);

    // Values that double at every step: dynamic once too long, not 2^100 bytes.
    let mut double = String::from("B0=x\n");
    for i in 1..100 {
        writeln!(double, "B{i}=$B{}$B{}", i - 1, i - 1).unwrap();
        writeln!(double, "if true; then B{i}=$B{}$B{}; fi", i - 1, i - 1).unwrap();
    }
    double.push_str("az ml compute create --name $B99 --type amlcompute\n");
    write(root, "double.sh", &double);

    // Make variables by the thousand, each the ones before twice.
    let mut make = String::from("M0 = make-cluster\n");
    for i in 1..50_000 {
        writeln!(make, "M{i} = $(M{})$(M{})", i - 1, i - 1).unwrap();
    }
    make.push_str("N = $(M0)\nc:\n\taz ml compute create --name $(N) --size $(M49999) --type amlcompute\n");
    write(root, "Makefile", &make);

    // A workflow with 50,000 variables in one `env:` and a chain through them.
    let mut wf = String::from("env:\n  V0: wf-cluster\n");
    for i in 1..50_000 {
        writeln!(wf, "  V{i}: ${{{{ env.V{} }}}}", i - 1).unwrap();
    }
    wf.push_str("jobs:\n  j:\n    steps:\n      - run: az ml compute create --name $V0 --size $V49999 --type amlcompute\n");
    write(root, ".github/workflows/wf.yml", &wf);

    // CRLF, a byte-order mark, PowerShell's backtick continuation.
    write(
        root,
        "crlf.ps1",
        "\u{feff}$Name = \"crlf-cluster\"\r\naz ml compute create --name $Name `\r\n  --type amlcompute --min-instances 0 --size Standard_NC6\r\n",
    );

    // A FIFO named like a script: never opened for reading (nothing would ever write).
    let fifo = std::ffi::CString::new(root.join("deploy.sh").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);

    let names = [
        "ok-cluster",
        "huge-cluster",
        "cont-cluster",
        "chain-cluster",
        "make-cluster",
        "wf-cluster",
        "crlf-cluster",
    ];
    write(root, "job.yml", &job(&names));

    let json = capped::check_json(root);
    let diags = json["diagnostics"].as_array().expect("diagnostics");
    let at = |path: &str| -> Vec<(String, u64)> {
        diags
            .iter()
            .filter(|d| d["path"] == path)
            .map(|d| {
                (
                    d["code"].as_str().unwrap_or_default().to_string(),
                    d.get("focus").unwrap_or(&d["range"])["start"]["line"]
                        .as_u64()
                        .unwrap_or_default(),
                )
            })
            .collect()
    };
    let job_findings = at("job.yml");
    assert!(
        !job_findings.iter().any(|(c, _)| c == "AML203"),
        "every compute resolves: {job_findings:?}"
    );
    assert!(
        at("ordinary.sh").contains(&("AML505".to_string(), 3)),
        "{:?}",
        at("ordinary.sh")
    );
    assert!(
        at("crlf.ps1").contains(&("AML505".to_string(), 3)),
        "{:?}",
        at("crlf.ps1")
    );
    assert!(at("wide.sh").is_empty(), "{:?}", at("wide.sh"));
    let many: Vec<&Value> = diags.iter().filter(|d| d["path"] == "many.sh").collect();
    assert!(
        many.iter()
            .all(|d| !d["message"].as_str().unwrap_or_default().contains("many-cluster")),
        "the name is not known past the variables read: {many:?}"
    );
    assert!(!json.to_string().contains("AML000"), "no internal error");
}
