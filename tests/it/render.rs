//! The human rendering, pinned with insta: code and name, severity, message, snippet with
//! the span underlined, secondary labels, help. Review changes with `cargo insta review`
//! (or `INSTA_UPDATE=always cargo test --test it render::` and read the diff).

use amlint::pipeline::{Options, check_text};
use amlint::report::human::{TerminalStyle, render_diagnostic};

fn render(path: &str, text: &str) -> String {
    let report = check_text(path, text.to_string(), &Options::default());
    let style = TerminalStyle {
        color: false,
        width: 100,
    };
    let mut out = String::new();
    for d in &report.diagnostics {
        out.push_str(&render_diagnostic(&report.source, d, style));
        out.push('\n');
    }
    assert!(!out.is_empty(), "no diagnostic for {path}");
    out
}

#[test]
fn duplicate_key_with_label_on_the_first() {
    insta::assert_snapshot!(render(
        "deploy/blue.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json\nname: blue\nendpoint_name: credit\ninstance_type: Standard_DS3_v2\ninstance_count: 1\ninstance_type: Standard_F4s_v2\n"
    ));
}

#[test]
fn yaml11_scalars() {
    insta::assert_snapshot!(render(
        "model.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/model.schema.json\nname: m\nversion: 1.10\npath: azureml://datastores/ws/paths/m\ntags:\n  gpu: on\n  lr: 2e-5\n"
    ));
}

#[test]
fn syntax_error_after_non_ascii_text() {
    insta::assert_snapshot!(render(
        "job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ndisplay_name: \"entraînement ✓\"\ncommand: python train.py\n  environment: azureml:sklearn:1\n"
    ));
}

#[test]
fn json_missing_comma() {
    // Neither JSON nor YAML (which the CLI also tries) reads it: the JSON error is shown.
    insta::assert_snapshot!(render(
        "deploymentconfig.json",
        "{\n  \"computeType\": \"ACI\",\n  \"containerResourceRequirements\": {\"cpu\": 1 \"memoryInGB\": 2}\n}\n"
    ));
}

#[test]
fn template_placeholder() {
    insta::assert_snapshot!(render(
        "endpoint.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineEndpoint.schema.json\nname: {{ENDPOINT_NAME}}\nauth_mode: key\n"
    ));
}

#[test]
fn unreadable_file_has_no_snippet() {
    insta::assert_snapshot!(render_file(b"name: x\0y\n"));
}

#[test]
fn not_utf8_points_at_the_byte() {
    insta::assert_snapshot!(render_file(b"name: caf\xe9\n"));
}

/// The first finding of a file holding `bytes`, rendered for humans.
fn render_file(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("job.yml"), bytes).unwrap();
    let report = amlint::pipeline::check_paths(&[dir.path().join("job.yml")], &Options::default());
    let file = &report.files[0];
    let text = render_diagnostic(
        &file.source,
        &file.diagnostics[0],
        TerminalStyle {
            color: false,
            width: 100,
        },
    );
    text.replace(&dir.path().display().to_string(), "[TMP]")
}

#[test]
fn a_finding_on_a_huge_line_shows_a_window_of_it() {
    // A minified JSON deployment: the unknown key is at column 70,143, far too wide to
    // draw (and beyond what miette can pad: it used to panic). The snippet shows the line
    // cut around the key, marked with `…`, under the key's real position.
    let pad = "x".repeat(70_000);
    let text = format!(
        "{{\"$schema\":\"https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json\",\"name\":\"b\",\"endpoint_name\":\"e\",\"instance_type\":\"Standard_DS3_v2\",\"tags\":{{\"pad\":\"{pad}\"}},\"bogus\":1}}\n"
    );
    let out = render("deploy.json", &text);
    let col = text.find("\"bogus\"").unwrap() + 1;
    insta::assert_snapshot!(out.replace(&"x".repeat(100), "x{100}"));
    assert!(out.contains(&format!("[deploy.json:1:{col}]")), "{out}");
    assert!(out.len() < 1_500, "{} bytes", out.len());
}
