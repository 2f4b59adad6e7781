//! SARIF 2.1.0 (`docs/output-formats.md`): one run, the rules' metadata in
//! `tool.driver.rules`, one result per finding with an exact region (1-based lines,
//! columns in UTF-16 code units, SARIF's default), a stable `partialFingerprints` entry,
//! secondary labels as `relatedLocations`, fixes as `fixes`, and silenced findings as
//! results with `suppressions` (`inSource` with the comment's reason, `external` for the
//! baseline). Paths are relative to `%SRCROOT%`: the git work tree (what GitHub code
//! scanning expects), else the project root. Validated against the official schema by
//! `tests/it/output_formats.rs`.

use serde_json::{Value, json};

use super::rule_page::{self, SourceLink};
use crate::baseline;
use crate::diagnostic::{Diagnostic, Severity};
use crate::project::percent_encode_path;
use crate::registry::{self, RuleMeta};
use crate::results::{FileReport, Report};
use crate::results::{Suppressed, SuppressionKind};
use crate::source::{SourceFile, Span};

pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn rule_descriptor(rule: &RuleMeta) -> Value {
    let text = format!("{}\n\n{}", rule.what.trim(), rule.why.trim());
    let builtin = rule.is_builtin();
    let mut d = json!({
        "id": rule.code,
        "name": rule.name,
        "shortDescription": { "text": rule.summary.trim() },
        "fullDescription": { "text": rule.what.trim() },
        "help": { "text": text, "markdown": rule_page::markdown(rule, SourceLink::Absolute) },
        "defaultConfiguration": { "level": level(rule.severity) },
        "properties": { "tags": ["azure-ml", area(rule, builtin)] },
    });
    // A user rule has no published page.
    if builtin {
        d["helpUri"] = json!(rule.docs_url());
    }
    d
}

/// The rule's area, from its file's directory (`rules/document/...` → `document`); user
/// rules are `user`.
fn area(rule: &RuleMeta, builtin: bool) -> &str {
    if !builtin {
        return "user";
    }
    rule.source
        .strip_prefix("rules/")
        .and_then(|r| r.split('/').next())
        .unwrap_or("rules")
}

/// A SARIF region for a span; `None` when the file has no text (it could not be read).
fn region(source: &SourceFile, span: Span) -> Option<Value> {
    if source.text.is_empty() {
        return None;
    }
    let start = source.utf16_position(span.start);
    let end = source.utf16_position(span.end);
    Some(json!({
        "startLine": start.line + 1,
        "startColumn": start.character + 1,
        "endLine": end.line + 1,
        "endColumn": end.character + 1,
    }))
}

struct Artifact {
    uri: String,
    relative: bool,
}

impl Artifact {
    fn of(report: &Report, file: &FileReport) -> Self {
        Self::of_path(report, &file.source.path)
    }

    fn of_path(report: &Report, path: &str) -> Self {
        let rel = match &report.project {
            Some(p) => p.relative_path(path),
            None => path.replace('\\', "/"),
        };
        if rel.starts_with('/') {
            Artifact {
                uri: format!("file://{}", percent_encode_path(&rel)),
                relative: false,
            }
        } else {
            Artifact {
                uri: percent_encode_path(&rel),
                relative: report.project.is_some(),
            }
        }
    }

    fn location(&self) -> Value {
        if self.relative {
            json!({ "uri": self.uri, "uriBaseId": "%SRCROOT%" })
        } else {
            json!({ "uri": self.uri })
        }
    }
}

fn physical(artifact: &Artifact, source: &SourceFile, span: Span) -> Value {
    let mut p = json!({ "artifactLocation": artifact.location() });
    if let Some(r) = region(source, span) {
        p["region"] = r;
    }
    p
}

fn result(
    rules: &[RuleMeta],
    artifact: &Artifact,
    file: &FileReport,
    d: &Diagnostic,
    suppression: Option<&Suppressed>,
) -> Value {
    let mut location = json!({ "physicalLocation": physical(artifact, &file.source, d.span) });
    if let Some(pointer) = &d.pointer {
        location["logicalLocations"] = json!([{
            "fullyQualifiedName": pointer.to_string(),
            "kind": "element",
        }]);
    }
    let mut r = json!({
        "ruleId": d.code,
        "level": level(d.severity),
        "message": { "text": d.message },
        "locations": [location],
    });
    if let Some(i) = rules.iter().position(|rule| rule.code == d.code) {
        r["ruleIndex"] = json!(i);
    }
    if let Some(fp) = &d.fingerprint {
        r["partialFingerprints"] = json!({ baseline::SCHEME: fp });
    }
    if !d.labels.is_empty() {
        r["relatedLocations"] = Value::Array(
            d.labels
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    json!({
                        "id": i + 1,
                        "physicalLocation": physical(artifact, &file.source, l.span),
                        "message": { "text": l.message },
                    })
                })
                .collect(),
        );
    }
    // Every fix, the preferred one first, with its applicability (`safe`: `--fix`
    // applies it; `unsafe`: only `--unsafe-fixes`).
    let fixes: Vec<Value> = d
        .fixes()
        .filter_map(|fix| {
            let replacements: Vec<Value> = fix
                .edits
                .iter()
                .filter_map(|e| {
                    Some(json!({
                        "deletedRegion": region(&file.source, e.span)?,
                        "insertedContent": { "text": e.replacement },
                    }))
                })
                .collect();
            (!replacements.is_empty()).then(|| {
                json!({
                    "description": { "text": fix.title },
                    "artifactChanges": [{ "artifactLocation": artifact.location(), "replacements": replacements }],
                    "properties": { "applicability": fix.applicability.as_str() },
                })
            })
        })
        .collect();
    if !fixes.is_empty() {
        r["fixes"] = json!(fixes);
    }
    let mut properties = json!({ "name": d.name });
    if let Some(help) = &d.help {
        properties["help"] = json!(help);
    }
    if let Some(kind) = d.kind {
        properties["documentKind"] = json!(kind);
    }
    r["properties"] = properties;
    if let Some(s) = suppression {
        let mut sup = json!({
            "kind": match s.kind {
                SuppressionKind::InSource => "inSource",
                SuppressionKind::Baseline => "external",
            },
            "status": "accepted",
        });
        if let Some(j) = &s.justification {
            sup["justification"] = json!(j);
        }
        if let Some(until) = &s.until {
            // The last day the suppression applies (`until YYYY-MM-DD`).
            sup["properties"] = json!({ "until": until });
        }
        if let Some(span) = s.directive {
            sup["location"] = json!({ "physicalLocation": physical(artifact, &file.source, span) });
        }
        r["suppressions"] = json!([sup]);
    }
    r
}

/// The run's invocation: successful, or — when the configuration could not be used and
/// nothing was checked — not, with each configuration error as a
/// `toolConfigurationNotification` at its place in the configuration file.
fn invocation(report: &Report) -> Value {
    if report.config_errors.is_empty() {
        return json!({ "executionSuccessful": true });
    }
    let notifications: Vec<Value> = report
        .config_errors
        .iter()
        .map(|e| {
            let text = match &e.help {
                Some(help) => format!("{}\n\nhelp: {help}", e.message),
                None => e.message.clone(),
            };
            let artifact = Artifact::of_path(report, &e.source.path);
            json!({
                "level": "error",
                "message": { "text": text },
                "locations": [{ "physicalLocation": physical(&artifact, &e.source, e.span) }],
            })
        })
        .collect();
    json!({ "executionSuccessful": false, "toolConfigurationNotifications": notifications })
}

/// The SARIF log of a report, as pretty-printed JSON. The results are written as they are
/// made, a file at a time: a tree of every result of a 10,000-file run took more memory
/// than the rest of the run (104 MB peak against 71 MB for the JSON output).
pub fn render(report: &Report) -> String {
    // Every rule a finding can come from: the built-in ones, then the user rules of the
    // run's configurations.
    let rules: Vec<RuleMeta> = registry::builtin()
        .rules()
        .iter()
        .chain(&report.user_rules)
        .cloned()
        .collect();
    let mut run = serde_json::Map::new();
    run.insert(
        "tool".into(),
        json!({
            "driver": {
                "name": "amlint",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": super::summary::HOME_URL,
                "rules": rules.iter().map(rule_descriptor).collect::<Vec<_>>(),
                "properties": {
                    "schemas": env!("AMLINT_SCHEMA_SOURCE"),
                    "vmCatalogue": env!("AMLINT_VM_CATALOGUE_DATE"),
                },
            }
        }),
    );
    run.insert("invocations".into(), json!([invocation(report)]));
    run.insert("columnKind".into(), json!("utf16CodeUnits"));
    if let Some(project) = &report.project {
        run.insert(
            "originalUriBaseIds".into(),
            json!({ "%SRCROOT%": { "uri": project.base_uri() } }),
        );
    }
    let log = Log {
        run: Run {
            fields: run,
            results: Results {
                report,
                rules: &rules,
            },
        },
    };
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, crate::escape::Escaping::pretty());
    if serde::Serialize::serialize(&log, &mut ser).is_err() {
        out.clear();
    }
    let mut text = String::from_utf8(out).unwrap_or_default();
    text.push('\n');
    text
}

/// `{"$schema", "runs": [run], "version"}`, keys in the order a `serde_json` map keeps
/// them (sorted), as when the log was one `Value`.
struct Log<'a> {
    run: Run<'a>,
}

impl serde::Serialize for Log<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("$schema", SCHEMA_URI)?;
        m.serialize_entry("runs", std::slice::from_ref(&self.run))?;
        m.serialize_entry("version", "2.1.0")?;
        m.end()
    }
}

/// The run: its fixed fields, and `results` at its place among them (sorted keys).
struct Run<'a> {
    fields: serde_json::Map<String, Value>,
    results: Results<'a>,
}

impl serde::Serialize for Run<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.fields.len() + 1))?;
        let mut results = Some(&self.results);
        for (k, v) in &self.fields {
            if k.as_str() > "results"
                && let Some(r) = results.take()
            {
                m.serialize_entry("results", r)?;
            }
            m.serialize_entry(k, v)?;
        }
        if let Some(r) = results {
            m.serialize_entry("results", r)?;
        }
        m.end()
    }
}

/// Every finding of the report, silenced ones included, file by file in span order; each
/// file's results are made when the serializer reaches them and dropped once written.
struct Results<'a> {
    report: &'a Report,
    rules: &'a [RuleMeta],
}

impl serde::Serialize for Results<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(None)?;
        for file in &self.report.files {
            let artifact = Artifact::of(self.report, file);
            let mut items: Vec<(Span, &str, Value)> = Vec::new();
            for d in &file.diagnostics {
                // Shown by `--no-ignores`: still a suppressed result to SARIF viewers.
                let shown = d.ignored.as_deref().map(|i| Suppressed {
                    diagnostic: d.clone(),
                    kind: i.kind,
                    justification: i.justification.clone(),
                    directive: i.directive,
                    until: i.until.clone(),
                });
                items.push((
                    d.span,
                    d.code,
                    result(self.rules, &artifact, file, d, shown.as_ref()),
                ));
            }
            for sup in &file.suppressed {
                let d = &sup.diagnostic;
                items.push((d.span, d.code, result(self.rules, &artifact, file, d, Some(sup))));
            }
            items.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
            for (_, _, v) in &items {
                seq.serialize_element(v)?;
            }
        }
        seq.end()
    }
}
