//! VM sizes: the catalogue in `rules/data/vm-sizes.yaml` (format: `rules/data/README.md`)
//! and the lookup of a size string (`Standard_NC24rs_v3`, any case) to its facts.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;

use crate::config::inventory::VmSize;

#[derive(Debug, Deserialize)]
struct CatalogueFile {
    #[allow(dead_code)]
    version: u32,
    series: Vec<SeriesDef>,
}

#[derive(Debug, Deserialize)]
struct SeriesDef {
    id: String,
    #[serde(default)]
    aliases: Vec<String>,
    family: String,
    category: String,
    #[serde(default)]
    accelerator: Option<String>,
    support: String,
    #[serde(default)]
    support_basis: Option<String>,
    #[serde(default)]
    retirement: Option<String>,
    #[serde(default)]
    retired: bool,
    #[serde(rename = "match")]
    matcher: MatchDef,
    sizes: Vec<SizeDef>,
    // Documentation fields the engine does not read.
    #[serde(default)]
    #[allow(dead_code)]
    support_note: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    retirement_note: Option<String>,
    #[serde(default)]
    quota_family: Option<String>,
    #[serde(default)]
    quota_family_aliases: Vec<String>,
    #[serde(default)]
    #[allow(dead_code)]
    source: Option<String>,
}

#[derive(Debug, Deserialize)]
struct MatchDef {
    family: String,
    features: OneOrMany,
    accelerator: Option<String>,
    version: Option<String>,
    #[serde(default)]
    number: Option<Vec<u32>>,
    /// Variant tokens (`cc`, `8`, `1`, `xl`, ...); absent = no variant.
    #[serde(default)]
    variant: Option<OneOrMany>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(f) => vec![f],
            OneOrMany::Many(fs) => fs,
        }
    }
}

#[derive(Debug, Deserialize)]
struct SizeDef {
    name: String,
    vcpus: f64,
    memory_gib: f64,
    gpus: f64,
    isolated: bool,
    #[serde(default)]
    fpgas: f64,
    /// The size's own quota family, where it is not its series' (isolated sizes).
    #[serde(default)]
    quota_family: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

/// One series of the catalogue.
#[derive(Debug)]
pub struct Series {
    pub id: String,
    pub aliases: Vec<String>,
    pub family: String,
    pub category: String,
    pub accelerator: Option<String>,
    pub support: String,
    pub support_basis: Option<String>,
    /// ISO date (`2025-09-30`) of the (planned) retirement.
    pub retirement: Option<String>,
    /// Retired with no published date.
    pub retired_undated: bool,
    /// The quota family of its sizes, as the Microsoft.Compute SKUs API names it
    /// (`standardDSv2Family`): Azure ML's usage list prints `Standard DSv2 Family Cluster
    /// Dedicated vCPUs` for it.
    pub quota_family: Option<String>,
    /// Other names of that family (the REST API's usage example, the Azure ML SKU list).
    pub quota_family_aliases: Vec<String>,
    m_family: String,
    m_features: Vec<String>,
    m_accelerator: Option<String>,
    m_version: Option<String>,
    m_number: Option<Vec<u32>>,
    m_variants: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Size {
    pub name: String,
    pub series: usize,
    pub vcpus: f64,
    pub memory_gib: f64,
    pub gpus: f64,
    pub fpgas: f64,
    pub isolated: bool,
    /// Its own quota family, where it is not its series'.
    pub quota_family: Option<String>,
}

#[derive(Debug, Default)]
pub struct Catalogue {
    pub series: Vec<Series>,
    pub sizes: Vec<Size>,
    by_name: HashMap<String, usize>,
}

/// What a size string turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// A listed size: every fact is known.
    Size,
    /// Not listed, but its name places it in a series: series facts only.
    Series,
    /// Looks like an Azure VM size (`Standard_...`) but is in no series.
    Unknown,
}

/// The facts of one VM size string.
#[derive(Debug, Clone)]
pub struct VmFacts {
    /// As written.
    pub written: String,
    pub known: Known,
    /// The size's numbers: from the catalogue, or from the configuration's
    /// `[[inventory.vm_sizes]]`.
    pub size: Option<Size>,
    pub series: Option<&'static Series>,
}

impl VmFacts {
    /// The series' labels: its id and aliases.
    pub fn series_names(&self) -> Vec<&'static str> {
        self.series
            .map(|s| {
                std::iter::once(s.id.as_str())
                    .chain(s.aliases.iter().map(String::as_str))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The quota family the size counts against (`standardDSv2Family`): its own, else its
    /// series'.
    pub fn quota_family(&self) -> Option<&str> {
        self.size
            .as_ref()
            .and_then(|s| s.quota_family.as_deref())
            .or_else(|| self.series.and_then(|s| s.quota_family.as_deref()))
    }

    /// The keys a usage line of the size's family may have (`config::workspace::family_key`
    /// of the family and of its other names).
    pub fn quota_keys(&self) -> Vec<String> {
        let own = self.size.as_ref().and_then(|s| s.quota_family.as_deref());
        let mut keys: Vec<String> = self
            .quota_family()
            .into_iter()
            .map(crate::config::workspace::family_key)
            .collect();
        if own.is_none() {
            if let Some(s) = self.series {
                keys.extend(
                    s.quota_family_aliases
                        .iter()
                        .map(|a| crate::config::workspace::family_key(a)),
                );
            }
        }
        keys
    }

    /// The family as Azure ML's usage list prints its line for a tier: `Standard DSv2
    /// Family Cluster Dedicated vCPUs`.
    pub fn quota_line(&self, low_priority: bool) -> Option<String> {
        let family = self.quota_family()?;
        Some(format!(
            "{} Cluster {} vCPUs",
            usage_family_name(family),
            if low_priority { "LowPriority" } else { "Dedicated" }
        ))
    }

    /// Retired on or before `today` (ISO date), or retired without a date.
    pub fn retired(&self, today: &str) -> Option<bool> {
        let s = self.series?;
        Some(s.retired_undated || s.retirement.as_deref().is_some_and(|d| d <= today))
    }
}

/// A SKUs API family name as Azure ML's usage list prints it: `standardDSv2Family` →
/// `Standard DSv2 Family`, `standard NDAMSv4_A100Family` → `Standard NDAMSv4_A100 Family`.
pub fn usage_family_name(family: &str) -> String {
    let trimmed = family.trim();
    let body = match (trimmed.get(..8), trimmed.get(8..)) {
        (Some(p), Some(rest)) if p.eq_ignore_ascii_case("standard") => rest,
        _ => trimmed,
    };
    let body = body.trim();
    let cut = body.len().saturating_sub(6);
    let body = match (body.get(..cut), body.get(cut..)) {
        (Some(rest), Some(s)) if s.eq_ignore_ascii_case("family") => rest,
        _ => body,
    };
    format!("Standard {} Family", body.trim())
}

static NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?P<fam>[A-Z]+?)(?P<cpu>\d+)(?:-(?P<con>\d+))?(?P<feat>[a-z]*)(?P<glued>\d+)?(?:_(?P<sub>cc|xl|\d+))?(?:_NDR)?(?:_(?P<acc>[A-UW-Z]\d+[A-Z]*|GB200|GB300|T4|A10|A100|H100|H200|MI300X|MA35D|RTXPRO6000BSE|V620|V710))?(?:_(?P<ver>v\d+))?(?:_Promo)?$",
    )
    .expect("static regex")
});

/// The parts of a size name (after `Standard_`), normalised as the catalogue compares them.
#[derive(Debug, PartialEq, Eq)]
pub struct ParsedName {
    pub family: String,
    pub number: u32,
    pub features: String,
    pub accelerator: Option<String>,
    pub version: Option<String>,
    /// Variant token(s), lower-cased: digits glued to the feature letters (`2` of `B1ls2`,
    /// `5` of `ND128isrG5_GB300_v6`) and/or one `_`-separated token before the accelerator
    /// or version (`cc` of `DC4as_cc_v5`, `8` of `M416s_8_v2`, `xl`); joined by `_` when
    /// both occur; empty when none.
    pub variant: String,
}

/// Strips the tier prefix (`Standard_`, `Basic_`, any case); `None` if there is none.
pub fn strip_tier(name: &str) -> Option<&str> {
    let lower = name.to_ascii_lowercase();
    for prefix in ["standard_", "basic_"] {
        if lower.starts_with(prefix) {
            return Some(&name[prefix.len()..]);
        }
    }
    None
}

/// Whether a string is written like an Azure VM size (has the tier prefix).
pub fn looks_like_vm_size(name: &str) -> bool {
    strip_tier(name.trim()).is_some()
}

pub fn parse_name(name: &str) -> Option<ParsedName> {
    let body = strip_tier(name.trim())?;
    let c = NAME.captures(body)?;
    Some(ParsedName {
        family: c.name("fam")?.as_str().to_ascii_uppercase(),
        number: c.name("cpu")?.as_str().parse().ok()?,
        features: c.name("feat").map_or(String::new(), |m| {
            m.as_str().to_ascii_lowercase().replace('r', "")
        }),
        accelerator: c.name("acc").map(|m| m.as_str().to_ascii_uppercase()),
        version: c.name("ver").map(|m| m.as_str().to_ascii_lowercase()),
        variant: [c.name("glued"), c.name("sub")]
            .into_iter()
            .flatten()
            .map(|m| m.as_str().to_ascii_lowercase())
            .collect::<Vec<_>>()
            .join("_"),
    })
}

impl Catalogue {
    fn load(text: &str) -> Result<Self, crate::data::DataError> {
        let file: CatalogueFile = crate::data::from_embedded("rules/data/vm-sizes.yaml", text)?;
        let mut cat = Catalogue::default();
        for (si, s) in file.series.into_iter().enumerate() {
            for size in s.sizes {
                cat.by_name
                    .insert(size.name.to_ascii_lowercase(), cat.sizes.len());
                cat.sizes.push(Size {
                    name: size.name,
                    series: si,
                    vcpus: size.vcpus,
                    memory_gib: size.memory_gib,
                    gpus: size.gpus,
                    fpgas: size.fpgas,
                    isolated: size.isolated,
                    quota_family: size.quota_family,
                });
            }
            let features = s.matcher.features.into_vec();
            let variants = s
                .matcher
                .variant
                .map_or_else(|| vec![String::new()], OneOrMany::into_vec);
            cat.series.push(Series {
                id: s.id,
                aliases: s.aliases,
                family: s.family,
                category: s.category,
                accelerator: s.accelerator,
                support: s.support,
                support_basis: s.support_basis,
                retirement: s.retirement,
                retired_undated: s.retired,
                quota_family: s.quota_family,
                quota_family_aliases: s.quota_family_aliases,
                m_family: s.matcher.family.to_ascii_uppercase(),
                m_features: features
                    .into_iter()
                    .map(|f| f.to_ascii_lowercase().replace('r', ""))
                    .collect(),
                m_accelerator: s.matcher.accelerator.map(|a| a.to_ascii_uppercase()),
                m_version: s.matcher.version.map(|v| v.to_ascii_lowercase()),
                m_number: s.matcher.number,
                m_variants: variants.into_iter().map(|v| v.to_ascii_lowercase()).collect(),
            });
        }
        Ok(cat)
    }

    /// The series an (unlisted) parsed name belongs to, if exactly one matches.
    fn series_of(&self, p: &ParsedName) -> Option<usize> {
        let mut hits = self.series.iter().enumerate().filter(|(_, s)| {
            s.m_family == p.family
                && s.m_features.contains(&p.features)
                && s.m_accelerator == p.accelerator
                && s.m_version == p.version
                && s.m_number.as_ref().is_none_or(|ns| ns.contains(&p.number))
                && s.m_variants.contains(&p.variant)
        });
        let first = hits.next()?;
        hits.next().is_none().then_some(first.0)
    }

    /// Looks a size string up; `None` when it is not written like an Azure VM size.
    pub fn lookup(&'static self, name: &str) -> Option<VmFacts> {
        self.lookup_with(name, &[])
    }

    /// Looks a size string up in the catalogue and in sizes a configuration declares
    /// (`[[inventory.vm_sizes]]`, which take precedence); a declared size's series is the
    /// one its name places it in.
    pub fn lookup_with(&'static self, name: &str, declared: &[VmSize]) -> Option<VmFacts> {
        let written = name.trim();
        if !looks_like_vm_size(written) {
            return None;
        }
        let series_of = |w: &str| parse_name(w).and_then(|p| self.series_of(&p));
        if let Some(d) = declared.iter().find(|d| d.name.eq_ignore_ascii_case(written)) {
            let series = self
                .by_name
                .get(&written.to_ascii_lowercase())
                .map(|&i| self.sizes[i].series)
                .or_else(|| series_of(written));
            return Some(VmFacts {
                written: written.to_string(),
                known: Known::Size,
                size: Some(Size {
                    name: d.name.clone(),
                    series: series.unwrap_or(usize::MAX),
                    vcpus: d.vcpus,
                    memory_gib: d.memory_gib,
                    gpus: d.gpus,
                    fpgas: 0.0,
                    isolated: false,
                    quota_family: None,
                }),
                series: series.map(|s| &self.series[s]),
            });
        }
        if let Some(&i) = self.by_name.get(&written.to_ascii_lowercase()) {
            let size = &self.sizes[i];
            return Some(VmFacts {
                written: written.to_string(),
                known: Known::Size,
                size: Some(size.clone()),
                series: Some(&self.series[size.series]),
            });
        }
        let series = series_of(written);
        Some(VmFacts {
            written: written.to_string(),
            known: if series.is_some() {
                Known::Series
            } else {
                Known::Unknown
            },
            size: None,
            series: series.map(|s| &self.series[s]),
        })
    }

    /// The listed (or declared) size closest in spelling to `name` (for "did you mean").
    pub fn closest(&self, name: &str) -> Option<&str> {
        crate::suggest::closest(name, self.sizes.iter().map(|s| &s.name))
    }

    /// Like [`Catalogue::closest`], the declared sizes included.
    pub fn closest_with<'a>(&'a self, name: &str, declared: &'a [VmSize]) -> Option<&'a str> {
        crate::suggest::closest(
            name,
            self.sizes
                .iter()
                .map(|s| &s.name)
                .chain(declared.iter().map(|d| &d.name)),
        )
    }
}

/// The embedded catalogue.
pub fn catalogue() -> &'static Catalogue {
    static CAT: LazyLock<Catalogue> = LazyLock::new(|| {
        let text = crate::embedded::data_file("vm-sizes.yaml").unwrap_or_default();
        Catalogue::load(text).unwrap_or_else(|e| {
            eprintln!("amlint: internal error in rules/data/vm-sizes.yaml: {e}");
            Catalogue::default()
        })
    });
    &CAT
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_loads_and_sizes_resolve_case_insensitively() {
        let cat = catalogue();
        assert!(cat.series.len() > 40 && cat.sizes.len() > 300);
        let f = cat.lookup("STANDARD_nc24RS_v3").unwrap();
        assert_eq!(f.known, Known::Size);
        let size = f.size.as_ref().unwrap();
        assert_eq!((size.vcpus, size.gpus, size.isolated), (24.0, 4.0, true));
        assert_eq!(f.series.unwrap().id, "NCv3");
        assert!(f.series_names().contains(&"NCsv3"));
    }

    #[test]
    fn quota_families_and_their_usage_lines() {
        let cat = catalogue();
        let ds3 = cat.lookup("standard_ds3_V2").unwrap();
        assert_eq!(ds3.quota_family(), Some("standardDSv2Family"));
        assert_eq!(
            ds3.quota_line(false).as_deref(),
            Some("Standard DSv2 Family Cluster Dedicated vCPUs")
        );
        assert_eq!(
            ds3.quota_line(true).as_deref(),
            Some("Standard DSv2 Family Cluster LowPriority vCPUs")
        );
        // An isolated size has a family of its own; its series' aliases are not its.
        let e80 = cat.lookup("Standard_E80is_v4").unwrap();
        assert_eq!(e80.quota_family(), Some("standardXEISv4Family"));
        assert_eq!(
            cat.lookup("Standard_E8s_v4").unwrap().quota_family(),
            Some("standardESv4Family")
        );
        // The REST API's usage example names NCv3 `Standard NCv3 Family`.
        let nc = cat.lookup("Standard_NC6s_v3").unwrap();
        assert_eq!(nc.quota_keys(), ["ncsv3", "ncv3"]);
        assert_eq!(
            cat.lookup("Standard_NC4as_T4_v3")
                .unwrap()
                .quota_line(false)
                .as_deref(),
            Some("Standard NCASv3_T4 Family Cluster Dedicated vCPUs")
        );
        assert_eq!(
            usage_family_name("standard NDAMSv4_A100Family"),
            "Standard NDAMSv4_A100 Family"
        );
        assert_eq!(
            usage_family_name("StandardNCadsH100v5Family"),
            "Standard NCadsH100v5 Family"
        );
        // A size only the naming rules place has its series' family, and no numbers.
        let unlisted = cat.lookup("Standard_DS3_v2_Promo").unwrap();
        assert_eq!(
            (unlisted.quota_family(), unlisted.size.is_none()),
            (Some("standardDSv2Family"), true)
        );
    }

    #[test]
    fn parsing_names() {
        let p = parse_name("Standard_D2s_v3").unwrap();
        assert_eq!(
            (p.family.as_str(), p.features.as_str(), p.version.as_deref()),
            ("D", "s", Some("v3"))
        );
        let p = parse_name("Standard_NC4as_T4_v3").unwrap();
        assert_eq!(p.accelerator.as_deref(), Some("T4"));
        assert!(parse_name("Standard_LRS").is_none());
        assert!(parse_name("defaultinstancetype").is_none());
    }

    /// Real size names with a variant token: before it was parsed, these names (all from the
    /// Azure size pages) failed the naming regex and were reported as unknown sizes (AML501).
    #[test]
    fn parsing_names_with_variant_tokens() {
        let parts = |name: &str| {
            let p = parse_name(name).unwrap_or_else(|| panic!("{name} does not parse"));
            (
                p.family,
                p.number,
                p.features,
                p.variant,
                p.accelerator,
                p.version,
            )
        };
        let s = |v: &str| v.to_string();
        let o = |v: &str| Some(v.to_string());
        for (name, want) in [
            (
                "Standard_M416s_8_v2",
                (s("M"), 416, s("s"), s("8"), None, o("v2")),
            ),
            (
                "Standard_M48ds_1_v3",
                (s("M"), 48, s("ds"), s("1"), None, o("v3")),
            ),
            (
                "Standard_M896ixds_32_v3",
                (s("M"), 896, s("ixds"), s("32"), None, o("v3")),
            ),
            (
                "Standard_DC4as_cc_v5",
                (s("DC"), 4, s("as"), s("cc"), None, o("v5")),
            ),
            (
                "STANDARD_EC16ADS_CC_V5",
                (s("EC"), 16, s("ads"), s("cc"), None, o("v5")),
            ),
            ("Standard_B1ls2", (s("B"), 1, s("ls"), s("2"), None, None)),
            (
                "Standard_ND128isrG5_GB300_v6",
                (s("ND"), 128, s("isg"), s("5"), o("GB300"), o("v6")),
            ),
            (
                "Standard_NC128ds_xl_RTXPRO6000BSE_v6",
                (s("NC"), 128, s("ds"), s("xl"), o("RTXPRO6000BSE"), o("v6")),
            ),
            (
                "Standard_NG8ads_V620_v1",
                (s("NG"), 8, s("ads"), s(""), o("V620"), o("v1")),
            ),
            (
                "Standard_NM16ads_MA35D",
                (s("NM"), 16, s("ads"), s(""), o("MA35D"), None),
            ),
            // Names without a variant keep an empty one.
            ("Standard_D2s_v3", (s("D"), 2, s("s"), s(""), None, o("v3"))),
            (
                "Standard_HB120-16rs_v3",
                (s("HB"), 120, s("s"), s(""), None, o("v3")),
            ),
        ] {
            assert_eq!(parts(name), want, "{name}");
        }
    }

    #[test]
    fn variants_take_part_in_matching() {
        let cat = catalogue();
        let series = |name: &str| cat.lookup(name).and_then(|f| f.series).map(|s| s.id.as_str());
        // Same features and version, told apart by the variant only.
        assert_eq!(series("Standard_DC4as_v5"), Some("DCasv5"));
        assert_eq!(series("Standard_DC4as_cc_v5"), Some("DCas_cc_v5"));
        assert_eq!(series("Standard_M96s_2_v3"), Some("Msv3_MM"));
        assert_eq!(series("Standard_M416s_8_v3"), Some("Msv3_HM"));
        assert_eq!(series("Standard_M416s_8_v2"), Some("Mv2"));
        // An unlisted variant of a listed series is still placed by its name.
        let f = cat.lookup("Standard_M48s_2_v3").unwrap();
        assert_eq!(
            (f.known, f.series.map(|s| s.id.as_str())),
            (Known::Series, Some("Msv3_MM"))
        );
        // A variant no series accepts is unknown.
        assert_eq!(cat.lookup("Standard_D4s_cc_v5").unwrap().known, Known::Unknown);
    }

    #[test]
    fn unlisted_and_unknown_sizes() {
        let cat = catalogue();
        assert!(cat.lookup("defaultinstancetype").is_none());
        assert_eq!(cat.lookup("Standard_DS3_v2").unwrap().known, Known::Size);
        assert_eq!(cat.lookup("Standard_Q9z_v9").unwrap().known, Known::Unknown);
        assert_eq!(cat.lookup("Standard_DS3_v22").unwrap().known, Known::Unknown);
    }

    #[test]
    fn declared_sizes_are_known_with_their_numbers_and_the_series_of_their_name() {
        let cat = catalogue();
        let declared = [VmSize {
            name: "Standard_D3000s_v3".into(),
            vcpus: 3000.0,
            memory_gib: 12000.0,
            gpus: 0.0,
            span: crate::source::Span::default(),
        }];
        assert_eq!(cat.lookup("standard_d3000s_v3").unwrap().known, Known::Series);
        let f = cat.lookup_with("standard_d3000s_v3", &declared).unwrap();
        assert_eq!(f.known, Known::Size);
        assert_eq!(f.size.as_ref().map(|s| s.vcpus), Some(3000.0));
        assert_eq!(f.series.map(|s| s.id.as_str()), Some("Dsv3"));
        // An unknown family: a known size, with no series facts.
        let q = [VmSize {
            name: "Standard_Q4_v9".into(),
            ..declared[0].clone()
        }];
        let f = cat.lookup_with("Standard_Q4_v9", &q).unwrap();
        assert_eq!((f.known, f.series.is_none()), (Known::Size, true));
        assert_eq!(cat.closest_with("Standard_Q4_v8", &q), Some("Standard_Q4_v9"));
    }

    #[test]
    fn current_sizes_of_every_family_are_listed() {
        let cat = catalogue();
        for (name, series, vcpus, memory, gpus) in [
            ("Standard_ND96isr_H200_v5", "ND_H200_v5", 96.0, 1850.0, 8.0),
            ("Standard_ND128isr_NDR_GB200_v6", "ND_GB200_v6", 128.0, 900.0, 4.0),
            ("Standard_D4s_v6", "Dsv6", 4.0, 16.0, 0.0),
            ("Standard_B2s", "Bv1", 2.0, 4.0, 0.0),
            ("Standard_B2ats_v2", "Basv2", 2.0, 1.0, 0.0),
            ("Standard_E192is_v6", "Esv6", 192.0, 1832.0, 0.0),
            ("Standard_ND96isr_MI300X_v5", "ND_MI300X_v5", 96.0, 1850.0, 8.0),
            ("Standard_NCC40ads_H100_v5", "NCCads_H100_v5", 40.0, 320.0, 1.0),
            ("Standard_A4_v2", "Av2", 4.0, 8.0, 0.0),
            ("Standard_B4ps_v2", "Bpsv2", 4.0, 16.0, 0.0),
            ("Standard_D8ads_v6", "Dadsv6", 8.0, 32.0, 0.0),
            ("Standard_D16plds_v6", "Dpldsv6", 16.0, 32.0, 0.0),
            ("Standard_D372s_v7", "Dsv7", 372.0, 1488.0, 0.0),
            ("Standard_DC8as_cc_v5", "DCas_cc_v5", 8.0, 32.0, 0.0),
            ("Standard_E372is_v7", "Esv7", 372.0, 2832.0, 0.0),
            ("Standard_EC64eds_v6", "ECedsv6", 64.0, 512.0, 0.0),
            ("Standard_F80ams_v7", "Famsv7", 80.0, 640.0, 0.0),
            ("Standard_L160iaos_v5", "Laosv5", 160.0, 1040.0, 0.0),
            ("Standard_M1792ixds_32_v3", "Mdsv3_VHM", 1792.0, 30400.0, 0.0),
            ("Standard_HB176-24rs_v4", "HBv4", 24.0, 768.0, 0.0),
            ("Standard_HX176rs", "HX", 176.0, 1408.0, 0.0),
            ("Standard_ND128isrG5_GB300_v6", "ND_GB300_v6", 128.0, 864.0, 4.0),
            ("Standard_NV4ads_V710_v5", "NVads_V710_v5", 4.0, 16.0, 0.1667),
            ("Standard_NG8ads_V620_v1", "NGads_V620", 8.0, 16.0, 0.25),
            ("Standard_GS5", "GS", 32.0, 448.0, 0.0),
            ("Standard_A0", "Av1", 1.0, 0.768, 0.0),
        ] {
            let f = cat.lookup(name).unwrap();
            assert_eq!(f.known, Known::Size, "{name}");
            let s = f.size.as_ref().unwrap();
            assert_eq!((s.vcpus, s.memory_gib, s.gpus), (vcpus, memory, gpus), "{name}");
            assert_eq!(f.series.unwrap().id, series, "{name}");
        }
    }

    #[test]
    fn retirement_compares_with_today() {
        let cat = catalogue();
        let nc = cat.lookup("Standard_NC6").unwrap();
        assert_eq!(nc.retired("2026-11-22"), Some(true));
        let ds = cat.lookup("Standard_DS3_v2").unwrap();
        assert_eq!(ds.retired("2026-11-22"), Some(false));
        assert_eq!(ds.retired("2030-01-01"), Some(true));
        // Series added with their documented retirement dates.
        for (name, date) in [
            ("Standard_A1", "2024-08-31"),
            ("Basic_A1", "2024-08-31"),
            ("Standard_A9", "2021-03-01"),
            ("Standard_DC4s_v2", "2026-06-30"),
            ("Standard_EC8ads_cc_v5", "2026-09-01"),
            ("Standard_M192idms_v2", "2027-03-31"),
            ("Standard_NP10s", "2027-05-31"),
            ("Standard_G5", "2028-11-15"),
            ("Standard_L32s", "2028-05-01"),
        ] {
            let f = cat.lookup(name).unwrap();
            let series = f.series.unwrap();
            assert_eq!(series.retirement.as_deref(), Some(date), "{name}");
            assert_eq!(f.retired(date), Some(true), "{name}");
        }
        // Sizes of the same generation without an announcement have none.
        let m = cat.lookup("Standard_M192ms_v2").map(|f| f.known);
        assert_eq!(m, Some(Known::Unknown));
        assert!(
            cat.lookup("Standard_M128ms_v2")
                .unwrap()
                .series
                .unwrap()
                .retirement
                .is_none()
        );
    }
}
