//! Issue 35: an `az ml compute create|attach` in a script, a notebook or a CI file gets the
//! findings the equivalent compute YAML gets: an option the command does not have
//! (`--sizee`: the CLI's "unrecognized arguments") is AML101 at the option with the
//! closest option; a value of an integer option that is not an integer
//! (`--max-instances abc`) is AML102 at the value; `--min-instances` above
//! `--max-instances` is AML105 at the value. Never where the CLI would accept the command:
//! an unambiguous abbreviation, an option built from an expansion, words after `--`, text
//! that is not run.

use serde_json::Value;

use crate::common::{check_clean, project, write};

/// (code, path, text the finding points at, message) of each AML101/102/105 finding: the
/// text under its label "the option is written here" when it has one (a finding on a
/// command's later line spans the command, with that label at the option), else under its
/// range.
fn points(root: &std::path::Path, json: &Value) -> Vec<(String, String, String, String)> {
    let mut out: Vec<_> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| matches!(d["code"].as_str(), Some("AML101" | "AML102" | "AML105")))
        .map(|d| {
            let path = d["path"].as_str().unwrap().to_string();
            let text = std::fs::read_to_string(root.join(&path)).unwrap();
            let range = d["labels"]
                .as_array()
                .and_then(|l| l.iter().find(|l| l["message"] == "the option is written here"))
                .map_or(&d["range"], |l| &l["range"]);
            let (a, b) = (
                range["start"]["offset"].as_u64().unwrap() as usize,
                range["end"]["offset"].as_u64().unwrap() as usize,
            );
            (
                d["code"].as_str().unwrap().to_string(),
                path,
                text[a..b].to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

fn at(points: &[(String, String, String, String)]) -> Vec<(&str, &str, &str)> {
    points
        .iter()
        .map(|(c, p, t, _)| (c.as_str(), p.as_str(), t.as_str()))
        .collect()
}

#[test]
fn an_option_the_command_does_not_have_is_reported_at_the_option_with_the_closest_one() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "create.sh",
        "az ml compute create -n c1 --type AmlCompute --sizee Standard_DS3_v2 --max-instances 4 -g rg -w ws\n\
         az ml compute create -n c2 --type AmlCompute --size=Standard_DS3_v2 --maxx-instances=3 --tier dedicated\n\
         az ml compute attach -n k1 --type Kubernetes --resource-id /subscriptions/x --namespce ns\n",
    );
    write(
        root,
        ".github/workflows/w.yml",
        "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n      - run: az ml compute create -n wf1 --type AmlCompute --size Standard_DS3_v2 --min-instancs 0 --max-instances 2\n",
    );
    write(
        root,
        "create.ps1",
        "az ml compute create -n p1 --type AmlCompute `\n  --sizee Standard_DS3_v2 `\n  --max-instances 4\n",
    );
    write(
        root,
        "nb.ipynb",
        r#"{"cells":[{"cell_type":"code","metadata":{},"source":["!az ml compute create -n nb1 --type AmlCompute --vnett-name v Standard_DS3_v2 --max-instances 4\n"],"outputs":[],"execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":5}"#,
    );
    let json = check_clean(root);
    let p = points(root, &json);
    assert_eq!(
        at(&p),
        [
            ("AML101", ".github/workflows/w.yml", "--min-instancs"),
            ("AML101", "create.ps1", "--sizee"),
            ("AML101", "create.sh", "--maxx-instances"),
            ("AML101", "create.sh", "--namespce"),
            ("AML101", "create.sh", "--sizee"),
            ("AML101", "nb.ipynb", "--vnett-name"),
        ],
        "{json}"
    );
    let msg = |t: &str| p.iter().find(|x| x.2 == t).unwrap().3.clone();
    assert!(
        msg("--sizee").contains("not an option of `az ml compute create`")
            && msg("--sizee").contains("unrecognized arguments")
            && msg("--sizee").ends_with("did you mean `--size`?"),
        "{}",
        msg("--sizee")
    );
    assert!(msg("--maxx-instances").ends_with("did you mean `--max-instances`?"));
    assert!(msg("--min-instancs").ends_with("did you mean `--min-instances`?"));
    assert!(
        msg("--namespce").contains("`az ml compute attach`")
            && msg("--namespce").ends_with("did you mean `--namespace`?")
    );
}

/// argparse takes an unambiguous prefix of an option for the option (`--max-inst`), and
/// an ambiguous one is not said to be unknown; the CLI's own options (`--verbose`,
/// `--only-show-errors`, `--subscription`), the command's (`--ssh-key-value`, `--tags`,
/// `--no-wait`) and their `=` forms are options; an option with `_` is left alone.
#[test]
fn abbreviations_and_the_clis_own_options_are_not_reported() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "ok.sh",
        "az ml compute create -n a1 --type AmlCompute --si Standard_DS3_v2 --max-inst 3 --min 0 --verb --only-show-errors --idle_time_before_scale_down 60\n\
         az ml compute create --name=a2 --type=AmlCompute --size=Standard_DS3_v2 --subscription=s --resource-group=rg --workspace-name=ws --output=json --query id --ssh-key-value k --admin-username u --tags a=b c=d --no-wait --debug --description d --identity-type SystemAssigned --user-tenant-id t --user-object-id o --location westeurope --idle-time-before-scale-down 120 --enable-node-public-ip false --vnet-name v --subnet s --tier dedicated\n\
         az ml compute attach --name k2 --type Kubernetes --resource-id /subscriptions/x --namespace ns --identity-type SystemAssigned --no-wait\n",
    );
    let json = check_clean(root);
    assert!(points(root, &json).is_empty(), "{json}");
}

/// Hostile shapes: an option built from an expansion (`--$OPT`, which may even be `--`),
/// an option quoted, options after `--`, the command inside a string (`echo "az ml
/// ..."`) or a comment, and a help request: none is reported; an option after them that
/// is certainly unknown is.
#[test]
fn options_not_certainly_unknown_are_not_reported() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "hostile.sh",
        "az ml compute create -n h1 --type AmlCompute --size Standard_DS3_v2 --$OPT x --after-expansion\n\
         az ml compute create -n h2 --type AmlCompute --size Standard_DS3_v2 -- --after-dashes\n\
         az ml compute create -n h3 --type AmlCompute --size Standard_DS3_v2 \"--quoted\" --bad-after-quoted\n\
         echo \"az ml compute create -n h4 --type AmlCompute --sizee Standard_DS3_v2\"\n\
         # az ml compute create -n h5 --type AmlCompute --sizee Standard_DS3_v2\n\
         az ml compute create -n h6 --sizee x --help\n",
    );
    let json = check_clean(root);
    assert_eq!(
        at(&points(root, &json)),
        [("AML101", "hostile.sh", "--bad-after-quoted")],
        "{json}"
    );
}

/// Unknown options by the thousand in one command: at most 16 findings for it (1,500
/// options, a command the readers keep), none for a command of 10,000 (more words than a
/// command is read with), quickly either way.
#[test]
fn thousands_of_unknown_options_give_bounded_output() {
    let dir = project();
    let root = dir.path();
    for (file, n) in [("some.sh", 1_500), ("many.sh", 10_000)] {
        let mut cmd = format!("az ml compute create -n c-{n} --type AmlCompute --size Standard_DS3_v2");
        for i in 0..n {
            cmd.push_str(&format!(" --bogus{i} v"));
        }
        cmd.push('\n');
        write(root, file, &cmd);
    }
    let json = check_clean(root);
    let p = points(root, &json);
    assert_eq!(p.iter().filter(|x| x.1 == "some.sh").count(), 16, "{p:?}");
    assert_eq!(p.iter().filter(|x| x.1 == "many.sh").count(), 0, "{p:?}");
    assert_eq!(p[0].2, "--bogus0");
}

/// The values: `--max-instances abc`, `--min-instances 1.5`, `--set max_instances=abc`
/// (AML102 at the value), `--min-instances 5 --max-instances 2` (AML105 at the minimum,
/// labelled at the maximum); a value from an expansion not known, or an integer written
/// with spaces or `_` (Python's `int()` takes them), is not reported.
#[test]
fn values_the_schema_refuses_are_reported_at_the_value() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "values.sh",
        "az ml compute create -n v1 --type AmlCompute --size Standard_DS3_v2 --max-instances abc --min-instances 1.5\n\
         az ml compute create -n v2 --type AmlCompute --size Standard_DS3_v2 --min-instances 5 --max-instances 2\n\
         az ml compute create -n v3 --type AmlCompute --size Standard_DS3_v2 --set max_instances=many\n\
         az ml compute create -n v4 --type AmlCompute --size Standard_DS3_v2 --max-instances \"$MAX\" --min-instances \" 1\" --idle-time-before-scale-down 1_200\n\
         az ml compute create -n v5 --type AmlCompute --size Standard_DS3_v2 --min-instances 2 --max-instances 2\n",
    );
    let json = check_clean(root);
    let p = points(root, &json);
    assert_eq!(
        at(&p),
        [
            ("AML102", "values.sh", "1.5"),
            ("AML102", "values.sh", "abc"),
            ("AML102", "values.sh", "many"),
            ("AML105", "values.sh", "5"),
        ],
        "{json}"
    );
    assert!(
        p[1].3.starts_with("`--max-instances` must be an integer"),
        "{}",
        p[1].3
    );
    assert!(
        p[2].3.starts_with("`--set max_instances` must be an integer"),
        "{}",
        p[2].3
    );
    assert!(
        p[3].3
            .starts_with("`--min-instances` (5) is greater than `--max-instances` (2)"),
        "{}",
        p[3].3
    );
    let aml105 = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "AML105")
        .unwrap();
    assert_eq!(
        aml105["labels"][0]["message"], "`--max-instances` is 2",
        "{aml105}"
    );
}
