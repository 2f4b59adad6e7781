//! SDK v1 inference configurations that azureml-core's `InferenceConfig` refuses
//! (`validate_configuration`, azureml-core 1.61 model.py:2181, reached from azure-cli-ml's
//! `file_to_inference_config`): a runtime, conda file, ... beside an `environment`, an
//! entry script that is not a `.py` file or whose module name is not importable. Each is an
//! AML103 error at the exact line and column, with the SDK's reason; what the SDK accepts
//! gets nothing.

use amlint::diagnostic::Applicability;
use amlint::pipeline::{Options, check_text};

/// (line, column, text under the span, message, help, fix title and safety) of each
/// AML103 finding.
type Found = (u32, u32, String, String, String, Option<(String, Applicability)>);

fn aml103(path: &str, text: &str) -> Vec<Found> {
    let report = check_text(path, text.to_string(), &Options::default());
    report
        .diagnostics
        .iter()
        .filter(|d| d.code == "AML103")
        .map(|d| {
            let at = report.source.position(d.span.start);
            (
                at.line,
                at.column,
                report.source.slice(d.span).to_string(),
                d.message.clone(),
                d.help.clone().unwrap_or_default(),
                d.fix.as_ref().map(|f| (f.title.clone(), f.applicability)),
            )
        })
        .collect()
}

/// The one AML103 finding of an inference configuration holding only `entryScript: <script>`
/// (JSON, the value on line 2 from column 18), checked to be there.
fn on_entry_script(script: &str) -> Found {
    let json = format!("{{\n  \"entryScript\": \"{script}\",\n  \"runtime\": \"python\"\n}}\n");
    let found = aml103("inferenceconfig.json", &json);
    assert_eq!(found.len(), 1, "{found:?}");
    let one = found.into_iter().next().unwrap_or_default();
    assert_eq!((one.0, one.1), (2, 18), "{one:?}");
    assert_eq!(one.2, format!("\"{script}\""));
    one
}

/// Every code found, AML108 (SDK v1's end of support, a matter of the date) and AML201
/// (the scripts named here do not exist: not this test's subject) aside.
fn codes(path: &str, text: &str) -> Vec<String> {
    let report = check_text(path, text.to_string(), &Options::default());
    report
        .diagnostics
        .iter()
        .filter(|d| !["AML108", "AML201"].contains(&d.code))
        .map(|d| d.code.to_string())
        .collect()
}

const REFUSED: &str = "cannot be given with `environment`: SDK v1 refuses the configuration (azureml-core: \"unable to provide runtime, conda_file, extra_docker_file_steps, enable_gpu, cuda_version, or base_image along with an environment object\")";

#[test]
fn keys_given_with_an_environment_are_errors_on_the_key() {
    let json = "{\n  \"entryScript\": \"score.py\",\n  \"runtime\": \"python\",\n  \"condaFile\": \"env.yml\",\n  \"environment\": {\"name\": \"env\", \"version\": \"1\"},\n  \"enableGpu\": true,\n  \"cudaVersion\": \"10.0\",\n  \"baseImage\": \"mcr.microsoft.com/azureml/base:latest\",\n  \"extraDockerfileSteps\": \"steps.txt\"\n}\n";
    let found = aml103("inferenceconfig.json", json);
    let at: Vec<(u32, u32, &str)> = found.iter().map(|f| (f.0, f.1, f.2.as_str())).collect();
    assert_eq!(
        at,
        [
            (3, 3, "\"runtime\""),
            (4, 3, "\"condaFile\""),
            (6, 3, "\"enableGpu\""),
            (7, 3, "\"cudaVersion\""),
            (8, 3, "\"baseImage\""),
            (9, 3, "\"extraDockerfileSteps\""),
        ],
        "{found:?}"
    );
    assert_eq!(found[0].3, format!("`runtime` {REFUSED}"));
    assert_eq!(
        found[1].4,
        "Remove `condaFile`, or move its packages into the environment's `python.condaDependencies`. SDK v1 takes the image from the environment or from these keys, never both."
    );
    // Removing the key is what the documentation says the file means (the environment
    // wins), and the SDK then accepts it.
    assert_eq!(
        found[0].5,
        Some(("Remove `runtime`".to_string(), Applicability::Safe))
    );
    // No "ignored" warning beside the error.
    assert!(!codes("inferenceconfig.json", json).contains(&"AML107".to_string()));
}

#[test]
fn keys_the_sdk_finds_falsy_pass_beside_an_environment() {
    // `if self.enable_gpu or ...`: false, null, "" and 0 are not given; an environment that
    // is null is not given either (the CLI's `--environment-name` is used, or none).
    let json = "{\n  \"entryScript\": \"score.py\",\n  \"environment\": {\"name\": \"env\", \"version\": \"1\"},\n  \"enableGpu\": false,\n  \"runtime\": null,\n  \"condaFile\": \"\",\n  \"baseImage\": null,\n  \"baseImageRegistry\": {\"address\": \"myacr.azurecr.io\"}\n}\n";
    assert_eq!(codes("inferenceconfig.json", json), Vec::<String>::new());
    let yaml = "entryScript: score.py\nenvironment:\nruntime: python\ncondaFile: env.yml\n";
    assert_eq!(codes("inferenceconfig.yml", yaml), Vec::<String>::new());
    // Any mapping is an environment to the SDK (an `Environment` object is always true),
    // in YAML too.
    let yaml = "entryScript: score.py\nenvironment: {}\nenableGpu: yes\n";
    let found = aml103("inferenceconfig.yml", yaml);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0, found[0].1, found[0].2.as_str()), (3, 1, "enableGpu"));
    assert_eq!(found[0].3, format!("`enableGpu` {REFUSED}"));
}

#[test]
fn an_entry_script_that_is_not_python_is_an_error_on_the_value() {
    assert_eq!(
        on_entry_script("score.R").3,
        "`entryScript: score.R` is not a `.py` file: SDK v1 supports only Python entry scripts (azureml-core: \"Invalid driver type. Currently only Python drivers are supported.\")"
    );
    // The extension is compared exactly, after the last dot of the file name that follows
    // something other than dots (`os.path.splitext`).
    for script in ["score.PY", "score", ".py", "src.py/score", "score.py.bak"] {
        let found = aml103("inferenceconfig.yml", &format!("entryScript: {script}\n"));
        assert_eq!(found.len(), 1, "{script}: {found:?}");
        assert!(found[0].3.contains("is not a `.py` file"), "{}", found[0].3);
    }
    // Empty: "need to specify entry_script".
    let found = aml103("inferenceconfig.yml", "entryScript: ''\n");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].3.starts_with("`entryScript` is empty"), "{}", found[0].3);
}

#[test]
fn an_entry_script_that_cannot_be_imported_is_an_error_on_the_value() {
    let found = on_entry_script("score-model.py");
    assert_eq!(
        found.3,
        "`entryScript: score-model.py` cannot be imported: its module name `score-model` is not a Python identifier, and SDK v1 imports the entry script as a module (azureml-core: \"must be a valid python identifier and not a part of the set of python standard keywords\")"
    );
    assert_eq!(
        found.4,
        "Rename the file to `score_model.py` (letters, digits and `_`, not starting with a digit) and write that name here."
    );
    // Only the file name is tested (`os.path.basename`); the suggestion keeps the folder.
    for (script, form) in [
        ("src/2score.py", "src/_2score.py"),
        ("import.py", "import_.py"),
        ("a.b.py", "a_b.py"),
        ("my score.py", "my_score.py"),
    ] {
        let found = aml103("inferenceconfig.yml", &format!("entryScript: {script}\n"));
        assert_eq!(found.len(), 1, "{script}: {found:?}");
        assert!(found[0].4.contains(&format!("`{form}`")), "{}", found[0].4);
    }
    let found = aml103("inferenceconfig.yml", "entryScript: class.py\n");
    assert!(
        found[0].3.contains("`class` is a Python keyword"),
        "{}",
        found[0].3
    );
}

#[test]
fn importable_entry_scripts_pass() {
    // Folders may have any name; Unicode identifiers are identifiers (`str.isidentifier`);
    // soft keywords (`match`) are not keywords to `iskeyword`; Windows separators too.
    for script in [
        "score.py",
        "src/score.py",
        "./my-app/score_v2.py",
        "_score.py",
        "modèle.py",
        "match.py",
        "src\\\\score.py",
    ] {
        let found = aml103("inferenceconfig.yml", &format!("entryScript: \"{script}\"\n"));
        assert!(found.is_empty(), "{script}: {found:?}");
    }
    // Not a string: the schema's finding (AML102), not this one's.
    assert_eq!(codes("inferenceconfig.yml", "entryScript: 12\n"), ["AML102"]);
}

/// What azureml-core's `validate_configuration` accepts on disk gets no error: an empty
/// `condaFile`, `extraDockerfileSteps` or `sourceDirectory` is not set (the SDK tests each
/// with `if self.conda_file:`), and `python-slim` is one of its runtimes (undocumented, in
/// `SUPPORTED_RUNTIMES`). A missing conda file is still AML201, on its value.
#[test]
fn what_the_sdk_skips_or_accepts_on_disk_is_no_error() {
    let dir = crate::common::project();
    let p = dir.path();
    crate::common::write(
        p,
        "score.py",
        "def init():\n    pass\n\n\ndef run(x):\n    return x\n",
    );
    crate::common::write(
        p,
        "inferenceconfig.json",
        "{\n  \"entryScript\": \"score.py\",\n  \"runtime\": \"python-slim\",\n  \"condaFile\": \"\",\n  \"extraDockerfileSteps\": \"\",\n  \"sourceDirectory\": \"\"\n}\n",
    );
    crate::common::write(
        p,
        "missing/inferenceconfig.json",
        "{\n  \"entryScript\": \"../score.py\",\n  \"condaFile\": \"env.yml\"\n}\n",
    );
    let (_, json) = crate::common::json_check(p, &["--no-cache", "--ignore", "AML108", "."]);
    let found: Vec<(String, String, u64, u64)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["path"].as_str().unwrap().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["range"]["start"]["column"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [(
            "AML201".to_string(),
            "missing/inferenceconfig.json".to_string(),
            3,
            16
        )],
        "{json:#}"
    );
}
