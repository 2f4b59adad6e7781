//! `[workspace]` of a configuration (`super::workspace`): its keys, and its snapshot files
//! read and checked, every problem an error at its span — in the configuration, or in the
//! snapshot file at the value that is not what the command prints.

use std::path::Path;
use std::sync::Arc;

use toml::de::DeValue;

use super::{Parser, Value, kind_of};
use crate::config::model::{Config, ConfigError};
use crate::config::workspace::{self, PriceList, Usage, WorkspaceSnapshot};
use crate::source::{SourceFile, Span};

/// The keys of `[workspace]`.
pub const KEYS: &[&str] = &["location", "computes", "usage", "prices"];

/// One file a key names: as written, where, and the region a `usage` table gives it.
struct Named {
    text: String,
    span: Span,
    region: Option<String>,
}

impl Parser<'_> {
    pub(super) fn workspace(&mut self, v: &Value<'_>, config: &mut Config) {
        let Some(table) = self.table("workspace", v) else {
            return;
        };
        let mut ws = WorkspaceSnapshot::at(self.dir);
        // `location` first: the commands in messages name it.
        if let Some(v) = table.get("location") {
            if let Some((text, span)) = self.string("workspace.location", v, "`location = \"eastus\"`") {
                let key = workspace::region_key(text);
                if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric()) {
                    ws.location = Some(key);
                } else {
                    self.errors.push(
                        ConfigError::new(&self.source, span, format!("`{text}` is not an Azure region"))
                            .with_help("Write the region as `az account list-locations` names it: `eastus`, `westeurope`."),
                    );
                }
            }
        }
        for (key, value) in table.iter() {
            match key.get_ref().as_ref() {
                "location" => {}
                "computes" => {
                    for named in self.named_files("computes", value, false) {
                        self.computes_file(&named, &mut ws);
                    }
                }
                "usage" => {
                    let files = self.named_files("usage", value, true);
                    let several = files.len() > 1;
                    for named in files {
                        self.usage_file(&named, several, &mut ws);
                    }
                }
                "prices" => {
                    for named in self.named_files("prices", value, false) {
                        self.prices_file(&named, &mut ws);
                    }
                }
                _ => self.unknown_key(key, "workspace", KEYS),
            }
        }
        config.workspace = Some(Arc::new(ws));
    }

    /// The files a key names: a string, a list of strings, or (for `usage`) a table of
    /// region → file.
    fn named_files(&mut self, key: &str, v: &Value<'_>, by_region: bool) -> Vec<Named> {
        let example = format!("`{key} = \"azure/{key}.json\"`, or a list of files");
        match v.get_ref() {
            DeValue::String(s) => vec![Named {
                text: s.to_string(),
                span: self.span(v.span()),
                region: None,
            }],
            DeValue::Array(_) => self
                .string_list(&format!("workspace.{key}"), v, &example)
                .into_iter()
                .map(|(text, span)| Named {
                    text,
                    span,
                    region: None,
                })
                .collect(),
            DeValue::Table(t) if by_region => {
                let mut out = Vec::new();
                for (region, file) in t.iter() {
                    let name = region.get_ref().as_ref();
                    let key_region = workspace::region_key(name);
                    if key_region.is_empty() || !key_region.chars().all(|c| c.is_ascii_alphanumeric()) {
                        self.error(
                            region.span(),
                            format!("`{name}` is not an Azure region"),
                            "The keys of a `usage` table are regions (`eastus = \"azure/usage-eastus.json\"`).",
                        );
                        continue;
                    }
                    if let Some((text, span)) = self.string(
                        "workspace.usage",
                        file,
                        "`usage = { eastus = \"azure/usage-eastus.json\" }`",
                    ) {
                        out.push(Named {
                            text: text.to_string(),
                            span,
                            region: Some(key_region),
                        });
                    }
                }
                out
            }
            other => {
                let expected = if by_region {
                    "a file, a list of files or a table of region = file"
                } else {
                    "a file or a list of files"
                };
                self.error(
                    v.span(),
                    format!(
                        "`{}workspace.{key}` must be {expected}, not {}",
                        self.prefix,
                        kind_of(other)
                    ),
                    format!("For example: {example}"),
                );
                Vec::new()
            }
        }
    }

    /// The file's text as a source shown as the configuration shows its files (relative
    /// to the configuration's own display), read through `fsio` from inside the project.
    fn read_snapshot(
        &mut self,
        key: &str,
        named: &Named,
        not_what: &str,
        make: &str,
        limit: u64,
    ) -> Option<Arc<SourceFile>> {
        let text = named.text.as_str();
        let path = crate::fsio::absolute(Path::new(text), self.dir);
        self.snapshots.push(path.clone());
        let shown_dir = Path::new(self.source.path.as_str())
            .parent()
            .unwrap_or(Path::new(""));
        let display = crate::fsio::shown(&crate::fsio::normalize(&shown_dir.join(text)));
        let boundary = crate::fsio::Boundary::around(self.dir);
        let bytes = match crate::fsio::read_regular(&path, crate::fsio::Seen::Unknown, &boundary, limit) {
            Ok(bytes) => bytes,
            Err(crate::fsio::Refusal::Missing) => {
                self.errors.push(
                    ConfigError::new(
                        &self.source,
                        named.span,
                        format!(
                            "`{text}`, which `[{}workspace] {key}` names, does not exist",
                            self.prefix
                        ),
                    )
                    .with_help(format!(
                        "The path is relative to this configuration file's directory. {make}"
                    )),
                );
                return None;
            }
            Err(r) => {
                let help = match r {
                    crate::fsio::Refusal::Outside { .. } => {
                        "amlint reads snapshots only from inside the project: save the command's output in the repository (or in the CI workspace) and name that file."
                    }
                    crate::fsio::Refusal::TooLarge { .. } => {
                        "Save only what amlint reads: the usage list of one region, or the prices of one region's virtual machines."
                    }
                    _ => "Make it a readable regular file.",
                };
                self.errors.push(
                    ConfigError::new(
                        &self.source,
                        named.span,
                        format!(
                            "cannot read `{text}`, which `[{}workspace] {key}` names: {}",
                            self.prefix,
                            r.describe()
                        ),
                    )
                    .with_help(help),
                );
                return None;
            }
        };
        match crate::load::decode(bytes) {
            Ok(text) => Some(SourceFile::new(display, text)),
            Err(refused) => {
                self.errors.push(
                    ConfigError::new(
                        &self.source,
                        named.span,
                        format!(
                            "`{text}`, which `[{}workspace] {key}` names, {not_what}: {}",
                            self.prefix, refused.diagnostic.message
                        ),
                    )
                    .with_help(make.to_string()),
                );
                None
            }
        }
    }

    /// The snapshot parsed as JSON under the checked files' limits; a syntax error or a
    /// limit is an error in the snapshot, naming the command that makes it.
    fn parse_snapshot(
        &mut self,
        source: &Arc<SourceFile>,
        not_what: &str,
        help: &str,
    ) -> Option<crate::document::Document> {
        let loaded = crate::load::parse_source(
            source.clone(),
            crate::load::Format::Json,
            &crate::limits::Limits::default(),
        );
        if let Some(d) = loaded
            .diagnostics
            .iter()
            .find(|d| d.severity == crate::diagnostic::Severity::Error)
        {
            self.errors.push(
                ConfigError::new(
                    source,
                    d.span,
                    format!("`{}` {not_what}: {}", source.path, d.message),
                )
                .with_help(help.to_string()),
            );
            return None;
        }
        match loaded.documents.into_iter().next() {
            Some(doc) if doc.root.is_some() => Some(doc),
            _ => {
                self.errors.push(
                    ConfigError::new(
                        source,
                        Span::at(0),
                        format!("`{}` {not_what}: it is empty", source.path),
                    )
                    .with_help(help.to_string()),
                );
                None
            }
        }
    }

    fn snapshot_error(
        &mut self,
        source: &Arc<SourceFile>,
        e: workspace::SnapshotError,
        not_what: &str,
        help: &str,
    ) {
        self.errors.push(
            ConfigError::new(
                source,
                e.span,
                format!("`{}` {not_what}: {}", source.path, e.message),
            )
            .with_help(help.to_string()),
        );
    }

    fn make_help(&self, command: &str, named: &Named) -> String {
        format!(
            "Make it with `{command} > {}` (docs/configuration.md, `[workspace]`).",
            named.text
        )
    }

    /// The help of a snapshot that is not what its command prints.
    fn again_help(&self, key: &str, command: &str, named: &Named) -> String {
        format!(
            "`[{}workspace] {key}` in {} names it. Make it again with `{command} > {}`; amlint reads the CLI's output and the REST API's (a `value` list), and ignores fields it does not use.",
            self.prefix, self.source.path, named.text
        )
    }

    fn computes_file(&mut self, named: &Named, ws: &mut WorkspaceSnapshot) {
        let command = workspace::COMPUTES_COMMAND;
        let not_what = format!("is not what `{command}` prints");
        let make = self.make_help(command, named);
        let help = self.again_help("computes", command, named);
        let limit = crate::limits::Limits::default().max_file_size;
        let Some(source) = self.read_snapshot("computes", named, &not_what, &make, limit) else {
            return;
        };
        let Some(doc) = self.parse_snapshot(&source, &not_what, &help) else {
            return;
        };
        match workspace::read_computes(&doc, &source.path) {
            Ok(list) => {
                ws.computes.extend(list);
                ws.compute_files.push(source.path.clone());
            }
            Err(e) => self.snapshot_error(&source, e, &not_what, &help),
        }
    }

    fn usage_file(&mut self, named: &Named, several: bool, ws: &mut WorkspaceSnapshot) {
        // The region the command is shown with: the table's, the file name's, the workspace's.
        let guess = named
            .region
            .clone()
            .or_else(|| workspace::region_in_name(&named.text).map(str::to_string))
            .or_else(|| (!several).then(|| ws.location.clone()).flatten());
        let command = workspace::usage_command(guess.as_deref());
        let not_what = format!("is not what `{command}` prints");
        let make = self.make_help(&command, named);
        let help = self.again_help("usage", &command, named);
        let limit = crate::limits::Limits::default().max_file_size;
        let Some(source) = self.read_snapshot("usage", named, &not_what, &make, limit) else {
            return;
        };
        let Some(doc) = self.parse_snapshot(&source, &not_what, &help) else {
            return;
        };
        let (lines, stated) = match workspace::read_usage(&doc) {
            Ok(read) => read,
            Err(e) => return self.snapshot_error(&source, e, &not_what, &help),
        };
        if let (Some(table), Some(stated)) = (&named.region, &stated) {
            if table != stated {
                self.errors.push(
                    ConfigError::new(
                        &self.source,
                        named.span,
                        format!("`{}` is the usage of {stated}, not of {table}", named.text),
                    )
                    .with_help(format!(
                        "Its items say `{stated}` (`aml_workspace_location`); name it under that region, or save `{command}` into it."
                    )),
                );
                return;
            }
        }
        let region = named
            .region
            .clone()
            .or(stated)
            .or_else(|| workspace::region_in_name(&named.text).map(str::to_string))
            .or_else(|| (!several).then(|| ws.location.clone()).flatten());
        if several && region.is_none() {
            self.errors.push(
                ConfigError::new(
                    &self.source,
                    named.span,
                    format!("cannot tell which region `{}` is the usage of", named.text),
                )
                .with_help(
                    "With several usage files each must say its region: in its items (`aml_workspace_location`), in its name (`usage-eastus.json`), or as the key of a table: `usage = { eastus = \"azure/usage-eastus.json\" }`.",
                ),
            );
            return;
        }
        if let Some(other) = ws.usage.iter().find(|u| u.region.is_some() && u.region == region) {
            self.errors.push(
                ConfigError::new(
                    &self.source,
                    named.span,
                    format!(
                        "`{}` and `{}` are both the usage of {}",
                        named.text,
                        other.file,
                        region.as_deref().unwrap_or("?")
                    ),
                )
                .with_help("Name one usage file per region."),
            );
            return;
        }
        ws.usage.push(Usage {
            file: source.path.clone(),
            region,
            lines,
        });
    }

    fn prices_file(&mut self, named: &Named, ws: &mut WorkspaceSnapshot) {
        let not_what = format!("is not what {} returns", workspace::PRICES_SOURCE);
        let make = format!(
            "Save the API's response for your region's virtual machines: `curl -s \"https://prices.azure.com/api/retail/prices?\\$filter=serviceName eq 'Virtual Machines' and armRegionName eq 'eastus' and priceType eq 'Consumption'\" > {}` (a response holds 1,000 items: follow `NextPageLink` and list one file per page).",
            named.text
        );
        let help = format!(
            "`[{}workspace] prices` in {} names it. {make}",
            self.prefix, self.source.path
        );
        let Some(source) = self.read_snapshot("prices", named, &not_what, &make, workspace::MAX_PRICES_SIZE)
        else {
            return;
        };
        match workspace::read_prices(&source.text, &source.lines) {
            Ok(items) => ws.prices.push(PriceList {
                file: source.path.clone(),
                items,
            }),
            Err(e) => self.errors.push(
                ConfigError::new(
                    &source,
                    e.span,
                    format!("`{}` {not_what}: {}", source.path, e.message),
                )
                .with_help(help),
            ),
        }
    }
}
