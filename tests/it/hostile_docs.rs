//! The documentation and Jenkins readers on input written to break them: a README of
//! 10 MB of code blocks, a fence never closed, an HTML comment never closed, a line of a
//! million backticks around inline code, 20,000 commands in one README, CRLF and a fence
//! inside a list, a reST file of nothing but `::` blocks, a Jenkinsfile whose GString and
//! `${` never close, 100,000 `sh` steps, a FIFO named README.md. One walk of a project
//! holding all of them, under the caps of `capped`: every compute named by a well-formed
//! definition still resolves, and the findings of the ordinary README are at their lines.

use serde_json::Value;
use std::fmt::Write as _;

use crate::capped;
use crate::common::{job_using as job, write};

const ORDINARY: &str = "# Setup\n\n```bash\naz ml compute create --name ok-docs --type amlcompute --min-instances 0 \\\n  --size Standard_NC6\n```\n";

#[test]
fn hostile_documents_and_jenkinsfiles_stay_bounded_and_correct() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "README.md", ORDINARY);

    // Nearly 8 MiB (the size limit) of code blocks that mention computes, one definition
    // at the end; and a README of 10 MB, beyond the limit: not read, and reported (one
    // AML005 warning at its start: its words are in it, so computes may be lost).
    let block = "```bash\naz ml compute list --name x\n```\n";
    let mut huge = block.repeat(200_000);
    huge.push_str("```bash\naz ml compute create --name huge-docs --type amlcompute\n```\n");
    assert!(huge.len() > 7_900_000 && huge.len() < 8 << 20);
    write(root, "big/README.md", &huge);
    let mut over = block.repeat(270_000);
    over.push_str("az ml compute create --name over-limit --type amlcompute --size Standard_NC6\n");
    assert!(over.len() > 10_000_000);
    write(root, "over/README.md", &over);

    // A fence never closed: the rest of the file is its code (still read).
    let mut open = String::from("```bash\n");
    open.push_str("echo \"a quote closed\non the next line\"\naz ml compute create --name open-fence --type amlcompute\n");
    open.push_str(&"text\n".repeat(200_000));
    write(root, "open/README.md", &open);

    // An HTML comment never closed: nothing after it is read.
    let mut comment = String::from("<!-- amlint: ignore[AML702]\n");
    comment.push_str(&"az ml compute create --name in-comment\n".repeat(50_000));
    write(root, "comment/README.md", &comment);

    // A line of a million backticks, runs of every length that nothing closes, and
    // inline code at its end.
    let mut ticks = String::from("`az ml compute create --name tick-docs --type amlcompute` ");
    ticks.push_str(&"`".repeat(1_000_000));
    for n in 2..1_000 {
        ticks.push(' ');
        ticks.push_str(&"`".repeat(n));
    }
    ticks.push('\n');
    write(root, "ticks/README.md", &ticks);

    // 20,000 commands of their own in one README, and 30,000 assignments before a use:
    // beyond what is kept, a variable is not known (never guessed).
    let mut many = String::from("```bash\nC=many-docs-var\n");
    many.push_str(&"X=1\n".repeat(30_000));
    many.push_str("az ml compute create --name $C --type amlcompute\n```\n");
    for i in 0..20_000 {
        writeln!(many, "az ml compute create --name many-{i} --type amlcompute --min-instances 0 --enable-node-public-ip false --subnet s").unwrap();
    }
    write(root, "many/README.md", &many);

    // CRLF and a fence inside a list item.
    write(
        root,
        "crlf/README.md",
        "1. Create it:\r\n\r\n   ```azurecli\r\n   az ml compute create --name crlf-docs `\r\n     --type amlcompute --min-instances 0 --size Standard_NC6\r\n   ```\r\n",
    );

    // reST: nothing but literal blocks.
    let mut rst = "x::\n\n    y\n".repeat(100_000);
    rst.push_str(".. code-block:: bash\n\n   az ml compute create --name rst-docs --type amlcompute\n");
    write(root, "docs/index.rst", &rst);

    // Jenkins: an interpolation and a string never closed; 100,000 steps.
    let mut jf = "sh 'echo'\n".repeat(100_000);
    jf.push_str("sh '''\naz ml compute create --name jenkins-docs --type amlcompute\n'''\n");
    jf.push_str("sh \"\"\"az ml compute create --name ${ {{ {{");
    jf.push_str(&"x".repeat(1_000_000));
    write(root, "Jenkinsfile", &jf);
    write(
        root,
        "vars/open.groovy",
        &format!("sh \"az ml compute create --name ${{a{}", "b".repeat(2_000_000)),
    );

    // A FIFO named like a document: never opened for reading.
    let fifo = std::ffi::CString::new(root.join("fifo/README.md").to_str().unwrap()).unwrap();
    std::fs::create_dir_all(root.join("fifo")).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);

    let names = [
        "ok-docs",
        "huge-docs",
        "open-fence",
        "tick-docs",
        "many-0",
        "many-19999",
        "crlf-docs",
        "rst-docs",
        "jenkins-docs",
    ];
    write(root, "job.yml", &job(&names));

    let json = capped::check_json(root);
    let diags = json["diagnostics"].as_array().expect("diagnostics");
    let at = |path: &str| -> Vec<(String, u64, u64)> {
        diags
            .iter()
            .filter(|d| d["path"] == path)
            .map(|d| {
                (
                    d["code"].as_str().unwrap_or_default().to_string(),
                    d.get("focus").unwrap_or(&d["range"])["start"]["line"]
                        .as_u64()
                        .unwrap_or_default(),
                    d.get("focus").unwrap_or(&d["range"])["start"]["column"]
                        .as_u64()
                        .unwrap_or_default(),
                )
            })
            .collect()
    };
    let job_findings = at("job.yml");
    assert!(
        !job_findings.iter().any(|(c, ..)| c == "AML203"),
        "every compute resolves: {job_findings:?}"
    );
    assert!(
        at("README.md").contains(&("AML505".to_string(), 5, 10)),
        "{:?}",
        at("README.md")
    );
    assert!(
        at("crlf/README.md").contains(&("AML505".to_string(), 5, 49)),
        "{:?}",
        at("crlf/README.md")
    );
    let hidden: Vec<&Value> = diags
        .iter()
        .filter(|d| d["message"].as_str().unwrap_or_default().contains("in-comment"))
        .collect();
    assert!(
        hidden.is_empty(),
        "nothing inside a comment is a command: {hidden:?}"
    );
    let many: Vec<&Value> = diags
        .iter()
        .filter(|d| {
            d["message"]
                .as_str()
                .unwrap_or_default()
                .contains("many-docs-var")
        })
        .collect();
    assert!(
        many.is_empty(),
        "the name is not known past the variables read: {many:?}"
    );
    assert_eq!(at("over/README.md"), [("AML005".to_string(), 1, 1)]);
    assert!(!json.to_string().contains("AML000"), "no internal error");
}
