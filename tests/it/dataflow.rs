//! Data flow (AML8xx): each finding on the exact text it is about — the `${{...}}` of a
//! binding, the key of an undeclared step input, the value of a mistyped literal — and the
//! interface of a step's component read from another file of the project.

use std::path::Path;

use amlint::pipeline::{Options, check_paths};

use crate::common::{project, write};

/// (file name, line, code, the text under the span) of every AML8xx finding under `dir`.
fn findings(dir: &Path) -> Vec<(String, u32, &'static str, String)> {
    let report = check_paths(&[dir.to_path_buf()], &Options::default());
    let mut out: Vec<_> = report
        .diagnostics()
        .filter(|(_, d)| d.code.starts_with("AML8"))
        .map(|(f, d)| {
            let name = Path::new(&f.source.path)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .to_string();
            (
                name,
                f.source.position(d.span.start).line,
                d.code,
                f.source.slice(d.span).to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_finding_of_the_fixtures_is_on_its_expression_key_or_value() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/dataflow");
    let found = findings(&dir);
    let on = |file: &str, line: u32, code: &str| -> Vec<String> {
        found
            .iter()
            .filter(|f| f.0 == file && f.1 == line && f.2 == code)
            .map(|f| f.3.clone())
            .collect()
    };
    assert_eq!(
        on("pipeline-wiring.yml", 18, "AML802"),
        ["${{parent.inputs.raw_dat}}"]
    );
    assert_eq!(
        on("pipeline-wiring.yml", 24, "AML803"),
        ["${{parent.jobs.prepp.outputs.clean}}"]
    );
    assert_eq!(on("pipeline-wiring.yml", 25, "AML810"), ["fast"]);
    assert_eq!(on("pipeline-wiring.yml", 27, "AML805"), ["seeds"]);
    assert_eq!(on("pipeline-wiring.yml", 23, "AML806"), ["inputs"]);
    assert_eq!(
        on("pipeline-wiring.yml", 40, "AML809"),
        ["${{parent.job.train.outputs.model}}"]
    );
    assert_eq!(
        on("pipeline-cycle.yml", 9, "AML804"),
        ["${{parent.jobs.c.outputs.y}}"]
    );
    assert_eq!(
        on("placeholders.yml", 15, "AML801"),
        ["${{inputs.dta}}", "${{outputs.modle}}"]
    );
    assert_eq!(on("placeholders.yml", 15, "AML807"), ["${{inputs.seed}}"]);
    assert_eq!(on("sweep.yml", 6, "AML808"), ["${{search_space.lr}}"]);
    assert_eq!(
        on("pipeline-types.yml", 36, "AML811"),
        ["${{parent.jobs.train.outputs.model}}"]
    );
    assert_eq!(
        on("pipeline-types.yml", 38, "AML811"),
        ["${{parent.jobs.prep.outputs.clean}}"]
    );
    assert_eq!(on("pipeline-types.yml", 39, "AML811"), ["${{inputs.raw_data}}"]);
    // An inline command step's output without `type:` is a `uri_folder`.
    assert_eq!(
        on("pipeline-types.yml", 40, "AML811"),
        ["${{parent.jobs.prep.outputs.log}}"]
    );
    assert_eq!(on("pipeline-types.yml", 87, "AML810"), ["10"]);
    assert_eq!(on("pipeline-types.yml", 88, "AML810"), ["on"]);
    assert_eq!(on("pipeline-sweep.yml", 15, "AML805"), ["seeds"]);
    assert_eq!(on("pipeline-sweep.yml", 25, "AML812"), ["momentum"]);
    assert_eq!(on("pipeline-sweep.yml", 37, "AML806"), ["inputs"]);
    assert_eq!(
        on("pipeline-sweep.yml", 38, "AML808"),
        ["${{search_space.epoch}}"]
    );
    assert_eq!(on("pipeline-sweep.yml", 64, "AML812"), ["l2"]);
    assert_eq!(
        on("pipeline-sweep.yml", 91, "AML803"),
        ["${{parent.jobs.tune.outputs.modl}}"]
    );
    assert_eq!(on("sweep.yml", 12, "AML812"), ["learning_rate"]);
    // Placeholders of an inline step component and of a sweep step's inline trial.
    assert_eq!(on("inline-placeholders.yml", 19, "AML801"), ["${{inputs.dat}}"]);
    assert_eq!(on("inline-placeholders.yml", 19, "AML807"), ["${{inputs.rows}}"]);
    assert_eq!(
        on("inline-placeholders.yml", 34, "AML801"),
        ["${{outputs.model}}"]
    );
    assert_eq!(
        on("inline-placeholders.yml", 37, "AML808"),
        ["${{search_space.learning_rat}}"]
    );
    // Every binding finding covers exactly one `${{...}}`.
    for (file, line, code, text) in &found {
        if !matches!(*code, "AML805" | "AML806" | "AML810" | "AML812") {
            assert!(
                text.starts_with("${{") && text.ends_with("}}") && text.matches("${{").count() == 1,
                "{file}:{line} {code} is on {text:?}"
            );
        }
    }
}

#[test]
fn a_binding_in_a_quoted_or_block_scalar_keeps_its_exact_span() {
    let dir = project();
    write(
        dir.path(),
        "job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\n\
         command: |\n  python train.py\n    --a \"${{inputs.a}}\"\n    --b ${{inputs.bb}}\n\
         environment: azureml:sklearn:1\n\
         inputs:\n  a: 1\n  b: 2\n\
         environment_variables:\n  X: \"\\t${{input.a}}\"\n",
    );
    let found = findings(dir.path());
    assert_eq!(
        found,
        [
            ("job.yml".to_string(), 5, "AML801", "${{inputs.bb}}".to_string()),
            ("job.yml".to_string(), 11, "AML809", "${{input.a}}".to_string()),
        ]
    );
}

#[test]
fn a_binding_written_with_an_escape_falls_back_to_the_whole_value() {
    let dir = project();
    write(
        dir.path(),
        "job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\n\
         command: \"python t.py \\x24{{inputs.b}}\"\n\
         environment: azureml:sklearn:1\n\
         inputs:\n  a: 1\n",
    );
    let found = findings(dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].3, "\"python t.py \\x24{{inputs.b}}\"");
}

#[test]
fn a_component_file_of_the_project_gives_the_step_its_interface() {
    let dir = project();
    write(
        dir.path(),
        "components/train.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandComponent.schema.json\n\
         type: command\nname: train\n\
         inputs:\n  data: {type: uri_folder}\n  epochs: {type: integer}\n\
         outputs:\n  model: {type: uri_folder}\n\
         environment: azureml:sklearn:1\n\
         command: python t.py ${{inputs.data}} ${{inputs.epochs}} ${{outputs.model}}\n",
    );
    let pipeline = "$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json\n\
         type: pipeline\njobs:\n  a:\n    component: ./components/train.yml\n    inputs:\n      data: azureml:raw:1\n      epochs: 2\n  \
         b:\n    component: COMPONENT\n    inputs:\n      data: ${{parent.jobs.a.outputs.modl}}\n      epochs: 2\n";
    write(
        dir.path(),
        "pipeline.yml",
        &pipeline.replace("COMPONENT", "file:components/train.yml"),
    );
    let found = findings(dir.path());
    assert_eq!(
        found,
        [(
            "pipeline.yml".to_string(),
            12,
            "AML803",
            "${{parent.jobs.a.outputs.modl}}".to_string()
        )]
    );
    // A registry component: its interface is unknown, only the step's existence counts.
    write(
        dir.path(),
        "pipeline.yml",
        &pipeline
            .replace("COMPONENT", "azureml:train:1")
            .replace("jobs.a.outputs.modl", "jobs.a.outputs.model"),
    );
    assert!(findings(dir.path()).is_empty());
    // Only the pipeline checked (pre-commit): the component file is still indexed.
    write(
        dir.path(),
        "pipeline.yml",
        &pipeline.replace("COMPONENT", "./components/train.yml"),
    );
    let report = check_paths(&[dir.path().join("pipeline.yml")], &Options::default());
    let codes: Vec<&str> = report
        .diagnostics()
        .map(|(_, d)| d.code)
        .filter(|c| c.starts_with("AML8"))
        .collect();
    assert_eq!(codes, ["AML803"]);
}
