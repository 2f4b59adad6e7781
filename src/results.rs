//! What a run produces, below the filter and the pipeline that fill it and the outputs that
//! read it: each file's findings ([`FileReport`]), the silenced ones ([`Suppressed`]), the
//! run ([`Report`]) and its counts ([`Summary`]).

use std::sync::Arc;

use crate::config::ConfigError;
use crate::diagnostic::{Diagnostic, Omitted, Severity};
use crate::kinds::Classification;
use crate::project::Project;
use crate::source::{SourceFile, Span};

pub use crate::diagnostic::SuppressionKind;

/// A finding that was silenced, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Suppressed {
    pub diagnostic: Diagnostic,
    pub kind: SuppressionKind,
    /// The reason written after the directive, or which baseline.
    pub justification: Option<String>,
    /// The directive that silenced it.
    pub directive: Option<Span>,
    /// The directive's expiry date (`until YYYY-MM-DD`), if it has one.
    pub until: Option<String>,
}

impl Suppressed {
    /// The finding, shown anyway and marked with what hides it (`--no-ignores`): its
    /// message says so in every format, JSON and SARIF also say it in fields of their own.
    pub fn into_shown(self) -> Diagnostic {
        let Suppressed {
            mut diagnostic,
            kind,
            justification,
            directive,
            until,
        } = self;
        let why = justification.as_deref().unwrap_or("no reason given");
        diagnostic.message = match kind {
            SuppressionKind::InSource => format!(
                "{} [suppressed by a comment{}: {why}]",
                diagnostic.message,
                until
                    .as_deref()
                    .map(|u| format!(" until {u}"))
                    .unwrap_or_default()
            ),
            SuppressionKind::Baseline => format!("{} [suppressed: {why}]", diagnostic.message),
        };
        diagnostic.ignored = Some(Box::new(crate::diagnostic::Ignored {
            kind,
            justification,
            directive,
            until,
        }));
        diagnostic
    }
}

/// The outcome for one file.
#[derive(Debug)]
pub struct FileReport {
    pub source: Arc<SourceFile>,
    /// `false` when the file is not an Azure ML configuration (skipped silently).
    pub checked: bool,
    /// The kind of each document of the file (`None` where unknown).
    pub kinds: Vec<Option<&'static str>>,
    /// How each document was classified (for `--show-files` and `--verbose`).
    pub classes: Vec<Classification>,
    /// Sorted by position, then code.
    pub diagnostics: Vec<Diagnostic>,
    /// Findings silenced by a suppression comment or the baseline (not counted, shown
    /// only by SARIF).
    pub suppressed: Vec<Suppressed>,
    /// Findings counted but not kept while checking (beyond `Limits::findings_kept`);
    /// `filter` reports them in the one AML005 that closes a capped file.
    pub omitted: Vec<Omitted>,
    /// What the file says about computes: those it defines and those it refers to.
    pub computes: ComputeFacts,
    /// What the file's computes and deployments cost whatever they do, priced by
    /// `[workspace] prices` (`--statistics` totals them); empty without prices.
    pub always_on: Vec<AlwaysOnCost>,
}

/// The computes a file defines (from any source) and the compute references of its Azure
/// ML documents with what resolved them (`amlint inventory`, `--statistics`,
/// `--show-files --verbose`).
#[derive(Debug, Default, Clone)]
pub struct ComputeFacts {
    pub definitions: Vec<Arc<crate::facts::computes::ComputeDef>>,
    pub references: Vec<crate::facts::index::ComputeRef>,
}

/// The monthly floor of a compute cluster that never scales to zero (`min_instances`) or
/// of a managed online deployment (`instance_count`): instances × hourly price × 730.
#[derive(Clone, Debug, PartialEq)]
pub struct AlwaysOnCost {
    /// `amlCompute`, `managedOnlineDeployment`.
    pub kind: &'static str,
    pub monthly: f64,
    pub currency: String,
    /// The price file.
    pub source: String,
    /// A cluster's name, lower-cased (as the project index keys it), when known: a compute defined in several files (a
    /// Bicep module and the ARM template built from it, a script and its compute YAML)
    /// costs once.
    pub compute: Option<String>,
}

/// The outcome of a run, files sorted by path.
#[derive(Debug, Default)]
pub struct Report {
    pub files: Vec<FileReport>,
    /// Where the run's files live (project root, git work tree, the root's
    /// configuration); `None` only for a report built by hand.
    pub project: Option<Project>,
    /// Configuration files that could not be used. When there are any, no file was
    /// checked (`files` is empty) and the command line exits with 2.
    pub config_errors: Vec<ConfigError>,
    /// The user rules (from `rules-dirs`) of the configurations the run used, by code:
    /// with the built-in rules, every rule a finding can come from (SARIF lists them).
    pub user_rules: Vec<crate::registry::RuleMeta>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub files_checked: usize,
    pub files_skipped: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Report {
    /// The report of a run whose configuration could not be used: nothing checked.
    pub(crate) fn refused(project: Project, config_errors: Vec<ConfigError>) -> Self {
        Report {
            files: Vec::new(),
            project: Some(project),
            config_errors,
            user_rules: Vec::new(),
        }
    }

    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for f in &self.files {
            if f.checked {
                s.files_checked += 1;
            } else {
                s.files_skipped += 1;
            }
            for d in &f.diagnostics {
                match d.severity {
                    Severity::Error => s.errors += 1,
                    Severity::Warning => s.warnings += 1,
                    Severity::Info => s.infos += 1,
                }
            }
        }
        s
    }

    /// Every diagnostic with its file, in report order.
    pub fn diagnostics(&self) -> impl Iterator<Item = (&FileReport, &Diagnostic)> {
        self.files
            .iter()
            .flat_map(|f| f.diagnostics.iter().map(move |d| (f, d)))
    }
}
