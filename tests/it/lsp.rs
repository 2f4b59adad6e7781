//! `amlint lsp` driven over stdio as an editor would: Content-Length framed JSON-RPC,
//! a workspace folder of real files, every answer awaited with a timeout (a hang fails
//! the test instead of blocking it).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const TIMEOUT: Duration = Duration::from_secs(20);

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    /// Messages received but not yet looked at, in order.
    pending: Vec<Value>,
    next_id: i64,
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            length = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

impl Client {
    fn start(root: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_amlint"))
            .arg("lsp")
            .current_dir(root)
            .env("AMLINT_TODAY", "2026-11-22")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("amlint lsp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(v) = read_message(&mut r) {
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            rx,
            pending: Vec::new(),
            next_id: 0,
        }
    }

    /// Starts the server and initializes it with `root` as the workspace folder.
    fn initialized(root: &Path) -> Client {
        let mut c = Client::start(root);
        let result = c.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri(root),
                "capabilities": {},
                "workspaceFolders": [{"uri": uri(root), "name": "ws"}],
            }),
        );
        assert!(
            result["result"]["capabilities"]["hoverProvider"]
                .as_bool()
                .unwrap()
        );
        c.notify("initialized", json!({}));
        c
    }

    fn send_raw(&mut self, body: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        write!(stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        stdin.write_all(body).unwrap();
        stdin.flush().unwrap();
    }

    /// Writes bytes as they are, unframed.
    fn write_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, v: Value) {
        self.send_raw(v.to_string().as_bytes());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Waits for the first message (pending or new) that `want` accepts, and takes it.
    fn wait_for(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.pending.iter().position(&want) {
            return self.pending.remove(i);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(v) if want(&v) => return v,
                Ok(v) => self.pending.push(v),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("timed out waiting for {what}; got {:#?}", self.pending)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the server closed its output waiting for {what}")
                }
            }
        }
    }

    /// Sends a request and returns its whole response (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(&format!("the answer to {method}"), |v| {
            v["id"] == json!(id) && v.get("method").is_none()
        })
    }

    /// The next diagnostics published for `uri` at `version` (`None`: a file on disk).
    fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Vec<Value> {
        let v = self.wait_for(&format!("diagnostics for {uri} version {version:?}"), |v| {
            v["method"] == "textDocument/publishDiagnostics"
                && v["params"]["uri"] == uri
                && v["params"]["version"].as_i64() == version
        });
        v["params"]["diagnostics"].as_array().unwrap().clone()
    }

    /// The publications for `uri` at `version`, in order, until one whose codes are
    /// `want`: a re-check the server scheduled before the last change may publish the
    /// earlier state first (its debounce decides), and is passed over. Times out (as
    /// [`Client::diagnostics`]) if the wanted state never comes.
    fn diagnostics_settled(&mut self, uri: &str, version: Option<i64>, want: &[&str]) -> Vec<Value> {
        loop {
            let diags = self.diagnostics(uri, version);
            if codes(&diags) == want {
                return diags;
            }
        }
    }

    fn open(&mut self, path: &Path, text: &str) {
        let language = if path.extension().is_some_and(|e| e == "json") {
            "json"
        } else {
            "yaml"
        };
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(path), "languageId": language, "version": 1, "text": text}}),
        );
    }

    fn close(&mut self, path: &Path) {
        self.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri(path)}}),
        );
    }

    fn change(&mut self, path: &Path, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(path), "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    fn shutdown_and_exit(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r["result"], Value::Null, "{r}");
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert_eq!(status.code(), Some(0));
                return;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (dir, root)
}

fn write(root: &Path, name: &str, text: &str) -> PathBuf {
    let p = root.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics.iter().map(|d| d["code"].as_str().unwrap()).collect()
}

fn find<'a>(diagnostics: &'a [Value], code: &str) -> &'a Value {
    diagnostics
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {diagnostics:#?}"))
}

fn range(d: &Value) -> [u64; 4] {
    let r = &d["range"];
    [
        r["start"]["line"].as_u64().unwrap(),
        r["start"]["character"].as_u64().unwrap(),
        r["end"]["line"].as_u64().unwrap(),
        r["end"]["character"].as_u64().unwrap(),
    ]
}

/// Applies LSP text edits (UTF-16 positions) to `text`, last first.
fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |pos: &Value| -> usize {
        let (line, character) = (pos["line"].as_u64().unwrap(), pos["character"].as_u64().unwrap());
        let mut start = 0;
        for _ in 0..line {
            start += text[start..].find('\n').unwrap() + 1;
        }
        let mut units = 0;
        for (i, c) in text[start..].char_indices() {
            if units >= character || c == '\n' {
                return start + i;
            }
            units += c.len_utf16() as u64;
        }
        text.len()
    };
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (s, e, t) in spans {
        out.replace_range(s..e, t);
    }
    out
}

fn edits_of<'a>(action: &'a Value, path: &Path) -> &'a [Value] {
    action["edit"]["changes"][uri(path)].as_array().unwrap()
}

const DEPLOYMENT: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json
name: blue
endpoint_name: my-endpoint
model: azureml:my-model:1
instance_typ: Standard_DS3_v2
instance_count: 1
tags: {note: \"café 日本 🎉\", flag: on}
environment_variables: {A: \"1\"}
";

const FIXED: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json
name: blue
endpoint_name: my-endpoint
model: azureml:my-model:1
instance_type: Standard_DS3_v2
instance_count: 1
tags: {note: \"café 日本 🎉\", flag: \"on\"}
environment_variables: {A: \"1\"}
";

#[test]
fn diagnostics_have_utf16_ranges_codes_links_and_clear_when_fixed() {
    let (_d, root) = workspace();
    let path = root.join("deploy/deployment.yml");
    let mut c = Client::initialized(&root);
    c.open(&path, DEPLOYMENT);
    let diags = c.diagnostics(&uri(&path), Some(1));
    let unknown = find(&diags, "AML101");
    assert_eq!(range(unknown), [4, 0, 4, 12]);
    assert_eq!(unknown["severity"], 1);
    assert_eq!(unknown["source"], "amlint");
    assert_eq!(
        unknown["codeDescription"]["href"],
        "https://github.com/amlint/amlint/blob/main/docs/rules/AML101-unknown-key.md"
    );
    assert!(unknown["message"].as_str().unwrap().contains("instance_type"));
    // `on` comes after `café 日本 🎉` on its line: é, 日 and 本 are one UTF-16 unit each,
    // 🎉 is two; in bytes `on` would be at 40, in characters at 32.
    let ambiguous = find(&diags, "AML003");
    assert_eq!(range(ambiguous), [6, 33, 6, 35]);
    assert_eq!(ambiguous["severity"], 2);

    c.change(&path, 2, FIXED);
    assert_eq!(c.diagnostics(&uri(&path), Some(2)), Vec::<Value>::new());

    // A duplicate key points at the first occurrence as related information.
    c.change(&path, 3, &format!("{FIXED}name: green\n"));
    let diags = c.diagnostics(&uri(&path), Some(3));
    let dup = find(&diags, "AML002");
    assert_eq!(range(dup), [8, 0, 8, 4]);
    let related = &dup["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], uri(&path));
    assert_eq!(
        related["location"]["range"]["start"],
        json!({"line": 1, "character": 0})
    );
    assert!(
        related["message"]
            .as_str()
            .unwrap()
            .contains("first defined here")
    );

    // Incremental edits (UTF-16 ranges) are applied as the client means them, in order:
    // the duplicate line goes, and a new entry is typed right after the emoji.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&path), "version": 4}, "contentChanges": [
            {"range": {"start": {"line": 8, "character": 0}, "end": {"line": 9, "character": 0}}, "text": ""},
            {"range": {"start": {"line": 6, "character": 24}, "end": {"line": 6, "character": 24}}, "text": "\", ok: yes, z: \""},
        ]}),
    );
    let diags = c.diagnostics(&uri(&path), Some(4));
    assert_eq!(codes(&diags), ["AML003"], "{diags:#?}");
    assert_eq!(range(&diags[0]), [6, 31, 6, 34]);
    c.shutdown_and_exit();
}

const COMPUTE_CLUSTER: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json
name: gpu-cluster
type: amlcompute
size: Standard_DS3_v2
min_instances: 0
max_instances: 4
";

const COMPUTE_KUBERNETES: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/kubernetesCompute.schema.json
name: gpu-cluster
type: kubernetes
resource_id: /subscriptions/0000/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks
";

const ENDPOINT: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/kubernetesOnlineEndpoint.schema.json
name: credit-scoring
compute: azureml:gpu-cluster
auth_mode: key
";

#[test]
fn editing_a_compute_rechecks_the_endpoint_that_names_it() {
    let (_d, root) = workspace();
    let compute = write(&root, "compute/gpu-cluster.yml", COMPUTE_CLUSTER);
    let endpoint = write(&root, "endpoints/endpoint.yml", ENDPOINT);
    let mut c = Client::initialized(&root);
    // The workspace is checked on start: the endpoint on disk already has its finding.
    assert_eq!(codes(&c.diagnostics(&uri(&endpoint), None)), ["AML302"]);

    c.open(&endpoint, ENDPOINT);
    let diags = c.diagnostics(&uri(&endpoint), Some(1));
    assert_eq!(codes(&diags), ["AML302"]);
    assert_eq!(range(&diags[0]), [2, 9, 2, 28]);

    // The compute, edited in the editor into a Kubernetes cluster: the endpoint is fine.
    c.open(&compute, COMPUTE_CLUSTER);
    c.diagnostics(&uri(&compute), Some(1));
    c.change(&compute, 2, COMPUTE_KUBERNETES);
    c.diagnostics_settled(&uri(&endpoint), Some(1), &[]);
    // ... and back.
    c.change(&compute, 3, COMPUTE_CLUSTER);
    c.diagnostics_settled(&uri(&endpoint), Some(1), &["AML302"]);

    // Closed, then changed on disk by another program (a git checkout).
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&compute)}}),
    );
    std::fs::write(&compute, COMPUTE_KUBERNETES).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&compute), "type": 2}]}),
    );
    c.diagnostics_settled(&uri(&endpoint), Some(1), &[]);
    c.shutdown_and_exit();
}

#[test]
fn configuration_changes_are_picked_up() {
    let (_d, root) = workspace();
    let path = root.join("deployment.yml");
    let mut c = Client::initialized(&root);
    c.open(&path, DEPLOYMENT);
    assert!(codes(&c.diagnostics(&uri(&path), Some(1))).contains(&"AML003"));
    let config = write(&root, "amlint.toml", "ignore = [\"AML003\"]\n");
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&config), "type": 1}]}),
    );
    let diags = c.diagnostics(&uri(&path), Some(1));
    assert!(!codes(&diags).contains(&"AML003"), "{diags:#?}");
    assert!(codes(&diags).contains(&"AML101"));

    // An invalid configuration is reported on the configuration file itself.
    std::fs::write(&config, "ignore = [\"AML003\"\nprofile = 3\n").unwrap();
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri(&config)}}),
    );
    let errors = c.diagnostics(&uri(&config), None);
    assert!(!errors.is_empty());
    assert_eq!(errors[0]["severity"], 1);

    // A glob of 125 nested groups (which panicked inside the glob crate, and the server
    // published nothing): a diagnostic on the pattern, and the server goes on.
    let deep = format!("{}a,b{}", "{".repeat(125), "}".repeat(125));
    std::fs::write(&config, format!("exclude = [\"{deep}\"]\n")).unwrap();
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri(&config)}}),
    );
    let errors = c.diagnostics(&uri(&config), None);
    assert!(
        errors
            .iter()
            .any(|e| e["message"].as_str().unwrap_or_default().contains("125 deep")
                && e["range"]["start"]["line"] == 0),
        "{errors:#?}"
    );
    c.shutdown_and_exit();
}

/// A user rule file is part of the configuration: editing one reloads it, and a rule that
/// no longer compiles is a configuration error on its file — also after the configuration
/// was reloaded for another reason — until it is fixed.
#[test]
fn editing_a_user_rule_reloads_the_configuration() {
    let (_d, root) = workspace();
    let rule_text = |pattern: &str| {
        format!(
            "code: ACME001\nname: size-pattern\nseverity: warning\nsummary: s\nwhat: w\nwhy: y\n\
             example_note: none\nkinds: [amlCompute]\nwhen:\n  field: size\n  matches: \"{pattern}\"\n\
             report:\n  at: size\n  message: m\n"
        )
    };
    let rule = write(
        &root,
        "policies/ACME001-size-pattern.yaml",
        &rule_text("^Standard_"),
    );
    let config = write(&root, "amlint.toml", "rules-dirs = [\"policies\"]\n");
    let path = write(&root, "deployment.yml", DEPLOYMENT);
    let mut c = Client::initialized(&root);
    c.open(&path, DEPLOYMENT);
    assert!(codes(&c.diagnostics(&uri(&path), Some(1))).contains(&"AML003"));
    // A reload for another reason (the configuration file changed).
    std::fs::write(&config, "rules-dirs = [\"policies\"]\nignore = [\"AML003\"]\n").unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&config), "type": 2}]}),
    );
    assert!(!codes(&c.diagnostics(&uri(&path), Some(1))).contains(&"AML003"));
    // The rule file is broken on disk: reported on it.
    std::fs::write(&rule, rule_text("(")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&rule), "type": 2}]}),
    );
    let errors = c.diagnostics(&uri(&rule), None);
    assert!(
        errors.iter().any(|e| e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("regular expression")),
        "{errors:#?}"
    );
    // Fixed and saved: the error goes.
    std::fs::write(&rule, rule_text("^Standard_")).unwrap();
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri(&rule)}}),
    );
    assert_eq!(c.diagnostics(&uri(&rule), None), Vec::<Value>::new());
    c.shutdown_and_exit();
}

#[test]
fn a_change_to_a_file_the_configuration_extends_reloads_it() {
    let (_d, root) = workspace();
    let shared = write(&root, "shared/org-rules.toml", "ignore = []\n");
    write(&root, "amlint.toml", "extend = \"shared/org-rules.toml\"\n");
    let path = write(&root, "deployment.yml", DEPLOYMENT);
    let mut c = Client::initialized(&root);
    c.open(&path, DEPLOYMENT);
    assert!(codes(&c.diagnostics(&uri(&path), Some(1))).contains(&"AML003"));
    // The extended file (not a configuration file by its name) changes on disk.
    std::fs::write(&shared, "ignore = [\"AML003\"]\n").unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&shared), "type": 2}]}),
    );
    let diags = c.diagnostics(&uri(&path), Some(1));
    assert!(!codes(&diags).contains(&"AML003"), "{diags:#?}");
    assert!(codes(&diags).contains(&"AML101"));
    // Broken, then saved from the editor: reported on the extended file, with its line.
    std::fs::write(&shared, "ignore = [\"AML003\"]\nprofile = 3\n").unwrap();
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri(&shared)}}),
    );
    let errors = c.diagnostics(&uri(&shared), None);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0]["range"]["start"]["line"], 1);
    c.shutdown_and_exit();
}

#[test]
fn code_actions_fix_and_suppress() {
    let (_d, root) = workspace();
    let path = root.join("deployment.yml");
    let mut c = Client::initialized(&root);
    c.open(&path, DEPLOYMENT);
    let diags = c.diagnostics(&uri(&path), Some(1));
    let actions_at = |c: &mut Client, d: &Value| -> Vec<Value> {
        let r = c.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri(&path)}, "range": d["range"], "context": {"diagnostics": [d]}}),
        );
        r["result"].as_array().unwrap().clone()
    };

    // The did-you-mean rename: a preferred quick fix that removes AML101.
    let actions = actions_at(&mut c, find(&diags, "AML101"));
    let fix = actions
        .iter()
        .find(|a| a["isPreferred"] == true)
        .unwrap_or_else(|| panic!("no preferred fix in {actions:#?}"));
    assert_eq!(fix["kind"], "quickfix");
    assert!(fix["title"].as_str().unwrap().contains("instance_type"), "{fix}");
    let text = apply(DEPLOYMENT, edits_of(fix, &path));
    assert!(text.contains("\ninstance_type: Standard_DS3_v2\n"), "{text}");
    c.change(&path, 2, &text);
    let diags = c.diagnostics(&uri(&path), Some(2));
    assert!(!codes(&diags).contains(&"AML101"), "{diags:#?}");
    assert!(!codes(&diags).contains(&"AML104"), "{diags:#?}");

    // Suppressing AML003 on its line: a trailing comment the suppression scanner reads.
    let actions = actions_at(&mut c, find(&diags, "AML003"));
    let titles: Vec<&str> = actions.iter().map(|a| a["title"].as_str().unwrap()).collect();
    assert!(titles.contains(&"Suppress AML003 in this file"), "{titles:?}");
    let line = actions
        .iter()
        .find(|a| a["title"] == "Suppress AML003 on this line")
        .unwrap_or_else(|| panic!("{titles:?}"));
    let suppressed = apply(&text, edits_of(line, &path));
    assert!(
        suppressed.contains("flag: on}  # amlint: ignore[AML003]\n"),
        "{suppressed}"
    );
    c.change(&path, 3, &suppressed);
    assert_eq!(c.diagnostics(&uri(&path), Some(3)), Vec::<Value>::new());

    // The file-wide suppression, applied to the unsuppressed text.
    let file = actions
        .iter()
        .find(|a| a["title"] == "Suppress AML003 in this file")
        .unwrap();
    let whole = apply(&text, edits_of(file, &path));
    assert!(
        whole.starts_with("# amlint: ignore-file[AML003]\n$schema"),
        "{whole}"
    );
    c.change(&path, 4, &whole);
    assert_eq!(c.diagnostics(&uri(&path), Some(4)), Vec::<Value>::new());

    // JSON has no comments: no suppression is offered (the same finding in YAML has two).
    let json_path = root.join("deployment.json");
    let json_text = "{\n  \"$schema\": \"https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json\",\n  \"name\": \"blue\",\n  \"endpoint_name\": \"e\",\n  \"instance_typ\": \"Standard_DS3_v2\"\n}\n";
    c.open(&json_path, json_text);
    let diags = c.diagnostics(&uri(&json_path), Some(1));
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&json_path)}, "range": find(&diags, "AML101")["range"], "context": {"diagnostics": []}}),
    );
    let actions = r["result"].as_array().unwrap();
    assert!(
        actions
            .iter()
            .all(|a| !a["title"].as_str().unwrap().starts_with("Suppress")),
        "{actions:#?}"
    );
    c.shutdown_and_exit();
}

/// Issue 34, guard 3: the language server offers a rule's fix only when applying it
/// changes the data as the fix declares, as `--fix` checks before writing: a user rule
/// whose `set` value writes a second key gets no quick fix, and no "fix all".
#[test]
fn a_fix_that_changes_more_than_it_declares_is_not_offered() {
    let (_d, root) = workspace();
    write(&root, "amlint.toml", "rules-dirs = [\"policies\"]\n");
    write(&root, "policies/team.yaml", super::common::INJECTING_RULE);
    let path = root.join("job.yml");
    let text = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo\nenvironment: azureml:env:1\ntags:\n  team: data\n";
    let mut c = Client::initialized(&root);
    c.open(&path, text);
    let diags = c.diagnostics(&uri(&path), Some(1));
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&path)}, "range": find(&diags, "ORG100")["range"], "context": {"diagnostics": []}}),
    );
    let titles: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(titles.contains(&"Suppress ORG100 on this line"), "{titles:?}");
    assert!(
        titles
            .iter()
            .all(|t| !t.starts_with("Set ") && !t.starts_with("Apply ")),
        "{titles:?}"
    );
    c.shutdown_and_exit();
}

#[test]
fn hover_shows_the_rule_and_the_schema() {
    let (_d, root) = workspace();
    let path = root.join("deployment.yml");
    let mut c = Client::initialized(&root);
    c.open(&path, DEPLOYMENT);
    c.diagnostics(&uri(&path), Some(1));
    let hover = |c: &mut Client, line: u32, character: u32| -> Value {
        c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri(&path)}, "position": {"line": line, "character": character}}),
        )["result"]
            .clone()
    };
    let h = hover(&mut c, 4, 3);
    assert_eq!(h["contents"]["kind"], "markdown");
    let text = h["contents"]["value"].as_str().unwrap();
    let summary = amlint::registry::builtin()
        .get("AML101")
        .unwrap()
        .summary
        .trim()
        .to_string();
    assert!(text.contains("**AML101**"), "{text}");
    assert!(text.contains(&summary), "{text}");
    assert!(text.contains("docs/rules/AML101-unknown-key.md"), "{text}");
    assert_eq!(h["range"]["start"], json!({"line": 4, "character": 0}));

    // A key the schema describes.
    let h = hover(&mut c, 7, 5);
    let text = h["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("Environment variables configuration for the deployment."),
        "{text}"
    );
    assert!(text.contains("object"), "{text}");
    // Nothing to say about a plain value.
    assert_eq!(hover(&mut c, 1, 8), Value::Null);
    c.shutdown_and_exit();
}

#[test]
fn malformed_input_and_unknown_methods_do_not_stop_the_server() {
    let (_d, root) = workspace();
    let mut c = Client::initialized(&root);
    c.send_raw(b"{this is not json");
    let e = c.wait_for("a parse error", |v| v["error"]["code"] == -32700);
    assert_eq!(e["id"], Value::Null);
    let r = c.request("amlint/noSuchMethod", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    c.notify("amlint/noSuchNotification", json!({"x": 1}));
    c.notify("$/cancelRequest", json!({"id": 99}));
    // Bad parameters are an error answer, not a crash.
    let r = c.request("textDocument/hover", json!({"nonsense": true}));
    assert_eq!(r["error"]["code"], -32602, "{r}");

    // A file outside the workspace is still checked, on its own.
    let (_o, other) = workspace();
    let outside = other.join("deployment.yml");
    c.open(&outside, DEPLOYMENT);
    assert!(codes(&c.diagnostics(&uri(&outside), Some(1))).contains(&"AML101"));

    // Rapid edits: only the newest version is published once the typing stops, and
    // versions never go backwards.
    let path = root.join("rapid.yml");
    c.open(&path, DEPLOYMENT);
    c.diagnostics(&uri(&path), Some(1));
    for v in 2..=60 {
        let text = if v == 60 {
            FIXED.to_string()
        } else {
            format!("{DEPLOYMENT}# {v}\n")
        };
        c.change(&path, v, &text);
    }
    assert_eq!(c.diagnostics(&uri(&path), Some(60)), Vec::<Value>::new());
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&path)}, "position": {"line": 0, "character": 0}}),
    );
    assert!(r.get("error").is_none(), "{r}");
    let published: Vec<i64> = c
        .pending
        .iter()
        .filter(|v| v["method"] == "textDocument/publishDiagnostics" && v["params"]["uri"] == uri(&path))
        .map(|v| v["params"]["version"].as_i64().unwrap())
        .collect();
    assert!(published.len() < 30, "{published:?}");
    assert!(published.windows(2).all(|w| w[0] < w[1]), "{published:?}");

    // A very large file that is not an Azure ML configuration (a data file): nothing, as
    // the CLI gives nothing for it (issue 20, item 11); one named like a configuration:
    // refused with AML005, whose help names no flag the server cannot take. Not a crash.
    let big = root.join("big.yml");
    let text = format!("a: 1\n{}", "b: 2\n".repeat(2 * 1024 * 1024));
    c.open(&big, &text);
    assert_eq!(c.diagnostics(&uri(&big), Some(1)), Vec::<Value>::new());
    let big_config = root.join("deploymentconfig.json");
    c.open(
        &big_config,
        &format!(
            "{{\"computeType\": \"ACI\", \"tags\": \"{}\"}}",
            "x".repeat(9 << 20)
        ),
    );
    let diags = c.diagnostics(&uri(&big_config), Some(1));
    assert_eq!(codes(&diags), ["AML005"]);

    // Still answering.
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&path)}, "position": {"line": 0, "character": 0}}),
    );
    assert!(r.get("error").is_none(), "{r}");
    c.shutdown_and_exit();
}

#[test]
fn exit_without_shutdown_is_an_error_and_requests_before_initialize_are_refused() {
    let (_d, root) = workspace();
    let mut c = Client::start(&root);
    let r = c.request("textDocument/hover", json!({}));
    assert_eq!(r["error"]["code"], -32002, "{r}");
    c.notify("exit", Value::Null);
    drop(c.stdin.take());
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(status) = c.child.try_wait().unwrap() {
            assert_eq!(status.code(), Some(1));
            return;
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(10));
    }
}

const JOB: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json
command: python train.py
environment: azureml:sklearn:1
compute: azureml:gpu-cluster
";

#[test]
fn a_new_compute_rechecks_the_jobs_that_are_not_open() {
    let (_d, root) = workspace();
    let a = write(&root, "jobs/a.yml", JOB);
    let b = write(&root, "jobs/b.yml", JOB);
    let mut c = Client::initialized(&root);
    assert_eq!(codes(&c.diagnostics(&uri(&a), None)), ["AML203"]);
    assert_eq!(codes(&c.diagnostics(&uri(&b), None)), ["AML203"]);
    c.open(&a, JOB);
    assert_eq!(codes(&c.diagnostics(&uri(&a), Some(1))), ["AML203"]);

    // A compute defined in an unsaved buffer: both jobs resolve it, open or not.
    let compute = root.join("compute/gpu.yml");
    c.open(&compute, COMPUTE_CLUSTER);
    assert_eq!(c.diagnostics(&uri(&a), Some(1)), Vec::<Value>::new());
    assert_eq!(c.diagnostics(&uri(&b), None), Vec::<Value>::new());

    // Saved and closed: the definition is unchanged, still resolved.
    write(&root, "compute/gpu.yml", COMPUTE_CLUSTER);
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri(&compute)}}),
    );
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&compute), "type": 1}]}),
    );
    c.close(&compute);
    // Removed on disk: the finding is back on both.
    std::fs::remove_file(&compute).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&compute), "type": 3}]}),
    );
    assert_eq!(codes(&c.diagnostics(&uri(&a), Some(1))), ["AML203"]);
    assert_eq!(codes(&c.diagnostics(&uri(&b), None)), ["AML203"]);
    c.shutdown_and_exit();
}

#[test]
fn editing_a_compute_rechecks_endpoints_that_are_not_open() {
    let (_d, root) = workspace();
    let compute = write(&root, "compute/gpu-cluster.yml", COMPUTE_CLUSTER);
    let e1 = write(&root, "endpoints/e1.yml", ENDPOINT);
    let e2 = write(
        &root,
        "endpoints/e2.yml",
        &ENDPOINT.replace("credit-scoring", "fraud"),
    );
    let mut c = Client::initialized(&root);
    assert_eq!(codes(&c.diagnostics(&uri(&e1), None)), ["AML302"]);
    assert_eq!(codes(&c.diagnostics(&uri(&e2), None)), ["AML302"]);
    c.open(&e1, ENDPOINT);
    assert_eq!(codes(&c.diagnostics(&uri(&e1), Some(1))), ["AML302"]);

    c.open(&compute, COMPUTE_CLUSTER);
    c.diagnostics(&uri(&compute), Some(1));
    c.change(&compute, 2, COMPUTE_KUBERNETES);
    assert_eq!(c.diagnostics(&uri(&e1), Some(1)), Vec::<Value>::new());
    assert_eq!(c.diagnostics(&uri(&e2), None), Vec::<Value>::new());
    c.change(&compute, 3, COMPUTE_CLUSTER);
    assert_eq!(codes(&c.diagnostics(&uri(&e1), Some(1))), ["AML302"]);
    assert_eq!(codes(&c.diagnostics(&uri(&e2), None)), ["AML302"]);

    // Only files whose diagnostics changed are published again.
    c.change(
        &compute,
        4,
        &COMPUTE_CLUSTER.replace("max_instances: 4", "max_instances: 5"),
    );
    c.diagnostics(&uri(&compute), Some(4));
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&compute)}, "position": {"line": 0, "character": 0}}),
    );
    assert!(r.get("error").is_none(), "{r}");
    assert!(
        !c.pending
            .iter()
            .any(|v| v["method"] == "textDocument/publishDiagnostics" && v["params"]["uri"] == uri(&e2)),
        "{:#?}",
        c.pending
    );
    c.shutdown_and_exit();
}

#[test]
fn closing_a_modified_buffer_publishes_the_file_on_disk() {
    let (_d, root) = workspace();
    let path = write(&root, "deployment.yml", FIXED);
    let mut c = Client::initialized(&root);
    c.open(&path, FIXED);
    assert_eq!(c.diagnostics(&uri(&path), Some(1)), Vec::<Value>::new());
    c.change(&path, 2, &format!("{FIXED}bogus_key: 1\n"));
    assert_eq!(codes(&c.diagnostics(&uri(&path), Some(2))), ["AML101"]);
    c.close(&path);
    assert_eq!(c.diagnostics(&uri(&path), None), Vec::<Value>::new());
    c.shutdown_and_exit();
}

#[test]
fn a_malformed_header_does_not_break_the_framing() {
    let (_d, root) = workspace();
    let mut c = Client::initialized(&root);
    let body = br#"{"jsonrpc":"2.0","method":"x"}"#;
    for header in [
        &b"Content-Length: abc\r\n\r\n"[..],
        b"X-Other: 1\r\n\r\n",
        b"Content-Length: -5\r\n\r\n",
    ] {
        c.write_bytes(&[header, body].concat());
        let r = c.request("amlint/noSuchMethod", json!({}));
        assert_eq!(r["error"]["code"], -32601, "{r}");
    }
    c.shutdown_and_exit();
}

#[test]
fn requests_behind_a_queued_change_describe_the_text_they_follow() {
    let (_d, root) = workspace();
    let path = root.join("deployment.yml");
    let mut c = Client::initialized(&root);
    c.open(&path, FIXED);
    c.diagnostics(&uri(&path), Some(1));
    // One write: didChange v10 (an unknown key), codeAction and hover on it, didChange v11.
    let at = json!({"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 12}});
    let messages = [
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri(&path), "version": 10}, "contentChanges": [{"text": DEPLOYMENT}]}}),
        json!({"jsonrpc": "2.0", "id": 1001, "method": "textDocument/codeAction", "params": {"textDocument": {"uri": uri(&path)}, "range": at, "context": {"diagnostics": []}}}),
        json!({"jsonrpc": "2.0", "id": 1002, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri(&path)}, "position": {"line": 4, "character": 3}}}),
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri(&path), "version": 11}, "contentChanges": [{"text": format!("{DEPLOYMENT}# 11\n")}]}}),
    ];
    let mut bytes = Vec::new();
    for m in messages {
        let body = m.to_string();
        bytes.extend(format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes());
    }
    c.write_bytes(&bytes);
    let actions = c.wait_for("the code actions", |v| v["id"] == 1001);
    let actions = actions["result"].as_array().unwrap();
    assert!(
        actions
            .iter()
            .any(|a| a["isPreferred"] == true && a["title"].as_str().unwrap().contains("instance_type")),
        "{actions:#?}"
    );
    let hover = c.wait_for("the hover", |v| v["id"] == 1002);
    let text = hover["result"]["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("**AML101**"), "{hover}");
    assert!(codes(&c.diagnostics(&uri(&path), Some(11))).contains(&"AML101"));
    c.shutdown_and_exit();
}

const JOB_WITH_CODE: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json
command: python train.py
code: ./src
environment: azureml:sklearn:1
";

#[test]
fn a_created_source_folder_rechecks_the_jobs_that_name_it() {
    let (_d, root) = workspace();
    let a = write(&root, "a.yml", JOB_WITH_CODE);
    let b = write(&root, "b.yml", JOB_WITH_CODE);
    let mut c = Client::initialized(&root);
    assert_eq!(codes(&c.diagnostics(&uri(&a), None)), ["AML201"]);
    assert_eq!(codes(&c.diagnostics(&uri(&b), None)), ["AML201"]);
    c.open(&a, JOB_WITH_CODE);
    assert_eq!(codes(&c.diagnostics(&uri(&a), Some(1))), ["AML201"]);

    let train = write(&root, "src/train.py", "print('hi')\n");
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&train), "type": 1}]}),
    );
    assert_eq!(c.diagnostics(&uri(&a), Some(1)), Vec::<Value>::new());
    assert_eq!(c.diagnostics(&uri(&b), None), Vec::<Value>::new());

    // Gone again: the jobs that name it get their finding back.
    std::fs::remove_dir_all(root.join("src")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&root.join("src")), "type": 3}]}),
    );
    assert_eq!(codes(&c.diagnostics(&uri(&a), Some(1))), ["AML201"]);
    assert_eq!(codes(&c.diagnostics(&uri(&b), None)), ["AML201"]);
    c.shutdown_and_exit();
}

#[test]
fn an_excluded_file_gets_no_diagnostics_when_opened() {
    let (_d, root) = workspace();
    write(&root, "amlint.toml", "extend-exclude = [\"generated\"]\n");
    let excluded = root.join("generated/deployment.yml");
    let included = root.join("deployment.yml");
    let mut c = Client::initialized(&root);
    c.open(&excluded, DEPLOYMENT);
    c.open(&included, DEPLOYMENT);
    assert!(codes(&c.diagnostics(&uri(&included), Some(1))).contains(&"AML101"));
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&excluded)}, "position": {"line": 4, "character": 3}}),
    );
    assert_eq!(r["result"], Value::Null, "{r}");
    assert!(
        !c.pending
            .iter()
            .any(|v| v["method"] == "textDocument/publishDiagnostics" && v["params"]["uri"] == uri(&excluded)),
        "{:#?}",
        c.pending
    );
    c.shutdown_and_exit();
}

/// The server's resident memory (`VmRSS`, KiB) from `/proc`.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
#[cfg(target_os = "linux")]
fn data_files_are_not_kept_in_memory() {
    // 200 plain data JSON files, 22 MB in all (not Azure ML files: no findings), and a
    // job with a finding: the server keeps the job's diagnostics, not the data's trees.
    let (_d, root) = workspace();
    let row = r#"{"id": 12345, "name": "sample name", "values": [1.5, 2.5, 3.5], "ok": true},"#;
    let rows = 22_000_000 / 200 / row.len();
    for i in 0..200 {
        let text = format!("{{\"rows\": [{}{{}}]}}", row.repeat(rows));
        write(&root, &format!("data/part-{i:03}.json"), &text);
    }
    let job = write(&root, "jobs/train.yml", JOB);
    let mut c = Client::initialized(&root);
    assert_eq!(codes(&c.diagnostics(&uri(&job), None)), ["AML203"]);
    // Answered after the workspace's first check.
    let r = c.request("amlint/unknown", json!({}));
    assert!(r.get("error").is_some(), "{r}");
    let rss = rss_kib(c.child.id());
    eprintln!("amlint lsp RSS after indexing 22 MB of data: {} MiB", rss / 1024);
    assert!(rss < 150 * 1024, "the server holds {} MiB", rss / 1024);
    c.shutdown_and_exit();
}

/// Defect 11 of issue 21: a pipe in the workspace (here an ignore file, which the walk's
/// `ignore` crate used to open and wait on) blocked the server. Pipes and devices in the
/// workspace are looked at, never opened: the server indexes the rest and answers.
#[cfg(unix)]
#[test]
fn pipes_and_devices_in_the_workspace_never_block_the_server() {
    let (_dir, root) = workspace();
    let mkfifo = |name: &str| {
        let p = root.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    };
    mkfifo("sub/.gitignore");
    mkfifo("pipe.yml");
    std::os::unix::fs::symlink("/dev/zero", root.join("zero.yml")).unwrap();
    std::os::unix::fs::symlink("/proc/kmsg", root.join("kmsg.yml")).unwrap();
    write(&root, "sub/other.yml", JOB_WITH_DUPLICATE);
    let job = write(&root, "job.yml", JOB_WITH_DUPLICATE);
    let mut c = Client::initialized(&root);
    c.open(&job, JOB_WITH_DUPLICATE);
    let d = c.diagnostics(&uri(&job), Some(1));
    assert_eq!(codes(&d), ["AML002"], "{d:?}");
    c.shutdown_and_exit();
}

const JOB_WITH_DUPLICATE: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: local\ncompute: local\n";

/// Issue 21, item 18: a 100 MB message and a `Content-Length` that does not fit are
/// protocol errors answered once; neither is buffered nor awaited, and the messages after
/// them are served — within the hostile suite's caps (256 MiB, 256 KiB stacks).
#[test]
fn oversized_messages_are_refused_without_being_buffered() {
    let dir = tempfile::tempdir().unwrap();
    let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
    let mut input = Vec::new();
    input.extend_from_slice(b"Content-Length: 18446744073709551615\r\n\r\n");
    input.extend_from_slice(b"Content-Length: 104857600\r\n\r\n");
    input.extend(std::iter::repeat_n(b'x', 100 << 20));
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "rootUri": uri(dir.path())}});
    input.extend_from_slice(frame(&initialize.to_string()).as_bytes());
    input.extend_from_slice(frame(r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#).as_bytes());
    input.extend_from_slice(frame(r#"{"jsonrpc":"2.0","method":"exit"}"#).as_bytes());
    let mut command = Command::new(env!("CARGO_BIN_EXE_amlint"));
    command
        .arg("lsp")
        .current_dir(dir.path())
        .env("RUST_MIN_STACK", crate::capped::STACK.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = crate::capped::run(command, &input);
    assert_eq!(out.code, Some(0), "{}", out.stderr_text());
    let mut r = BufReader::new(&out.stdout[..]);
    let mut messages = Vec::new();
    while let Some(m) = read_message(&mut r) {
        messages.push(m);
    }
    let errors: Vec<&Value> = messages.iter().filter(|m| m["error"].is_object()).collect();
    assert_eq!(errors.len(), 2, "{messages:?}");
    assert!(
        errors.iter().all(|e| e["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("larger than the 67108864 bytes")),
        "{errors:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m["id"] == 1 && m["result"]["capabilities"].is_object()),
        "{messages:?}"
    );
    assert!(messages.iter().any(|m| m["id"] == 2), "{messages:?}");
}

#[test]
fn fix_all_applies_the_safe_fixes_as_check_fix_does() {
    let (_d, root) = workspace();
    let path = root.join("component.yml");
    let text = "$schema: https://azuremlschemas.azureedge.net/latest/commandComponent.schema.json\nname: train\nversion: 1.10  # kept\ntype: command\ncomand: python train.py\nenvironment: azureml:env:1\ntags: {nightly: on}\n";
    let mut c = Client::initialized(&root);
    c.open(&path, text);
    let diags = c.diagnostics(&uri(&path), Some(1));
    // The version's two fixes: the safe one preferred, the unsafe one saying so.
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&path)}, "range": find(&diags, "AML003")["range"], "context": {"diagnostics": [], "only": ["quickfix"]}}),
    );
    let actions = r["result"].as_array().unwrap().clone();
    let preferred = actions.iter().find(|a| a["isPreferred"] == true).unwrap();
    assert_eq!(
        apply(text, edits_of(preferred, &path)).lines().nth(2),
        Some("version: \"1.1\"  # kept")
    );
    assert!(
        actions.iter().any(|a| a["title"]
            .as_str()
            .unwrap()
            .ends_with("(unsafe: changes behaviour)")
            && apply(text, edits_of(a, &path)).contains("version: \"1.10\"")),
        "{actions:#?}"
    );
    // Fix all: every safe fix, in rounds, as `amlint check --fix` writes the file.
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&path)}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
    );
    let actions = r["result"].as_array().unwrap().clone();
    let all = actions
        .iter()
        .find(|a| a["kind"] == "source.fixAll.amlint")
        .unwrap_or_else(|| panic!("{actions:#?}"));
    let fixed = apply(text, edits_of(all, &path));
    std::fs::write(&path, text).unwrap();
    let out = assert_cmd::Command::cargo_bin("amlint")
        .unwrap()
        .current_dir(&root)
        .args(["check", "--fix", "component.yml"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Fixed 3 findings"),
        "{out:?}"
    );
    assert_eq!(fixed, std::fs::read_to_string(&path).unwrap());
    assert!(
        fixed.contains("command: python train.py\n") && fixed.contains("{nightly: true}"),
        "{fixed}"
    );
    c.shutdown_and_exit();
}
/// A text position request (completion, definition, references...).
fn at(c: &mut Client, method: &str, path: &Path, line: u32, character: u32) -> Value {
    let mut params = json!({
        "textDocument": {"uri": uri(path)},
        "position": {"line": line, "character": character},
    });
    if method == "textDocument/references" {
        params["context"] = json!({"includeDeclaration": true});
    }
    let r = c.request(method, params);
    assert!(r.get("error").is_none(), "{method}: {r}");
    r["result"].clone()
}

fn labels(completion: &Value) -> Vec<String> {
    completion["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

fn item<'a>(completion: &'a Value, label: &str) -> &'a Value {
    completion["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == label)
        .unwrap_or_else(|| panic!("no {label} in {completion:#}"))
}

const PIPELINE: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json
type: pipeline
display_name: café
inputs:
  raw: {type: uri_folder, path: ./data}
  rate: 0.1
outputs:
  model: {type: uri_folder}
jobs:
  prep:
    type: command
    command: python prep.py
    environment: azureml:sklearn:1
    compute: azureml:gpu-cluster
  train:
    type: command
    command: >
      python train.py
    environment: azureml:sklearn:1
    outputs:
      best: {type: mlflow_model}
";

#[test]
fn document_symbols_and_folding_ranges() {
    let (_d, root) = workspace();
    let path = root.join("pipeline.yml");
    let mut c = Client::initialized(&root);
    c.open(&path, PIPELINE);
    c.diagnostics(&uri(&path), Some(1));
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&path)}}),
    )["result"]
        .clone();
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names(&symbols),
        ["$schema", "type", "display_name", "inputs", "outputs", "jobs"]
    );
    let display = &symbols[2];
    assert_eq!(display["detail"], "café");
    // The whole entry, and the key; `é` is one UTF-16 unit.
    assert_eq!(range(display), [2, 0, 2, 18]);
    assert_eq!(range(&json!({"range": display["selectionRange"]})), [2, 0, 2, 12]);
    assert_eq!(names(&symbols[3]["children"]), ["raw", "rate"]);
    let jobs = &symbols[5];
    assert_eq!(names(&jobs["children"]), ["prep", "train"]);
    assert_eq!(range(&jobs["children"][1]), [14, 2, 20, 32]);
    let train_io = &jobs["children"][1]["children"];
    assert_eq!(names(train_io), ["outputs"]);
    assert_eq!(names(&train_io[0]["children"]), ["best"]);

    let folds = c.request(
        "textDocument/foldingRange",
        json!({"textDocument": {"uri": uri(&path)}}),
    )["result"]
        .clone();
    let folds: Vec<(u64, u64)> = folds
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["startLine"].as_u64().unwrap(), f["endLine"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        folds,
        [(3, 5), (6, 7), (8, 20), (9, 13), (14, 20), (16, 17), (19, 20)]
    );
    c.shutdown_and_exit();
}

const COMPUTE_GPU: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json
name: gpu-cluster
type: amlcompute
size: Standard_NC6s_v3
";

#[test]
fn completion_of_keys_values_sizes_names_and_schemas() {
    let (_d, root) = workspace();
    write(&root, "compute/gpu.yml", COMPUTE_GPU);
    let path = root.join("job.yml");
    let text = "\
$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json
command: python train.py
environment: azureml:sklearn:1
compute: 
resources:
  instance_type: Standard_NC6s
distribution:
  type: 
";
    let mut c = Client::initialized(&root);
    c.open(&path, text);
    c.diagnostics(&uri(&path), Some(1));

    // Keys at the top: allowed ones, not those present, with type and description.
    let top = at(&mut c, "textDocument/completion", &path, 8, 0);
    let keys = labels(&top);
    assert!(
        keys.contains(&"code".to_string()) && keys.contains(&"inputs".to_string()),
        "{keys:?}"
    );
    for present in ["command", "environment", "compute", "resources", "$schema"] {
        assert!(!keys.contains(&present.to_string()), "{present} in {keys:?}");
    }
    let code = item(&top, "code");
    assert_eq!(code["textEdit"]["newText"], "code: ");
    assert!(
        code["documentation"]["value"]
            .as_str()
            .is_some_and(|d| !d.is_empty()),
        "{code}"
    );
    assert!(
        code["detail"].as_str().is_some_and(|d| d.contains("string")),
        "{code}"
    );

    // Names the workspace defines.
    let compute = at(&mut c, "textDocument/completion", &path, 3, 9);
    assert_eq!(labels(&compute), ["azureml:gpu-cluster"]);
    assert_eq!(item(&compute, "azureml:gpu-cluster")["detail"], "amlcompute");

    // VM sizes from the catalogue, by prefix, with their facts; retired ones marked.
    let sizes = at(&mut c, "textDocument/completion", &path, 5, 30);
    let names = labels(&sizes);
    assert!(names.contains(&"Standard_NC6s_v3".to_string()), "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("Standard_NC6s")), "{names:?}");
    let v3 = item(&sizes, "Standard_NC6s_v3");
    let detail = v3["detail"].as_str().unwrap();
    assert!(
        detail.contains("NCv3") && detail.contains("112 GiB") && detail.contains("1 GPU"),
        "{detail}"
    );
    assert!(detail.contains("retired 2025-09-30"), "{detail}");
    assert_eq!(v3["tags"], json!([1]));
    assert_eq!(
        v3["textEdit"]["range"],
        json!({"start": {"line": 5, "character": 17}, "end": {"line": 5, "character": 30}})
    );

    // `type:` values of a union.
    let types = labels(&at(&mut c, "textDocument/completion", &path, 7, 8));
    for t in ["pytorch", "tensorflow", "mpi"] {
        assert!(types.contains(&t.to_string()), "{types:?}");
    }

    // `$schema` URLs of every kind.
    let schemas = at(&mut c, "textDocument/completion", &path, 0, 9);
    let urls = labels(&schemas);
    assert!(urls.contains(
        &"https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json".to_string()
    ));
    assert!(urls.len() > 20, "{urls:?}");
    c.shutdown_and_exit();
}

#[test]
fn completion_in_an_unfinished_document_with_utf16_positions() {
    let (_d, root) = workspace();
    let path = root.join("pipeline.yml");
    // A step's key being typed with no value yet, and a non-ASCII comment on a line
    // above: the document does not parse as a pipeline the CLI loads.
    let text = "\
$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json
type: pipeline
jobs:
  sweep_step:
    type: sweep
    sampling_algo
  train:
    type: command
    compute: azureml:x
    environment_variables: {NOTE: \"日本🎉\"}
    resources:
      instance_type: Ståndard_NC
";
    let mut c = Client::initialized(&root);
    c.open(&path, text);
    c.diagnostics(&uri(&path), Some(1));
    let sweep = at(&mut c, "textDocument/completion", &path, 5, 17);
    let keys = labels(&sweep);
    assert!(keys.contains(&"sampling_algorithm".to_string()), "{keys:?}");
    assert!(keys.contains(&"search_space".to_string()), "{keys:?}");
    assert!(!keys.contains(&"type".to_string()), "{keys:?}");
    assert!(
        !keys.contains(&"command".to_string()),
        "a command step's key: {keys:?}"
    );
    assert_eq!(
        item(&sweep, "sampling_algorithm")["textEdit"]["range"],
        json!({"start": {"line": 5, "character": 4}, "end": {"line": 5, "character": 17}})
    );
    // The keys of a command step, at the end of a flow mapping holding an emoji (two
    // UTF-16 units) on the line before.
    let train = labels(&at(&mut c, "textDocument/completion", &path, 9, 4));
    assert!(
        train.contains(&"command".to_string()) && !train.contains(&"compute".to_string()),
        "{train:?}"
    );
    // Inside a step's mapping: no `$schema`, no output-only keys.
    for absent in ["$schema", "creation_context"] {
        assert!(!train.contains(&absent.to_string()), "{absent} in {train:?}");
    }
    // `å` is one UTF-16 unit and two bytes: the edit starts after `instance_type: `.
    let sizes = at(&mut c, "textDocument/completion", &path, 11, 27);
    let catalogue: Vec<String> = labels(&sizes)
        .into_iter()
        .filter(|l| l.starts_with("Standard_"))
        .collect();
    assert_eq!(catalogue, Vec::<String>::new(), "no size starts with Stå");
    c.change(&path, 2, &text.replace("Ståndard_NC", "Standard_NC24ads"));
    c.diagnostics(&uri(&path), Some(2));
    let sizes = at(&mut c, "textDocument/completion", &path, 11, 32);
    assert!(labels(&sizes).contains(&"Standard_NC24ads_A100_v4".to_string()));
    assert_eq!(
        item(&sizes, "Standard_NC24ads_A100_v4")["textEdit"]["range"]["start"],
        json!({"line": 11, "character": 21})
    );

    // Positions past the end of a line or the text, and an empty document: answers,
    // not errors.
    for (line, character) in [(5, 999), (99, 0), (0, 0)] {
        at(&mut c, "textDocument/completion", &path, line, character);
        at(&mut c, "textDocument/definition", &path, line, character);
        at(&mut c, "textDocument/references", &path, line, character);
    }
    c.change(&path, 3, "");
    c.diagnostics(&uri(&path), Some(3));
    for method in [
        "textDocument/completion",
        "textDocument/definition",
        "textDocument/references",
    ] {
        at(&mut c, method, &path, 3, 7);
    }
    c.shutdown_and_exit();
}

#[test]
fn a_new_file_gets_a_snippet_per_kind() {
    let (_d, root) = workspace();
    let path = root.join("new.yml");
    let mut c = Client::initialized(&root);
    c.open(&path, "");
    c.diagnostics(&uri(&path), Some(1));
    let snippets = at(&mut c, "textDocument/completion", &path, 0, 0);
    let job = item(&snippets, "commandJob (new file)");
    assert_eq!(job["insertTextFormat"], 2);
    assert_eq!(
        job["textEdit"]["newText"],
        "\\$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ntype: command\ncommand: $1\nenvironment: $2\n$0"
    );
    let compute = item(&snippets, "amlCompute (new file)");
    let text = compute["textEdit"]["newText"].as_str().unwrap();
    assert!(text.contains("type: amlcompute\nname: $1\n"), "{text}");
    // Once the file has content, no snippets.
    c.change(&path, 2, "foo: 1\n");
    c.diagnostics(&uri(&path), Some(2));
    assert_eq!(
        labels(&at(&mut c, "textDocument/completion", &path, 1, 0)),
        Vec::<String>::new()
    );
    c.shutdown_and_exit();
}

#[test]
fn files_that_are_not_azure_ml_get_nothing() {
    let (_d, root) = workspace();
    let path = root.join("values.yaml");
    let text = "replicas: 3\nimage:\n  repository: nginx\n  tag: latest\ncompute: azureml:x\n";
    let mut c = Client::initialized(&root);
    c.open(&path, text);
    assert_eq!(c.diagnostics(&uri(&path), Some(1)), Vec::<Value>::new());
    let doc = json!({"textDocument": {"uri": uri(&path)}});
    let symbols = c.request("textDocument/documentSymbol", doc.clone());
    assert_eq!(symbols["result"], json!([]), "{symbols}");
    let folds = c.request("textDocument/foldingRange", doc);
    assert_eq!(folds["result"], json!([]), "{folds}");
    assert_eq!(
        labels(&at(&mut c, "textDocument/completion", &path, 2, 2)),
        Vec::<String>::new()
    );
    assert_eq!(at(&mut c, "textDocument/definition", &path, 4, 12), json!([]));
    assert_eq!(at(&mut c, "textDocument/references", &path, 4, 12), json!([]));
    c.shutdown_and_exit();
}

#[test]
fn definition_and_references_of_computes_and_local_paths() {
    let (_d, root) = workspace();
    let compute = write(&root, "compute/gpu.yml", COMPUTE_GPU);
    write(&root, "src/train.py", "print(1)\n");
    write(&root, "env/conda.yml", "name: x\n");
    let other = write(
        &root,
        "jobs/other.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python x.py\nenvironment: azureml:sklearn:1\ncompute: azureml:gpu-cluster\n",
    );
    let path = root.join("pipeline.yml");
    let text = "\
$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json
type: pipeline
jobs:
  train: {type: command, display_name: \"日本🎉\", compute: azureml:gpu-cluster, command: python train.py, code: ./src, environment: azureml:sklearn:1}
settings:
  default_compute: azureml:gpu-cluster
";
    let mut c = Client::initialized(&root);
    c.open(&path, text);
    c.diagnostics(&uri(&path), Some(1));
    // On `gpu-cluster`, after the emoji (two UTF-16 units) on the same line.
    let line = text.lines().nth(3).unwrap();
    let col = |s: &str| line[..line.find(s).unwrap()].encode_utf16().count() as u32;
    let def = at(
        &mut c,
        "textDocument/definition",
        &path,
        3,
        col("gpu-cluster") + 3,
    );
    assert_eq!(
        def,
        json!([{"uri": uri(&compute), "range": {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 17}}}])
    );
    assert_eq!(at(&mut c, "textDocument/definition", &path, 5, 30), def);
    // A local folder.
    let def = at(&mut c, "textDocument/definition", &path, 3, col("./src") + 1);
    assert_eq!(def[0]["uri"], uri(&root.join("src")));
    // Nothing to go to from a command.
    assert_eq!(
        at(
            &mut c,
            "textDocument/definition",
            &path,
            3,
            col("python train") + 1
        ),
        json!([])
    );

    // References from the reference and from the definition: the same places.
    let refs = at(
        &mut c,
        "textDocument/references",
        &path,
        3,
        col("gpu-cluster") + 1,
    );
    let mut places: Vec<(String, [u64; 4])> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["uri"].as_str().unwrap().to_string(), range(l)))
        .collect();
    places.sort();
    let start = col("azureml:gpu-cluster") as u64;
    let mut want = vec![
        (uri(&compute), [1, 6, 1, 17]),
        (uri(&other), [3, 9, 3, 28]),
        (uri(&path), [3, start, 3, start + 19]),
        (uri(&path), [5, 19, 5, 38]),
    ];
    want.sort();
    assert_eq!(places, want);
    c.open(&compute, COMPUTE_GPU);
    c.diagnostics(&uri(&compute), Some(1));
    let from_def = at(&mut c, "textDocument/references", &compute, 1, 8);
    assert_eq!(from_def.as_array().unwrap().len(), 4, "{from_def}");
    c.shutdown_and_exit();
}

const ENV_V1: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/environment.schema.json
name: sklearn
version: 1
image: mcr.microsoft.com/azureml/openmpi4.1.0-ubuntu20.04
";

#[test]
fn environments_are_completed_and_navigated() {
    let (_d, root) = workspace();
    let v1 = write(&root, "env/sklearn.yml", ENV_V1);
    let v2 = write(
        &root,
        "env/sklearn-2.yml",
        &ENV_V1.replace("version: 1", "version: 2"),
    );
    // A version written as a string, and an environment without a version.
    write(
        &root,
        "env/torch.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/environment.schema.json\nname: torch\nimage: x\n",
    );
    let other = write(
        &root,
        "jobs/other.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python x.py\nenvironment: azureml:sklearn@latest\ncompute: azureml:sklearn\n",
    );
    let path = root.join("pipeline.yml");
    let text = "\
$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json
type: pipeline
jobs:
  a: {type: command, display_name: \"日本🎉\", command: python a.py, environment: azureml:sklearn:1}
  b: {type: command, command: python b.py, environment: azureml:SKLEARN:2}
  c:
    type: command
    command: python c.py
    environment: azureml:sklearn@latest
  d:
    type: command
    command: python d.py
    environment: azureml:sk
";
    let mut c = Client::initialized(&root);
    c.open(&path, text);
    c.diagnostics(&uri(&path), Some(1));

    // Completion: every version, and `@latest` once per name.
    let done = at(&mut c, "textDocument/completion", &path, 12, 27);
    assert_eq!(
        labels(&done),
        [
            "azureml:sklearn:1",
            "azureml:sklearn:2",
            "azureml:sklearn@latest",
            "azureml:torch@latest"
        ]
    );
    assert_eq!(item(&done, "azureml:sklearn:2")["detail"], "environment");
    assert_eq!(
        range(&item(&done, "azureml:sklearn:1")["textEdit"]),
        [12, 17, 12, 27]
    );

    // Definition: the version named (any case), the highest one for `@latest`; the
    // `name:` of the file, after the emoji (two UTF-16 units) on the line.
    let line = text.lines().nth(3).unwrap();
    let col = line[..line.find("azureml:sklearn:1").unwrap()]
        .encode_utf16()
        .count() as u32;
    let name_range = |p: &Path| json!([{"uri": uri(p), "range": {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 13}}}]);
    assert_eq!(
        at(&mut c, "textDocument/definition", &path, 3, col + 10),
        name_range(&v1)
    );
    assert_eq!(
        at(&mut c, "textDocument/definition", &path, 4, 60),
        name_range(&v2)
    );
    assert_eq!(
        at(&mut c, "textDocument/definition", &path, 8, 25),
        name_range(&v2)
    );
    // A version nobody defines: nothing.
    assert_eq!(at(&mut c, "textDocument/definition", &path, 12, 20), json!([]));

    // References from the definition: every `environment:` naming it and every file
    // defining it, whatever the version, and not the compute of the same name.
    c.open(&v1, ENV_V1);
    c.diagnostics(&uri(&v1), Some(1));
    let refs = at(&mut c, "textDocument/references", &v1, 1, 8);
    let mut places: Vec<(String, [u64; 4])> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["uri"].as_str().unwrap().to_string(), range(l)))
        .collect();
    places.sort();
    let mut want = vec![
        (uri(&v1), [1, 6, 1, 13]),
        (uri(&v2), [1, 6, 1, 13]),
        (uri(&other), [2, 13, 2, 35]),
        (uri(&path), [3, col as u64, 3, col as u64 + 17]),
        (uri(&path), [4, 56, 4, 73]),
        (uri(&path), [8, 17, 8, 39]),
    ];
    want.sort();
    assert_eq!(places, want);
    // From a reference: the same places.
    let from_ref = at(&mut c, "textDocument/references", &path, 8, 25);
    assert_eq!(from_ref.as_array().unwrap().len(), 6, "{from_ref}");
    c.shutdown_and_exit();
}

#[test]
fn pull_diagnostics_answer_what_was_pushed() {
    let (_d, root) = workspace();
    // A file on disk, never opened: pushed without a version, pulled the same.
    let on_disk = write(&root, "deploy/other.yml", DEPLOYMENT);
    let path = root.join("deploy/deployment.yml");
    let mut c = Client::start(&root);
    let init = c.request(
        "initialize",
        json!({"processId": null, "capabilities": {}, "workspaceFolders": [{"uri": uri(&root), "name": "ws"}]}),
    );
    // A client that cannot be told to pull again gets push only (pulls are answered
    // all the same).
    assert!(
        init["result"]["capabilities"].get("diagnosticProvider").is_none(),
        "{init}"
    );
    c.notify("initialized", json!({}));
    let pushed_disk = c.diagnostics(&uri(&on_disk), None);
    assert!(codes(&pushed_disk).contains(&"AML101"), "{pushed_disk:#?}");
    let pull = |c: &mut Client, p: &Path| {
        let r = c.request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri(p)}}),
        );
        assert_eq!(r["result"]["kind"], "full", "{r}");
        r["result"]["items"].as_array().unwrap().clone()
    };
    assert_eq!(pull(&mut c, &on_disk), pushed_disk);

    c.open(&path, DEPLOYMENT);
    let pushed = c.diagnostics(&uri(&path), Some(1));
    assert_eq!(range(find(&pushed, "AML003")), [6, 33, 6, 35]);
    assert_eq!(pull(&mut c, &path), pushed);
    // A pull right behind a change answers for the changed text (the pending check
    // runs first, once: its push carries the same findings).
    c.change(&path, 2, FIXED);
    let pulled = pull(&mut c, &path);
    assert_eq!(pulled, Vec::<Value>::new());
    assert_eq!(c.diagnostics(&uri(&path), Some(2)), pulled);
    // A file that is neither open nor has findings: none.
    assert_eq!(pull(&mut c, &root.join("nothing.yml")), Vec::<Value>::new());
    c.shutdown_and_exit();
}

const FLOW: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json
type: pipeline
display_name: café 🎉
inputs:
  raw: {type: uri_folder, path: ./data}
outputs:
  final: ${{parent.jobs.train.outputs.model}}
jobs:
  prep:
    type: command
    command: echo 日本🎉 ${{inputs.src}} ${{outputs.out}}
    environment: azureml:sklearn:1
    inputs:
      src: ${{parent.inputs.raw}}
    outputs:
      out: {type: uri_folder}
  train:
    component: ./train.yml
    inputs:
      data: ${{parent.jobs.prep.outputs.out}}
      extra: ${{parent.jobs.score.outputs.result}}
  score:
    component: azureml:score:1
";

const TRAIN_COMPONENT: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/commandComponent.schema.json
name: train
type: command
inputs:
  data: {type: uri_folder}
  extra: {type: uri_folder, optional: true}
outputs:
  model: {type: mlflow_model}
command: python train.py ${{inputs.data}} $[[${{inputs.extra}}]] ${{outputs.model}}
environment: azureml:sklearn:1
";

/// The UTF-16 column of the `nth` occurrence of `s` on `line` of `text`.
fn col16(text: &str, line: usize, s: &str) -> u32 {
    let l = text.lines().nth(line).unwrap();
    l[..l.find(s).unwrap()].encode_utf16().count() as u32
}

#[test]
fn definition_of_bindings() {
    let (_d, root) = workspace();
    let component = write(&root, "train.yml", TRAIN_COMPONENT);
    let path = write(&root, "pipe.yml", FLOW);
    let mut c = Client::initialized(&root);
    c.open(&path, FLOW);
    c.diagnostics(&uri(&path), Some(1));
    let mut def = |line: usize, s: &str| {
        let r = at(
            &mut c,
            "textDocument/definition",
            &path,
            line as u32,
            col16(FLOW, line, s) + 4,
        );
        r.as_array()
            .unwrap()
            .iter()
            .map(|l| (l["uri"].as_str().unwrap().to_string(), range(l)))
            .collect::<Vec<_>>()
    };
    let here = uri(&path);
    // After `日本🎉` (four UTF-16 units, ten bytes) on the command's line.
    assert_eq!(def(10, "${{inputs.src"), vec![(here.clone(), [13, 6, 13, 9])]);
    assert_eq!(def(10, "${{outputs.out"), vec![(here.clone(), [15, 6, 15, 9])]);
    assert_eq!(def(13, "${{parent.inputs"), vec![(here.clone(), [4, 2, 4, 5])]);
    // A step's output it declares itself; a local component file's output; a step whose
    // component is not in the project: its key.
    assert_eq!(def(19, "${{parent"), vec![(here.clone(), [15, 6, 15, 9])]);
    assert_eq!(def(6, "${{parent"), vec![(uri(&component), [7, 2, 7, 7])]);
    assert_eq!(def(20, "${{parent"), vec![(here.clone(), [21, 2, 21, 7])]);
    // Outside a binding on the same line: nothing (a key is not a binding).
    assert_eq!(def(20, "extra"), vec![]);
    // In the component file: its own ports, inside an optional block too.
    c.open(&component, TRAIN_COMPONENT);
    c.diagnostics(&uri(&component), Some(1));
    let line = TRAIN_COMPONENT.lines().nth(8).unwrap();
    let col = line.find("${{inputs.extra").unwrap() as u32 + 5;
    let r = at(&mut c, "textDocument/definition", &component, 8, col);
    assert_eq!(range(&r[0]), [5, 2, 5, 7]);
    // Every position of the pipeline, past the ends included: answers, never errors.
    for (i, l) in FLOW.lines().enumerate() {
        for ch in (0..l.encode_utf16().count() as u32 + 3).step_by(3) {
            at(&mut c, "textDocument/definition", &path, i as u32, ch);
        }
    }
    c.shutdown_and_exit();
}

#[test]
fn completion_inside_bindings() {
    let (_d, root) = workspace();
    write(&root, "train.yml", TRAIN_COMPONENT);
    let path = write(&root, "pipe.yml", FLOW);
    let mut c = Client::initialized(&root);
    c.open(&path, FLOW);
    c.diagnostics(&uri(&path), Some(1));
    let mut version = 1;
    // Replaces line `line` by `text` and completes at its end.
    let mut complete = |line: usize, text: &str| -> Value {
        let mut lines: Vec<&str> = FLOW.lines().collect();
        lines[line] = text;
        let new = lines.join("\n") + "\n";
        version += 1;
        c.change(&path, version, &new);
        at(
            &mut c,
            "textDocument/completion",
            &path,
            line as u32,
            text.encode_utf16().count() as u32,
        )
    };
    let r = complete(20, "      extra: 日本🎉 ${{parent.jobs.");
    assert_eq!(labels(&r), ["prep", "train", "score"]);
    // The edit replaces what is typed after the last dot: nothing yet (column 33 in
    // UTF-16 units: 日本 one each, 🎉 two; 41 in bytes).
    assert_eq!(range(&item(&r, "prep")["textEdit"]), [20, 33, 20, 33]);
    let r = complete(20, "      extra: 日本🎉 ${{parent.jobs.tr");
    assert_eq!(labels(&r), ["train"]);
    assert_eq!(range(&item(&r, "train")["textEdit"]), [20, 33, 20, 35]);
    let r = complete(20, "      extra: ${{parent.jobs.prep.outputs.");
    assert_eq!(labels(&r), ["out"]);
    assert_eq!(item(&r, "out")["detail"], "uri_folder output of step `prep`");
    let r = complete(20, "      extra: ${{parent.jobs.train.outputs.");
    assert_eq!(labels(&r), ["model"]);
    assert_eq!(
        item(&r, "model")["detail"],
        "mlflow_model output of step `train` (train.yml)"
    );
    let r = complete(20, "      extra: ${{parent.jobs.train.inputs.");
    assert_eq!(labels(&r), ["data", "extra"]);
    // A component not in the project: nothing known.
    let r = complete(20, "      extra: ${{parent.jobs.score.outputs.");
    assert_eq!(labels(&r), Vec::<String>::new());
    let r = complete(20, "      extra: ${{ parent.inputs.");
    assert_eq!(labels(&r), ["raw"]);
    let r = complete(10, "    command: echo 日本🎉 ${{inputs.");
    assert_eq!(labels(&r), ["src"]);
    let r = complete(10, "    command: echo 日本🎉 ${{outputs.o");
    assert_eq!(labels(&r), ["out"]);
    // After a closed binding: the schema's completion again, not the binding's.
    let r = complete(20, "      extra: ${{parent.jobs.prep}} ");
    assert!(!labels(&r).contains(&"prep".to_string()), "{r}");
    c.shutdown_and_exit();
}

/// The UTF-16 range of the first `s` on `line` of `text`.
fn span16(text: &str, line: usize, s: &str) -> [u64; 4] {
    let start = col16(text, line, s) as u64;
    let l = line as u64;
    [l, start, l, start + s.encode_utf16().count() as u64]
}

/// The (uri, range) of each location, sorted.
fn places(locations: &Value) -> Vec<(String, [u64; 4])> {
    let mut out: Vec<(String, [u64; 4])> = locations
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["uri"].as_str().unwrap().to_string(), range(l)))
        .collect();
    out.sort();
    out
}

const OTHER_PIPE: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json
type: pipeline
jobs:
  fit:
    component: file:./train.yml
    inputs:
      data: {type: uri_folder, path: ./d}
  after:
    type: command
    command: echo ${{inputs.m}}
    inputs:
      m: ${{parent.jobs.fit.outputs.model}}
";

#[test]
fn references_of_bindings() {
    let (_d, root) = workspace();
    let component = write(&root, "train.yml", TRAIN_COMPONENT);
    let path = write(&root, "pipe.yml", FLOW);
    let other = write(&root, "other-pipe.yml", OTHER_PIPE);
    let mut c = Client::initialized(&root);
    c.open(&path, FLOW);
    c.diagnostics(&uri(&path), Some(1));
    let (here, comp, there) = (uri(&path), uri(&component), uri(&other));
    let refs = |c: &mut Client, p: &Path, text: &str, line: usize, s: &str, declaration: bool| {
        let r = c.request(
            "textDocument/references",
            json!({
                "textDocument": {"uri": uri(p)},
                "position": {"line": line, "character": col16(text, line, s) + 1},
                "context": {"includeDeclaration": declaration},
            }),
        );
        assert!(r.get("error").is_none(), "{r}");
        places(&r["result"])
    };
    let sorted = |mut v: Vec<(String, [u64; 4])>| {
        v.sort();
        v
    };

    // A step's output: from its key and from a binding naming it, after `日本🎉` on the
    // command's line (UTF-16 columns).
    let out = sorted(vec![
        (here.clone(), [15, 6, 15, 9]),
        (here.clone(), span16(FLOW, 10, "${{outputs.out}}")),
        (
            here.clone(),
            span16(FLOW, 19, "${{parent.jobs.prep.outputs.out}}"),
        ),
    ]);
    assert_eq!(refs(&mut c, &path, FLOW, 15, "out", true), out);
    assert_eq!(refs(&mut c, &path, FLOW, 19, "${{parent", true), out);
    assert_eq!(refs(&mut c, &path, FLOW, 10, "${{outputs", true), out);
    // Without the declaration.
    let uses: Vec<_> = out.iter().filter(|(_, r)| r[0] != 15).cloned().collect();
    assert_eq!(refs(&mut c, &path, FLOW, 15, "out", false), uses);
    // The pipeline's input.
    assert_eq!(
        refs(&mut c, &path, FLOW, 4, "raw", true),
        sorted(vec![
            (here.clone(), [4, 2, 4, 5]),
            (here.clone(), span16(FLOW, 13, "${{parent.inputs.raw}}")),
        ])
    );
    // A step: every binding through `parent.jobs.<step>`; a step whose component is
    // unknown, from a binding to one of its ports.
    assert_eq!(
        refs(&mut c, &path, FLOW, 8, "prep", true),
        sorted(vec![
            (here.clone(), [8, 2, 8, 6]),
            (
                here.clone(),
                span16(FLOW, 19, "${{parent.jobs.prep.outputs.out}}")
            ),
        ])
    );
    assert_eq!(
        refs(&mut c, &path, FLOW, 20, "${{parent", true),
        sorted(vec![
            (here.clone(), [21, 2, 21, 7]),
            (
                here.clone(),
                span16(FLOW, 20, "${{parent.jobs.score.outputs.result}}")
            ),
        ])
    );

    // A component file's output, from a pipeline's binding: the component's own
    // binding and the steps of every pipeline that use the file (the other one is not
    // open: read from disk).
    let model = sorted(vec![
        (comp.clone(), [7, 2, 7, 7]),
        (comp.clone(), span16(TRAIN_COMPONENT, 8, "${{outputs.model}}")),
        (
            here.clone(),
            span16(FLOW, 6, "${{parent.jobs.train.outputs.model}}"),
        ),
        (
            there.clone(),
            span16(OTHER_PIPE, 11, "${{parent.jobs.fit.outputs.model}}"),
        ),
    ]);
    assert_eq!(refs(&mut c, &path, FLOW, 6, "${{parent", true), model);
    // From the component's key, the component open: the same; its input `data` is
    // bound by the steps' `inputs:` keys.
    c.open(&component, TRAIN_COMPONENT);
    c.diagnostics(&uri(&component), Some(1));
    assert_eq!(refs(&mut c, &component, TRAIN_COMPONENT, 7, "model", true), model);
    let data = sorted(vec![
        (comp.clone(), [4, 2, 4, 6]),
        (comp.clone(), span16(TRAIN_COMPONENT, 8, "${{inputs.data}}")),
        (here.clone(), [19, 6, 19, 10]),
        (there.clone(), [6, 6, 6, 10]),
    ]);
    assert_eq!(refs(&mut c, &component, TRAIN_COMPONENT, 4, "data", true), data);
    // From a step's key binding it: the same.
    assert_eq!(refs(&mut c, &path, FLOW, 19, "data", true), data);
    c.shutdown_and_exit();
}

/// The CPU time (user + system, clock ticks) a process has used.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// A workspace pull's items by URI: (kind, version, resultId, codes).
fn workspace_items(r: &Value) -> std::collections::BTreeMap<String, (String, Value, String, Vec<String>)> {
    r["result"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .map(|i| {
            let codes = i["items"]
                .as_array()
                .map(|d| {
                    d.iter()
                        .map(|d| d["code"].as_str().unwrap().to_string())
                        .collect()
                })
                .unwrap_or_default();
            (
                i["uri"].as_str().unwrap().to_string(),
                (
                    i["kind"].as_str().unwrap().to_string(),
                    i["version"].clone(),
                    i["resultId"].as_str().unwrap().to_string(),
                    codes,
                ),
            )
        })
        .collect()
}

/// The result ids a workspace pull's report gives, as the client sends them back.
fn known_of(
    report: &std::collections::BTreeMap<String, (String, Value, String, Vec<String>)>,
) -> Vec<(String, String)> {
    report
        .iter()
        .map(|(u, (_, _, id, _))| (u.clone(), id.clone()))
        .collect()
}

#[test]
fn a_client_that_pulls_gets_pulls_only_and_a_workspace_pull_is_held_until_something_changes() {
    let (_d, root) = workspace();
    let on_disk = write(&root, "deploy/other.yml", DEPLOYMENT);
    let compute = write(&root, "compute/gpu-cluster.yml", COMPUTE_CLUSTER);
    let endpoint = write(&root, "endpoints/endpoint.yml", ENDPOINT);
    let clean = write(&root, "clean.yml", "a: 1\n");
    let mut c = Client::start(&root);
    let init = c.request(
        "initialize",
        json!({
            "processId": null,
            "capabilities": {
                "textDocument": {"diagnostic": {"dynamicRegistration": false}},
                "workspace": {"diagnostics": {"refreshSupport": true}},
            },
            "workspaceFolders": [{"uri": uri(&root), "name": "ws"}],
        }),
    );
    assert_eq!(
        init["result"]["capabilities"]["diagnosticProvider"],
        json!({"identifier": "amlint", "interFileDependencies": true, "workspaceDiagnostics": true})
    );
    c.notify("initialized", json!({}));
    let pull_workspace = |c: &mut Client, known: &[(String, String)]| -> i64 {
        c.next_id += 1;
        let id = c.next_id;
        let previous: Vec<Value> = known.iter().map(|(u, v)| json!({"uri": u, "value": v})).collect();
        c.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "workspace/diagnostic",
            "params": {"previousResultIds": previous}}),
        );
        id
    };
    let answer = |c: &mut Client, id: i64| c.wait_for("the workspace pull", |v| v["id"] == json!(id));

    // Nothing known: answered at once, every file with findings; not open: no version.
    let id = pull_workspace(&mut c, &[]);
    let first = workspace_items(&answer(&mut c, id));
    let (kind, version, disk_id, codes) = &first[&uri(&on_disk)];
    assert_eq!((kind.as_str(), version), ("full", &Value::Null));
    assert!(codes.contains(&"AML101".to_string()), "{codes:?}");
    assert_eq!(first[&uri(&endpoint)].3, ["AML302"]);
    assert!(!first.contains_key(&uri(&clean)), "no findings: not reported");

    // Everything known: held. The server waits without spinning.
    let known = known_of(&first);
    let id = pull_workspace(&mut c, &known);
    let ticks = cpu_ticks(c.child.id());
    std::thread::sleep(Duration::from_millis(1000));
    assert!(
        cpu_ticks(c.child.id()) - ticks <= 5,
        "the held request costs CPU time"
    );
    let early = c.rx.try_recv();
    assert!(
        early.is_err() && !c.pending.iter().any(|v| v["id"] == json!(id)),
        "held: {early:?} {:?}",
        c.pending
    );
    // The client cancels it.
    c.notify("$/cancelRequest", json!({"id": id}));
    let cancelled = answer(&mut c, id);
    assert_eq!(cancelled["error"]["code"], -32800, "{cancelled}");

    // Held again; opening a document whose buffer has other findings than the file
    // answers it: that document in full (with its version), the others unchanged with
    // the same result ids.
    let id = pull_workspace(&mut c, &known);
    let edited = format!("{ENDPOINT}foo: 1\n");
    c.open(&endpoint, &edited);
    let report = workspace_items(&answer(&mut c, id));
    assert_eq!(report[&uri(&endpoint)].0, "full");
    assert_eq!(report[&uri(&endpoint)].1, json!(1));
    assert_eq!(report[&uri(&endpoint)].3, ["AML302", "AML101"]);
    assert_eq!(report[&uri(&on_disk)].0, "unchanged");
    assert_eq!(&report[&uri(&on_disk)].2, disk_id);
    // A stale result id: answered at once, in full.
    let stale: Vec<(String, String)> = known_of(&report)
        .into_iter()
        .map(|(u, id)| {
            if u == uri(&on_disk) {
                (u, "stale".to_string())
            } else {
                (u, id)
            }
        })
        .collect();
    let id = pull_workspace(&mut c, &stale);
    assert_eq!(workspace_items(&answer(&mut c, id))[&uri(&on_disk)].0, "full");

    // A document pull with its result id: unchanged.
    let pull_doc = |c: &mut Client, previous: Option<&str>| {
        let r = c.request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri(&endpoint)}, "previousResultId": previous}),
        );
        r["result"].clone()
    };
    let full = pull_doc(&mut c, None);
    assert_eq!(full["kind"], "full");
    let doc_id = full["resultId"].as_str().unwrap().to_string();
    assert_eq!(
        pull_doc(&mut c, Some(&doc_id)),
        json!({"kind": "unchanged", "resultId": doc_id})
    );

    // The compute, edited into a Kubernetes cluster: the endpoint's finding goes without
    // an edit of its own, so the client is asked to pull again; the held workspace pull
    // is answered with the endpoint's empty report.
    c.open(&compute, COMPUTE_CLUSTER);
    c.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri(&compute)}}),
    );
    let id = pull_workspace(&mut c, &known_of(&report));
    c.change(&compute, 2, COMPUTE_KUBERNETES);
    let refresh = c.wait_for("a refresh request", |v| {
        v["method"] == "workspace/diagnostic/refresh"
    });
    assert!(refresh["id"].is_string(), "{refresh}");
    let report = workspace_items(&answer(&mut c, id));
    assert_eq!(report[&uri(&endpoint)].0, "full");
    assert_eq!(report[&uri(&endpoint)].3, ["AML101"]);
    assert_ne!(pull_doc(&mut c, Some(&doc_id))["kind"], "unchanged");

    // Held at shutdown: answered, then the shutdown.
    let id = pull_workspace(&mut c, &known_of(&report));
    let shutdown = c.request("shutdown", Value::Null);
    assert!(shutdown.get("error").is_none(), "{shutdown}");
    let held = answer(&mut c, id);
    assert!(held["result"]["items"].is_array(), "{held}");
    // Nothing was ever pushed.
    assert!(
        !c.pending
            .iter()
            .any(|v| v["method"] == "textDocument/publishDiagnostics"),
        "{:#?}",
        c.pending
    );
    c.notify("exit", Value::Null);
}

const TERRAFORM_GPU: &str = "resource \"azurerm_machine_learning_compute_cluster\" \"gpu\" {\n  name     = \"tf-gpu\"\n  location = \"eastus\"\n  vm_priority = \"Dedicated\"\n  vm_size  = \"Standard_NC6\"\n  node_public_ip_enabled = false\n  subnet_resource_id = \"/s/n\"\n  scale_settings {\n    min_node_count = 0\n    max_node_count = 2\n  }\n}\n";

/// A compute defined in Terraform: its findings reach the editor, underlined at the
/// value, for the file on disk and for an open buffer; the size edited in the buffer, the
/// finding goes.
#[test]
fn a_definition_outside_yaml_gets_its_findings_at_the_value() {
    let (_d, root) = workspace();
    let tf = write(&root, "infra/main.tf", TERRAFORM_GPU);
    let mut c = Client::initialized(&root);
    let on_disk = c.diagnostics(&uri(&tf), None);
    assert_eq!(codes(&on_disk), ["AML505"]);
    assert_eq!(range(&on_disk[0]), [4, 14, 4, 26]);
    c.open(&tf, TERRAFORM_GPU);
    let open = c.diagnostics(&uri(&tf), Some(1));
    assert_eq!(codes(&open), ["AML505"]);
    // `Standard_NC6` on line 5 (0-based 4), inside its quotes.
    assert_eq!(range(&open[0]), [4, 14, 4, 26]);
    c.change(
        &tf,
        2,
        &TERRAFORM_GPU.replace("Standard_NC6", "Standard_NC4as_T4_v3"),
    );
    c.diagnostics_settled(&uri(&tf), Some(2), &["AML503"]);
    c.shutdown_and_exit();
}

const SPEC_RETIRED: &str = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: spec-gpu\ntype: amlcompute\nsize: Standard_NC6\nmin_instances: 0\nenable_node_public_ip: false\nnetwork_settings:\n  subnet: /s/n\n";

/// The files whose definitions read another file are checked again when it changes on
/// disk: a script's `az ml compute create -f spec.yml`, a Python call of a helper in
/// another module. Open or not.
#[test]
fn a_file_a_definition_reads_rechecks_the_definition_when_it_changes() {
    let (_d, root) = workspace();
    let script = write(
        &root,
        "infra/create.sh",
        "az ml compute create -f spec.yml --max-instances 2\n",
    );
    let spec = write(&root, "infra/spec.yml", SPEC_RETIRED);
    let helper = write(
        &root,
        "infra/compute_utils.py",
        "from azure.ai.ml.entities import AmlCompute\n\ndef get_compute(ml_client, name, size):\n    return AmlCompute(name=name, size=size, min_instances=0, enable_node_public_ip=False, network_settings={\"subnet\": \"/s/n\"})\n",
    );
    let caller = write(
        &root,
        "infra/make.py",
        "from compute_utils import get_compute\n\nget_compute(ml_client, \"py-gpu\", \"Standard_NC6\")\n",
    );
    let mut c = Client::initialized(&root);
    assert_eq!(codes(&c.diagnostics(&uri(&script), None)), ["AML505"]);
    assert_eq!(codes(&c.diagnostics(&uri(&caller), None)), ["AML505"]);
    c.open(&caller, &std::fs::read_to_string(&caller).unwrap());
    assert_eq!(codes(&c.diagnostics(&uri(&caller), Some(1))), ["AML505"]);

    // The compute YAML's size changed by another program: the script's finding goes.
    std::fs::write(&spec, SPEC_RETIRED.replace("Standard_NC6", "Standard_DS3_v2")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&spec), "type": 2}]}),
    );
    c.diagnostics_settled(&uri(&script), None, &[]);

    // The helper no longer uses its `size` parameter: the open caller's finding goes.
    let fixed = std::fs::read_to_string(&helper)
        .unwrap()
        .replace("size=size", "size=\"Standard_DS3_v2\"");
    std::fs::write(&helper, fixed).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&helper), "type": 2}]}),
    );
    c.diagnostics_settled(&uri(&caller), Some(1), &[]);
    c.shutdown_and_exit();
}
