//! How a compute setting is written in each language amlint reads compute definitions from
//! (`rules/data/idioms.yaml`): the words a rule's message uses for a setting
//! (`{key:FIELD}`, `{set:FIELD=VALUE}`, `{?can:FIELD}`), so that a finding about a
//! Terraform, Bicep, ARM, SDK or `az ml compute create` definition names the setting as
//! that file writes it (`min_node_count = 1`, `enableNodePublicIp: false`) and not as
//! Azure ML YAML does.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Deserialize;

/// A language compute definitions are written in, as the table names it: `yaml`, `cli`,
/// `template`, `template-vnet`, `terraform`, `azapi`, `bicep`, `arm`, `python`, `python-v1`,
/// `python-v1-instance`, `python-override`, `r`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Idiom {
    /// Azure ML YAML, where every field is written as its own path.
    #[default]
    Yaml,
    /// `az ml compute create` options.
    Cli,
    /// SDK v1's `az ml computetarget create` options (the `azure-cli-ml` extension):
    /// `--vm-size`, `--min-nodes`, `--vnet-name`/`--subnet-name`... and no public-IP option.
    CliV1,
    /// A CI template's parameters (`create-compute.yml`).
    Template,
    /// The GitHub reusable workflow of Azure/mlops-templates, `create-compute.yml`, whose
    /// current version also takes `vnet_name` and `subnet_name` (`--vnet-name`/`--subnet`
    /// when both are given).
    TemplateVnet,
    /// Terraform's `azurerm_machine_learning_*` resources.
    Terraform,
    /// Terraform's `azapi_resource` (the REST properties in HCL).
    Azapi,
    Bicep,
    Arm,
    /// The Python SDK v2 (`AmlCompute(...)`).
    Python,
    /// The Python SDK v1 (`provisioning_configuration(...)`).
    PythonV1,
    /// The Python SDK v1's `ComputeInstance.provisioning_configuration(...)`, which takes
    /// fewer settings than `AmlCompute`'s (no `enable_node_public_ip`, no idle shutdown)
    /// and writes SSH access as `ssh_public_access=True`.
    PythonV1Instance,
    /// The Python SDK v2's `load_compute(..., params_override=[{"size": ...}])`: Azure ML
    /// YAML's keys in dicts.
    PythonOverride,
    /// azuremlsdk for R (`create_aml_compute(...)`), which passes its arguments to SDK
    /// v1's `provisioning_configuration` but has fewer of them.
    R,
}

impl Idiom {
    pub const ALL: [Idiom; 14] = [
        Idiom::Yaml,
        Idiom::Cli,
        Idiom::CliV1,
        Idiom::Template,
        Idiom::TemplateVnet,
        Idiom::Terraform,
        Idiom::Azapi,
        Idiom::Bicep,
        Idiom::Arm,
        Idiom::Python,
        Idiom::PythonV1,
        Idiom::PythonV1Instance,
        Idiom::PythonOverride,
        Idiom::R,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Idiom::Yaml => "yaml",
            Idiom::Cli => "cli",
            Idiom::CliV1 => "cli-v1",
            Idiom::Template => "template",
            Idiom::TemplateVnet => "template-vnet",
            Idiom::Terraform => "terraform",
            Idiom::Azapi => "azapi",
            Idiom::Bicep => "bicep",
            Idiom::Arm => "arm",
            Idiom::Python => "python",
            Idiom::PythonV1 => "python-v1",
            Idiom::PythonV1Instance => "python-v1-instance",
            Idiom::PythonOverride => "python-override",
            Idiom::R => "r",
        }
    }

    /// Whether the idiom is the Python SDK v1's (any class's `provisioning_configuration`).
    pub fn is_python_v1(self) -> bool {
        matches!(self, Idiom::PythonV1 | Idiom::PythonV1Instance)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    idioms: HashMap<String, Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    #[allow(dead_code)]
    title: String,
    assign: String,
    #[serde(default)]
    keys: Option<HashMap<String, String>>,
    #[serde(default)]
    keys_of: Option<String>,
    #[serde(default)]
    values: HashMap<String, HashMap<String, String>>,
    #[serde(default)]
    cannot: Option<String>,
}

/// One idiom's spelling of settings.
#[derive(Debug, Default)]
pub struct Spelling {
    /// `{key}: {value}`, `{key} = {value}`...
    assign: String,
    /// By field; `None`: every field as its own path.
    keys: Option<HashMap<String, String>>,
    /// By field, then value as Azure ML YAML writes it.
    values: HashMap<String, HashMap<String, String>>,
    /// Why a definition in the idiom cannot set a field it has no key for (`a template
    /// call passes only the template's inputs, and it has none for this`).
    cannot: Option<String>,
}

impl Spelling {
    /// Whether the idiom can set `field`.
    pub fn can(&self, field: &str) -> bool {
        self.keys.as_ref().is_none_or(|k| k.contains_key(field))
    }

    /// `field`'s name in the idiom (its Azure ML YAML path when the idiom cannot set it).
    pub fn key<'a>(&'a self, field: &'a str) -> &'a str {
        self.keys
            .as_ref()
            .and_then(|k| k.get(field))
            .map_or(field, String::as_str)
    }

    /// `value` (as Azure ML YAML writes it) as the idiom writes it for `field`.
    pub fn value<'a>(&'a self, field: &str, value: &'a str) -> &'a str {
        self.values
            .get(field)
            .and_then(|v| v.get(value))
            .map_or(value, String::as_str)
    }

    /// Why the idiom cannot set a field it has no key for (`{cannot}` in a message).
    pub fn cannot(&self) -> &str {
        self.cannot
            .as_deref()
            .unwrap_or("its language has no setting for it")
    }

    /// `key` given `value`, both as the idiom writes them (`min_node_count = 0`).
    pub fn assign(&self, key: &str, value: &str) -> String {
        self.assign.replace("{key}", key).replace("{value}", value)
    }

    /// `field` given `value` (as Azure ML YAML writes it), in the idiom.
    pub fn set(&self, field: &str, value: &str) -> String {
        self.assign(self.key(field), self.value(field, value))
    }
}

fn load(text: &str) -> Result<HashMap<Idiom, Spelling>, String> {
    let file: File = crate::data::from_embedded("rules/data/idioms.yaml", text).map_err(|e| e.to_string())?;
    if file.version != 1 {
        return Err(format!("version {} (amlint reads 1)", file.version));
    }
    let mut out = HashMap::new();
    for d in Idiom::ALL {
        let entry = file
            .idioms
            .get(d.as_str())
            .ok_or_else(|| format!("no idiom `{}`", d.as_str()))?;
        let keys = match &entry.keys_of {
            Some(other) => Some(
                file.idioms
                    .get(other)
                    .and_then(|o| o.keys.clone())
                    .ok_or_else(|| format!("`keys_of: {other}` names no idiom with `keys`"))?,
            ),
            None => entry.keys.clone(),
        };
        out.insert(
            d,
            Spelling {
                assign: entry.assign.clone(),
                keys,
                values: entry.values.clone(),
                cannot: entry.cannot.clone(),
            },
        );
    }
    if let Some(extra) = file
        .idioms
        .keys()
        .find(|k| !Idiom::ALL.iter().any(|d| d.as_str() == k.as_str()))
    {
        return Err(format!("unknown idiom `{extra}`"));
    }
    Ok(out)
}

/// The embedded table's spelling for `idiom`.
pub fn spelling(idiom: Idiom) -> &'static Spelling {
    static TABLE: LazyLock<HashMap<Idiom, Spelling>> = LazyLock::new(|| {
        let text = crate::embedded::data_file("idioms.yaml").unwrap_or_default();
        load(text).unwrap_or_else(|e| {
            eprintln!("amlint: internal error in rules/data/idioms.yaml: {e}");
            HashMap::new()
        })
    });
    static YAML: LazyLock<Spelling> = LazyLock::new(|| Spelling {
        assign: "{key}: {value}".into(),
        ..Spelling::default()
    });
    TABLE.get(&idiom).unwrap_or(&YAML)
}

/// A setting's key as a definition's file writes it, when that text is a plain name
/// (`min_node_count`, `--min-instances`, `"minNodeCount"` without its quotes): what a
/// message calls the setting. `None` for anything else (a `**kwargs` argument, a
/// positional argument).
pub fn written_key(text: &str) -> Option<&str> {
    let t = text.trim();
    let t = t
        .strip_prefix(['"', '\''])
        .and_then(|s| s.strip_suffix(['"', '\'']))
        .unwrap_or(t);
    let plain = !t.is_empty()
        && t.len() <= 80
        && t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    plain.then_some(t)
}

/// What a message calls the setting `field` of a definition written in `idiom`, whose key
/// the file writes as `written` (the text of the key's span, when it has one): that key when
/// it is a plain name other than `--set` (which names a path, not the setting), else the
/// idiom's spelling.
pub fn called<'a>(idiom: Idiom, field: &'a str, written: Option<&'a str>) -> &'a str {
    match written.and_then(written_key) {
        Some(key) if key != "--set" => key,
        _ => spelling(idiom).key(field),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_table_loads_with_every_idiom() {
        let text = crate::embedded::data_file("idioms.yaml").unwrap();
        let table = load(text).unwrap();
        assert_eq!(table.len(), Idiom::ALL.len());
    }

    #[test]
    fn settings_are_spelled_as_each_language_writes_them() {
        let tf = spelling(Idiom::Terraform);
        assert_eq!(tf.set("min_instances", "0"), "min_node_count = 0");
        assert_eq!(tf.key("network_settings.subnet"), "subnet_resource_id");
        assert!(!tf.can("idle_time_before_shutdown_minutes"));
        let bicep = spelling(Idiom::Bicep);
        assert_eq!(
            bicep.set("enable_node_public_ip", "false"),
            "enableNodePublicIp: false"
        );
        assert_eq!(
            bicep.set("idle_time_before_shutdown_minutes", "60"),
            "idleTimeBeforeShutdown: 'PT1H'"
        );
        assert_eq!(
            spelling(Idiom::Arm).set("enable_node_public_ip", "false"),
            "\"enableNodePublicIp\": false"
        );
        assert_eq!(
            spelling(Idiom::Python).set("enable_node_public_ip", "false"),
            "enable_node_public_ip=False"
        );
        assert_eq!(spelling(Idiom::PythonV1).set("min_instances", "0"), "min_nodes=0");
        let override_ = spelling(Idiom::PythonOverride);
        assert_eq!(
            override_.set("enable_node_public_ip", "false"),
            "{\"enable_node_public_ip\": False}"
        );
        assert!(override_.can("network_settings.subnet"));
        assert!(!spelling(Idiom::PythonV1).can("idle_time_before_shutdown_minutes"));
        // Audit 28, case 02: SDK v1's `ComputeInstance.provisioning_configuration` takes no
        // `enable_node_public_ip`, and its SSH access is a bool.
        let v1_instance = spelling(Idiom::PythonV1Instance);
        assert!(!v1_instance.can("enable_node_public_ip"));
        assert!(v1_instance.can("network_settings.subnet"));
        assert_eq!(
            v1_instance.set("ssh_public_access_enabled", "true"),
            "ssh_public_access=True"
        );
        assert!(
            v1_instance
                .cannot()
                .contains("ComputeInstance.provisioning_configuration")
        );
        assert!(spelling(Idiom::Template).cannot().contains("template's inputs"));
        assert!(!spelling(Idiom::Template).can("network_settings.subnet"));
        // Audit 29, defect 1: the GitHub template's `vnet_name`/`subnet_name` inputs.
        let vnet = spelling(Idiom::TemplateVnet);
        assert!(vnet.can("network_settings.subnet"));
        assert!(!vnet.can("enable_node_public_ip"));
        assert_eq!(vnet.key("network_settings.subnet"), "vnet_name` and `subnet_name");
        assert_eq!(vnet.key("size"), "size");
        assert_eq!(
            spelling(Idiom::Cli).set("enable_node_public_ip", "false"),
            "--enable-node-public-ip false"
        );
        let yaml = spelling(Idiom::Yaml);
        assert_eq!(yaml.set("min_instances", "0"), "min_instances: 0");
        assert!(yaml.can("anything.at.all"));
        assert_eq!(yaml.key("network_settings.subnet"), "network_settings.subnet");
    }

    #[test]
    fn only_plain_names_are_taken_as_written_keys() {
        assert_eq!(written_key("\"minNodeCount\""), Some("minNodeCount"));
        assert_eq!(written_key("--min-instances"), Some("--min-instances"));
        assert_eq!(written_key("min_node_count"), Some("min_node_count"));
        assert_eq!(written_key("**private"), None);
        assert_eq!(written_key("a b"), None);
        assert_eq!(written_key(""), None);
    }
}
