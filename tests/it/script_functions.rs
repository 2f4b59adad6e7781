//! Bash functions that create a compute from their arguments (audit 31, defect 1): each
//! call of the function in the same script is a definition, `$1`, `${1:-d}`, `local
//! x="$1"`, `"$@"` taking the call's words (at their spans in the call), defaults for what
//! the call does not pass; a function the script does not call is read as called with no
//! argument; what a call passes that is not known is said so, with why.

use serde_json::Value;

use crate::common::{
    check_clean as check, definitions, findings_with as findings, focused, inventory, names, project,
    unnamed, write,
};

const DEFAULTS: &str = "#!/bin/bash\ncreate_cluster() {\n  local name=\"${1:-sh-fn-cluster}\"\n  local size=\"${2:-Standard_DS3_v2}\"\n  az ml compute create --name \"$name\" --type amlcompute --size \"$size\"\n}\ncreate_cluster \"sh-called\" \"Standard_NC6\"\n";

const TWICE: &str = "#!/bin/bash\ncreate_compute() {\n  local name=\"$1\"\n  local size=\"$2\"\n  local max=\"${3:-2}\"\n  az ml compute create --name \"$name\" --type amlcompute --size \"$size\" \\\n    --min-instances 0 --max-instances \"$max\"\n}\n\ncreate_compute \"cpu-cluster\" \"Standard_DS3_v2\" 4\ncreate_compute \"gpu-cluster\" \"Standard_NC6\"\n";

/// Audit 31, case 04 (`defaults.sh`, `setup.sh`).
#[test]
fn each_call_of_a_function_is_a_definition_with_the_calls_words() {
    let dir = project();
    let root = dir.path();
    write(root, "defaults.sh", DEFAULTS);
    write(root, "setup.sh", TWICE);
    write(
        root,
        "jobs/train.yml",
        &crate::common::job_using(&["sh-called", "cpu-cluster", "gpu-cluster"]),
    );
    let json = check(root);
    assert!(findings(&json, "jobs/train.yml", "AML203").is_empty(), "{json}");
    // At the call's argument: `create_cluster "sh-called" "Standard_NC6"` (line 7),
    // `create_compute "gpu-cluster" "Standard_NC6"` (line 11).
    for (path, text, line, column) in [("defaults.sh", DEFAULTS, 7, 29), ("setup.sh", TWICE, 11, 31)] {
        let nc6 = findings(&json, path, "AML505");
        let [nc6] = nc6.as_slice() else {
            panic!("one AML505 in {path}: {json}")
        };
        assert_eq!(focused(text, nc6), "Standard_NC6", "{nc6}");
        let range = &nc6["range"];
        assert_eq!(
            (&range["start"]["line"], &range["start"]["column"]),
            (&Value::from(line), &Value::from(column)),
            "at the call: {nc6}"
        );
        assert_eq!(
            (&range["end"]["line"], &range["end"]["column"]),
            (&Value::from(line), &Value::from(column + 12)),
            "{nc6}"
        );
    }
    // A finding about the compute is at the call's name.
    let public = findings(&json, "setup.sh", "AML702");
    let at: Vec<(u64, u64)> = public
        .iter()
        .map(|f| {
            (
                f["range"]["start"]["line"].as_u64().unwrap(),
                f["range"]["start"]["column"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(at, [(10, 17), (11, 17)], "{json}");
    let inv = inventory(root);
    let names = names(&inv);
    assert!(!names.contains(&"sh-fn-cluster".to_string()), "{names:?}");
    let [called] = definitions(&inv, "sh-called").as_slice() else {
        panic!("{inv}")
    };
    assert_eq!(called["settings"]["size"]["value"], "Standard_NC6", "{called}");
    assert!(
        called["notes"]
            .to_string()
            .contains("run by the call `create_cluster"),
        "{called}"
    );
    assert!(
        !called["notes"].to_string().contains("under a condition"),
        "{called}"
    );
    let [cpu] = definitions(&inv, "cpu-cluster").as_slice() else {
        panic!("{inv}")
    };
    assert_eq!(cpu["settings"]["size"]["value"], "Standard_DS3_v2", "{cpu}");
    assert_eq!(cpu["settings"]["max_instances"]["value"], "4", "{cpu}");
    let [gpu] = definitions(&inv, "gpu-cluster").as_slice() else {
        panic!("{inv}")
    };
    assert_eq!(gpu["settings"]["size"]["value"], "Standard_NC6", "{gpu}");
    assert_eq!(
        gpu["settings"]["max_instances"]["value"], "2",
        "the default: {gpu}"
    );
    assert!(unnamed(&inv, "setup.sh").is_empty(), "{inv}");
    assert!(!inv.to_string().contains("the script's argument"), "{inv}");
}

/// Hostile variants: recursion, a function calling the one that creates, arguments with
/// quotes and spaces, an argument not known, a call passing fewer words, `shift`, `"$@"`,
/// a call before the definition, a function never called, a redefinition.
#[test]
fn hostile_function_calls_are_read_or_said_not_known() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "rec.sh",
        "mk() {\n  az ml compute create --name \"$1\" --type amlcompute --size \"$2\"\n  mk \"$1-again\" \"$2\"\n}\nmk \"rec-a\" \"Standard_NC6\"\n",
    );
    write(
        root,
        "nested.sh",
        "create_cluster() {\n  local name=\"${1:-d-cluster}\"\n  az ml compute create --name \"$name\" --type amlcompute --size \"${2:-Standard_DS3_v2}\"\n}\nouter() {\n  create_cluster \"o-called\" \"Standard_NC6\"\n  create_cluster \"$1\" \"Standard_NC12\"\n}\nouter \"passed\"\n",
    );
    write(
        root,
        "quotes.sh",
        "q() {\n  az ml compute create --name \"$1\" --type amlcompute --size \"$2\" --description \"$3\"\n}\nq \"it's-x\" 'Standard_NC6' \"a \\\"quoted\\\" thing with  spaces\"\nq \"$(date +%s)\" Standard_DS3_v2\nq\n",
    );
    write(
        root,
        "shift.sh",
        "s() {\n  local kind=\"$1\"\n  shift\n  az ml compute create --name \"$1\" --type \"$kind\" --size \"$2\"\n}\ns amlcompute \"shifted\" \"Standard_NC6\"\nt() {\n  if [ \"$1\" = x ]; then shift; fi\n  az ml compute create --name \"$1\" --type amlcompute --size Standard_DS3_v2\n}\nt x y\n",
    );
    write(
        root,
        "args.sh",
        "a() {\n  az ml compute create \"$@\"\n}\na --name \"all-args\" --type amlcompute --size Standard_NC6\nNAME=from-var\na --name \"$NAME\" --type amlcompute --size Standard_DS3_v2\n",
    );
    write(
        root,
        "after.sh",
        "early \"e-called\" \"Standard_NC6\"\nearly() {\n  az ml compute create --name \"${1:-early-d}\" --type amlcompute --size \"${2:-Standard_DS3_v2}\"\n}\nnever() {\n  az ml compute create --name \"$1\" --type amlcompute --size Standard_DS3_v2\n}\n",
    );
    write(
        root,
        "redef.sh",
        "r() {\n  az ml compute create --name \"$1\" --type amlcompute --size Standard_DS3_v2\n}\nr \"first\"\nr() {\n  az ml compute create --name \"$1-v2\" --type amlcompute --size Standard_NC6\n}\nr \"second\"\n",
    );
    check(root);
    let inv = inventory(root);
    let one = |name: &str| -> Value {
        let defs = definitions(&inv, name);
        assert_eq!(defs.len(), 1, "{name}: {defs:?}");
        defs[0].clone()
    };
    // Recursion: the call from its own body is not followed.
    assert_eq!(one("rec-a")["settings"]["size"]["value"], "Standard_NC6");
    assert!(!names(&inv).iter().any(|n| n.contains("again")), "{inv}");
    // A function calling the function that creates.
    assert_eq!(one("o-called")["settings"]["size"]["value"], "Standard_NC6");
    let nested = unnamed(&inv, "nested.sh");
    let [passed] = nested.as_slice() else {
        panic!("{inv}")
    };
    let why = passed["name"]["why"].as_str().unwrap();
    assert!(why.contains("the argument 1 of the function `outer`"), "{why}");
    assert_eq!(passed["settings"]["size"]["value"], "Standard_NC12", "{passed}");
    // Quotes and spaces are the words' own.
    let quoted = one("it's-x");
    assert_eq!(quoted["settings"]["size"]["value"], "Standard_NC6", "{quoted}");
    let quotes = unnamed(&inv, "quotes.sh");
    assert_eq!(quotes.len(), 2, "{inv}");
    let whys: Vec<&str> = quotes
        .iter()
        .map(|d| d["name"]["why"].as_str().unwrap())
        .collect();
    assert!(
        whys.iter()
            .any(|w| w.contains("not known at its call: it is the output of a command")),
        "{whys:?}"
    );
    assert!(
        whys.iter().any(|w| w.contains("which its call does not pass")),
        "{whys:?}"
    );
    // `shift`.
    let shifted = one("shifted");
    assert_eq!(shifted["settings"]["type"]["value"], "amlcompute", "{shifted}");
    assert_eq!(shifted["settings"]["size"]["value"], "Standard_NC6", "{shifted}");
    let found = unnamed(&inv, "shift.sh");
    let [t] = found.as_slice() else { panic!("{inv}") };
    assert!(
        t["name"]["why"]
            .as_str()
            .unwrap()
            .contains("`shift` under a condition"),
        "{t}"
    );
    // `"$@"`.
    assert_eq!(one("all-args")["settings"]["size"]["value"], "Standard_NC6");
    assert_eq!(one("from-var")["settings"]["size"]["value"], "Standard_DS3_v2");
    // A call before the definition runs nothing; a function never called is read as
    // called with no argument (its defaults), noted.
    let early = one("early-d");
    assert!(
        early["notes"]
            .to_string()
            .contains("does not call after defining it"),
        "{early}"
    );
    assert!(!names(&inv).contains(&"e-called".to_string()), "{inv}");
    let found = unnamed(&inv, "after.sh");
    let [never] = found.as_slice() else {
        panic!("{inv}")
    };
    assert!(
        never["name"]["why"]
            .as_str()
            .unwrap()
            .contains("the argument 1 of the function `never`"),
        "{never}"
    );
    // A redefinition replaces the function for the calls after it.
    assert_eq!(one("first")["settings"]["size"]["value"], "Standard_DS3_v2");
    assert_eq!(one("second-v2")["settings"]["size"]["value"], "Standard_NC6");
    assert!(!names(&inv).contains(&"second".to_string()), "{inv}");
    assert!(!names(&inv).contains(&"first-v2".to_string()), "{inv}");
    assert!(!inv.to_string().contains("the script's argument"), "{inv}");
}

/// 10,000 calls: the first 64 are read, the later ones are one definition whose name is
/// not known, saying why; output and time stay bounded.
#[test]
fn ten_thousand_calls_are_bounded() {
    use std::fmt::Write as _;
    let dir = project();
    let root = dir.path();
    let mut text = String::from(
        "m() {\n  az ml compute create --name \"$1\" --type amlcompute --size Standard_DS3_v2\n}\n",
    );
    for i in 0..10_000 {
        writeln!(text, "m \"c{i}\"").unwrap();
    }
    write(root, "many.sh", &text);
    check(root);
    let inv = inventory(root);
    assert_eq!(names(&inv).len(), 64, "{inv}");
    let found = unnamed(&inv, "many.sh");
    let [rest] = found.as_slice() else { panic!("{inv}") };
    let why = rest["name"]["why"].as_str().unwrap();
    assert!(why.contains("`m` is called 10000 times"), "{why}");
}

/// Many functions, a body of many commands called many times, functions nested deep and a
/// body that does not close: read in bounded time and output, without an internal error.
#[test]
fn many_functions_deep_nesting_and_unterminated_bodies_are_bounded() {
    use std::fmt::Write as _;
    let dir = project();
    let root = dir.path();
    // 5,000 functions, each called once, then 5,000 commands in `if`s.
    let mut text = String::new();
    for i in 0..5_000 {
        writeln!(
            text,
            "f{i}() {{\n  az ml compute create --name \"$1\" --type amlcompute --size Standard_DS3_v2\n}}\nf{i} \"n{i}\""
        )
        .unwrap();
    }
    for i in 0..5_000 {
        writeln!(text, "if true; then\n  echo \"$1\" {i}\nfi").unwrap();
    }
    write(root, "functions.sh", &text);
    // One body of 2,000 commands, called 2,000 times.
    let mut text = String::from("big() {\n");
    for _ in 0..2_000 {
        text.push_str(
            "  az ml compute create --name \"$1\" --type amlcompute --size \"${2:-Standard_DS3_v2}\"\n",
        );
    }
    text.push_str("}\n");
    for i in 0..2_000 {
        writeln!(text, "big \"b{i}\" Standard_NC6").unwrap();
    }
    write(root, "big.sh", &text);
    // 500 functions nested, each calling the next; and a body that never closes.
    let mut text = String::new();
    for i in 0..500 {
        writeln!(text, "g{i}() {{").unwrap();
    }
    text.push_str("az ml compute create --name \"${1:-deep}\" --type amlcompute --size Standard_DS3_v2\n");
    for i in (0..500).rev() {
        writeln!(text, "}}\ng{i} \"deep-{i}\"").unwrap();
    }
    text.push_str(
        "open() {\n  az ml compute create --name \"${1:-unclosed}\" --type amlcompute\nopen \"x\" \"$(\n",
    );
    write(root, "deep.sh", &text);
    check(root);
    let inv = inventory(root);
    let names = names(&inv);
    // Each of the 5,000 functions reads its one call (the script reads 1,024 calls).
    assert!(names.contains(&"n0".to_string()), "{names:?}");
    assert!(names.contains(&"n1023".to_string()), "{names:?}");
    assert!(!names.contains(&"n1024".to_string()), "{names:?}");
    let later = unnamed(&inv, "functions.sh");
    assert_eq!(later.len(), 5_000 - 1_024, "one definition each, not read");
    assert!(
        later[0]["name"]["why"]
            .as_str()
            .unwrap()
            .contains("more than 1024 times"),
        "{}",
        later[0]
    );
    // The innermost function reads its call (`g499 "deep-499"`), the nesting does not
    // multiply the definitions.
    assert!(names.contains(&"deep-499".to_string()), "{names:?}");
    assert!(unnamed(&inv, "deep.sh").len() <= 1, "{inv}");
    assert!(names.contains(&"unclosed".to_string()), "{names:?}");
}

/// Audit 31, defect 2: PowerShell's `if (-not $X) { $X = "d" }` after `param([string]$X)`
/// is the default the script runs with when not given one: the finding at the use, a label
/// at the default; a `param` default wins over it.
#[test]
fn powershell_default_if_unset_is_the_value() {
    let dir = project();
    let root = dir.path();
    let unset = "param([string]$Size)\nif (-not $Size) { $Size = \"Standard_NC6\" }\naz ml compute create --name ps-unset --size $Size --type amlcompute\n";
    let given = "param(\n  [string]$Size = 'Standard_DS3_v2'\n)\nif ([string]::IsNullOrEmpty($Size)) {\n  $Size = 'Standard_NC6'\n}\naz ml compute create --name ps-given --size $Size --type amlcompute\n";
    write(root, "unset.ps1", unset);
    write(root, "given.ps1", given);
    let json = check(root);
    let nc6 = findings(&json, "unset.ps1", "AML505");
    let [nc6] = nc6.as_slice() else { panic!("{json}") };
    assert_eq!(focused(unset, nc6), "$Size", "{nc6}");
    assert_eq!(
        (&nc6["range"]["start"]["line"], &nc6["range"]["start"]["column"]),
        (&Value::from(3), &Value::from(45)),
        "{nc6}"
    );
    let label = &nc6["labels"][0]["range"];
    assert_eq!(
        (&label["start"]["line"], &label["start"]["column"]),
        (&Value::from(2), &Value::from(28)),
        "{nc6}"
    );
    assert_eq!(
        (&label["end"]["line"], &label["end"]["column"]),
        (&Value::from(2), &Value::from(40)),
        "{nc6}"
    );
    assert!(findings(&json, "given.ps1", "AML505").is_empty(), "{json}");
    let inv = inventory(root);
    let [given] = definitions(&inv, "ps-given").as_slice() else {
        panic!("{inv}")
    };
    assert_eq!(given["settings"]["size"]["value"], "Standard_DS3_v2", "{given}");
    let [unset] = definitions(&inv, "ps-unset").as_slice() else {
        panic!("{inv}")
    };
    assert_eq!(unset["settings"]["size"]["value"], "Standard_NC6", "{unset}");
}
