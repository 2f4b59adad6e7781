//! Measures how long `amlint lsp` takes from a `didChange` to the `publishDiagnostics`
//! of that version, for a 1,000-line pipeline job. Run by `bench/lsp-latency.sh`:
//!
//! ```text
//! cargo run --release --example lsp_latency -- target/release/amlint [ITERATIONS]
//! ```
// A maintainer tool reading the repository's own files, not a path a checked file names.
#![allow(clippy::disallowed_methods)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A pipeline job of about `lines` lines: many command steps.
fn pipeline(lines: usize, typo: bool) -> String {
    let mut s = String::from(
        "$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json\ntype: pipeline\ndisplay_name: latency\nsettings:\n  default_compute: azureml:cpu-cluster\njobs:\n",
    );
    let mut i = 0;
    while s.lines().count() + 10 <= lines {
        s.push_str(&format!(
            "  step_{i}:\n    type: command\n    command: python step.py --n {i} --data ${{{{inputs.data}}}}\n    environment: azureml:train-env:3\n    inputs:\n      data: {i}\n    environment_variables:\n      STEP: \"{i}\"\n      MODE: fast\n",
        ));
        i += 1;
    }
    let key = if typo { "comand" } else { "command" };
    s.push_str(&format!(
        "  last:\n    type: command\n    {key}: python last.py\n    environment: azureml:train-env:3\n"
    ));
    s
}

fn send(stdin: &mut impl Write, v: &Value) {
    let body = v.to_string();
    write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    stdin.flush().unwrap();
}

fn read(r: &mut impl BufRead) -> Value {
    let mut length = 0;
    loop {
        let mut line = String::new();
        assert!(r.read_line(&mut line).unwrap() > 0, "the server stopped");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            length = v.parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    r.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let binary = args.next().unwrap_or_else(|| "target/release/amlint".to_string());
    // The server runs in the workspace directory: the binary's path must not be relative.
    let binary = std::fs::canonicalize(&binary).unwrap_or_else(|e| panic!("{binary}: {e}"));
    let iterations: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(200);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let path = root.join("pipeline.yml");
    // The compute the pipeline names, so that the reference resolves (and the index is
    // used on every check).
    std::fs::create_dir_all(root.join("compute")).unwrap();
    std::fs::write(
        root.join("compute/cpu-cluster.yml"),
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: cpu-cluster\ntype: amlcompute\nsize: Standard_DS3_v2\nmax_instances: 4\n",
    )
    .unwrap();
    let uri = format!("file://{}", path.display());
    let mut child = Command::new(&binary)
        .arg("lsp")
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("starts the server");
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let root_uri = format!("file://{}", root.display());
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": null, "rootUri": root_uri, "capabilities": {},
            "workspaceFolders": [{"uri": root_uri, "name": "bench"}]}}),
    );
    while read(&mut out).get("id").is_none() {}
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    );

    let texts = [pipeline(1000, false), pipeline(1000, true)];
    let lines = texts[0].lines().count();
    let wait = |out: &mut BufReader<_>, version: i64| -> Value {
        loop {
            let v = read(out);
            if v["method"] == "textDocument/publishDiagnostics"
                && v["params"]["uri"] == uri
                && v["params"]["version"] == version
            {
                return v;
            }
        }
    };
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": texts[0]}}}),
    );
    let first = wait(&mut out, 1);
    assert_eq!(
        first["params"]["diagnostics"],
        json!([]),
        "the clean pipeline has findings"
    );

    let mut times: Vec<Duration> = Vec::with_capacity(iterations);
    for i in 0..iterations {
        let version = i as i64 + 2;
        let text = &texts[(i + 1) % 2];
        let start = Instant::now();
        send(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}]}}),
        );
        let published = wait(&mut out, version);
        times.push(start.elapsed());
        let found = published["params"]["diagnostics"].as_array().unwrap().len();
        // Every other edit introduces a typo (`comand`), the next one removes it.
        assert_eq!(found > 0, i % 2 == 0, "version {version}: {published}");
    }
    // Requests on the (checked) clean text: completion of a step's keys near the end,
    // of a compute reference, and go-to-definition of that reference.
    let version = iterations as i64 + 2;
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": texts[0]}]}}),
    );
    wait(&mut out, version);
    let last_step = texts[0].lines().position(|l| l == "  last:").unwrap() as u32;
    let mut next_id = 10;
    let mut time = |method: &str, line: u32, character: u32, check: &dyn Fn(&Value) -> bool| {
        let mut times: Vec<Duration> = Vec::with_capacity(iterations);
        for _ in 0..iterations {
            next_id += 1;
            let start = Instant::now();
            send(
                &mut stdin,
                &json!({"jsonrpc": "2.0", "id": next_id, "method": method, "params": {
                    "textDocument": {"uri": uri},
                    "position": {"line": line, "character": character}}}),
            );
            let answer = loop {
                let v = read(&mut out);
                if v["id"] == next_id {
                    break v;
                }
            };
            times.push(start.elapsed());
            assert!(check(&answer["result"]), "{method}: {answer}");
        }
        times
    };
    let keys = time("textDocument/completion", last_step + 3, 4, &|r| {
        r["items"]
            .as_array()
            .is_some_and(|i| i.iter().any(|i| i["label"] == "code"))
    });
    let names = time("textDocument/completion", 4, 19, &|r| {
        r["items"]
            .as_array()
            .is_some_and(|i| i.iter().any(|i| i["label"] == "azureml:cpu-cluster"))
    });
    let definition = time("textDocument/definition", 4, 28, &|r| {
        r.as_array().is_some_and(|l| l.len() == 1)
    });
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
    );
    while read(&mut out).get("id").is_none() {}
    send(&mut stdin, &json!({"jsonrpc": "2.0", "method": "exit"}));
    let _ = child.wait();

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let summary = |mut times: Vec<Duration>| {
        times.sort();
        let pct = |p: f64| {
            times[((times.len() as f64 * p).ceil() as usize)
                .saturating_sub(1)
                .min(times.len() - 1)]
        };
        format!(
            "median {:.1} ms, p95 {:.1} ms, min {:.1} ms, max {:.1} ms",
            ms(pct(0.5)),
            ms(pct(0.95)),
            ms(times[0]),
            ms(times[times.len() - 1]),
        )
    };
    println!(
        "didChange → publishDiagnostics, {lines}-line pipeline job, {iterations} edits: {} (debounce {} ms included)",
        summary(times),
        amlint::lsp::DEBOUNCE.as_millis()
    );
    println!(
        "completion of a step's keys, {iterations} requests: {}",
        summary(keys)
    );
    println!(
        "completion of a compute name, {iterations} requests: {}",
        summary(names)
    );
    println!(
        "definition of a compute, {iterations} requests: {}",
        summary(definition)
    );
}
