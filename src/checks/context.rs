//! What a document check sees ([`DocContext`]), with the JSON view and schema
//! annotations the checks share, built on first use.

use std::cell::OnceCell;

use crate::config::Config;
use crate::document::Document;
use crate::facts::DocFacts;
use crate::kinds::Classification;
use crate::schema::forms::Annotations;
use crate::source::SourceFile;

/// What a document check sees.
pub struct DocContext<'a> {
    pub source: &'a SourceFile,
    pub doc: &'a Document,
    pub class: &'a Classification,
    /// The file's configuration: profile, params, inventory (selection and severity are
    /// applied after the checks, by `filter`).
    pub config: &'a Config,
    /// Facts of the document (None when its kind is unknown).
    pub facts: Option<&'a DocFacts<'a>>,
    /// The run's project boundary: local paths the document names are looked at inside
    /// it only (`docs/security.md`).
    pub boundary: &'a crate::fsio::Boundary,
    /// Built on first use and shared by the checks: the JSON view and what the kind's
    /// schema annotations say about it.
    json: OnceCell<Option<serde_json::Value>>,
    annotations: OnceCell<Option<Annotations>>,
}

impl<'a> DocContext<'a> {
    pub fn new(
        source: &'a SourceFile,
        doc: &'a Document,
        class: &'a Classification,
        config: &'a Config,
        facts: Option<&'a DocFacts<'a>>,
        boundary: &'a crate::fsio::Boundary,
    ) -> Self {
        Self {
            boundary,
            source,
            doc,
            class,
            config,
            facts,
            json: OnceCell::new(),
            annotations: OnceCell::new(),
        }
    }

    /// The JSON view schema checks see: None when the document has no kind or cannot be
    /// validated (a partial tree, an alias overflow: see [`checkable`]).
    pub fn json(&self) -> Option<&serde_json::Value> {
        self.json
            .get_or_init(|| (self.class.kind.is_some() && checkable(self.doc)).then(|| self.doc.to_json()))
            .as_ref()
    }

    /// A native rule's severity under the configuration's profile (`severity_by_profile`
    /// in its rule file); declarative rules get theirs from the policy engine.
    pub fn severity_of(&self, rule: crate::diagnostic::RuleId) -> crate::diagnostic::Severity {
        self.config
            .rules
            .get(rule.code)
            .map_or(rule.severity, |m| m.severity_under(self.config.profile.as_str()))
    }

    /// The reference fields and unused keys of the document, from its kind's schema
    /// (`crate::schema::forms`); None when [`Self::json`] is None or the kind has no schema.
    pub fn annotations(&self) -> Option<&Annotations> {
        self.annotations
            .get_or_init(|| {
                let kind = self.class.kind?;
                let store = crate::schema::store();
                if !store.has_kind(&kind.id) {
                    return None;
                }
                Some(crate::schema::forms::annotate(store, &kind.id, self.json()?))
            })
            .as_ref()
    }
}

/// Whether the document can be validated: its tree is complete and its JSON view exists.
pub fn checkable(doc: &Document) -> bool {
    !doc.partial && !doc.alias_overflow && doc.root.is_some()
}
