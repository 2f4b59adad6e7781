//! Issue 35: Python shown in documentation. A Markdown ```` ```python ```` / `py` /
//! `ipython` fence, an unlabelled fence of SDK code and a reST `.. code-block:: python`
//! that create a compute define it as a notebook's code cells do: the Python blocks of
//! one document read in order as one program, every span in the document, noted as
//! written in documentation; placeholders unknown; suppressions in Markdown and in the
//! Python kept; a document of unrelated Python is not parsed.

use serde_json::Value;

use crate::common::{job_using as job, json_check, project, write};

/// The findings of `path`: (code, line of the focus or range, column).
fn at(json: &Value, path: &str) -> Vec<(String, u64, u64)> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["path"] == path)
        .map(|d| {
            let p = d.get("focus").unwrap_or(&d["range"]);
            (
                d["code"].as_str().unwrap().to_string(),
                p["start"]["line"].as_u64().unwrap(),
                p["start"]["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

const README: &str = concat!(
    "# Create the clusters\n",                                             // 1
    "\n",                                                                  // 2
    "```python\n",                                                         // 3
    "from azure.ai.ml.entities import AmlCompute, ComputeInstance\n",      // 4
    "gpu_size = \"Standard_NC6\"\n",                                       // 5
    "```\n",                                                               // 6
    "Then, in the same session:\n",                                        // 7
    "```py\n",                                                             // 8
    "gpu = AmlCompute(name=\"md-gpu\", size=gpu_size, min_instances=0)\n", // 9
    "ml_client.begin_create_or_update(gpu)\n",                             // 10
    "```\n",                                                               // 11
    "<!-- amlint: ignore[AML505] -->\n",                                   // 12
    "```ipython\n",                                                        // 13
    "quiet = AmlCompute(name=\"md-quiet\", size=\"Standard_NC6\", min_instances=0)\n", // 14
    "!pip list\n",                                                         // 15
    "```\n",                                                               // 16
    "5. With SDK v1:\n",                                                   // 17
    "    ```\n",                                                           // 18
    "    v1_name = \"md-v1\"\n",                                           // 19
    "    try:\n",                                                          // 20
    "        t = ComputeTarget(workspace=ws, name=v1_name)\n",             // 21
    "    except ComputeTargetException:\n",                                // 22
    "        cfg = AmlCompute.provisioning_configuration(vm_size='Standard_NC12',\n", // 23
    "                                                    max_nodes=8)\n",  // 24
    "        t = ComputeTarget.create(ws, v1_name, cfg)\n",                // 25
    "    ```\n",                                                           // 26
    "```python\n",                                                         // 27
    "ci = ComputeInstance(name=\"<your-instance-name>\", size=\"Standard_NC6\")\n", // 28
    "```\n",                                                               // 29
    "```yaml\n",                                                           // 30
    "size: AmlCompute(name=\"yaml-shown\", size=\"Standard_NC6\")\n",      // 31
    "```\n",                                                               // 32
);

const GUIDE_RST: &str = concat!(
    "Compute\n",                                        // 1
    "=======\n",                                        // 2
    "\n",                                               // 3
    ".. code-block:: python\n",                         // 4
    "\n",                                               // 5
    "   from azure.ai.ml.entities import AmlCompute\n", // 6
    "   # amlint: ignore[AML702]\n",                    // 7
    "   c = AmlCompute(\n",                             // 8
    "       name=\"rst-gpu\",\n",                       // 9
    "       size=\"Standard_NC6\",\n",                  // 10
    "   )\n",                                           // 11
);

#[test]
fn python_in_documentation_defines_computes_at_its_place() {
    let dir = project();
    let root = dir.path();
    write(root, "README.md", README);
    write(root, "docs/guide.rst", GUIDE_RST);
    write(
        root,
        "job.yml",
        &job(&["md-gpu", "md-quiet", "md-v1", "rst-gpu", "yaml-shown"]),
    );
    let (_, json) = json_check(root, &["--no-config", "."]);
    let readme = at(&json, "README.md");
    // The size assigned in an earlier block, reported where the definition uses it.
    assert!(readme.contains(&("AML505".into(), 9, 38)), "{readme:?}");
    // SDK v1 in an unlabelled fence inside a list item: the retired size, reported at
    // `ComputeTarget.create`'s configuration as in a `.py` file.
    assert!(readme.contains(&("AML505".into(), 25, 47)), "{readme:?}");
    // A Markdown comment above the fence covers the definition on its first line.
    assert!(
        !readme.iter().any(|(c, l, _)| c == "AML505" && *l == 14),
        "{readme:?}"
    );
    // A placeholder name is not a name; the definition is still checked.
    assert!(readme.contains(&("AML505".into(), 28, 57)), "{readme:?}");
    // A YAML fence is not Python.
    let job = at(&json, "job.yml");
    assert_eq!(
        job.iter().filter(|(c, ..)| c == "AML203").count(),
        1,
        "only `yaml-shown` is unresolved: {job:?}"
    );
    let rst = at(&json, "docs/guide.rst");
    assert!(rst.contains(&("AML505".into(), 10, 14)), "{rst:?}");
    // The Python comment in the block suppresses, and is used.
    assert!(rst.contains(&("AML704".into(), 9, 14)), "{rst:?}");
    assert!(
        !rst.iter().any(|(c, ..)| c == "AML702" || c == "AML009"),
        "{rst:?}"
    );
    assert!(!json.to_string().contains("AML000"));

    // Inventory: each definition is the SDK's, noted as documentation; the placeholder
    // is unknown, with why.
    let out = crate::common::amlint(root)
        .args(["inventory", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
    let defs: Vec<&Value> = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["definitions"].as_array().unwrap())
        .collect();
    for name in ["md-gpu", "md-quiet", "md-v1", "rst-gpu"] {
        let d = defs
            .iter()
            .find(|d| d["name"]["value"] == name)
            .unwrap_or_else(|| panic!("{name}: {inv}"));
        assert_eq!(d["source"], "python-sdk", "{d}");
        assert!(d["notes"].to_string().contains("documentation"), "{d}");
    }
    let v1 = defs.iter().find(|d| d["name"]["value"] == "md-v1").unwrap();
    assert_eq!(v1["line"], 25, "{v1}");
    let unnamed = inv["unnamed_definitions"].to_string();
    assert!(unnamed.contains("placeholder of the documentation"), "{unnamed}");
}

/// A fence never closed, a Python fence of 100,000 lines (quotes and parentheses never
/// closed in it), one beyond the Python reader's tokens, and a
/// document of Python that names no compute: bounded, the well-formed definitions still
/// read, nothing made of the rest.
#[test]
fn hostile_python_in_documentation() {
    let dir = project();
    let root = dir.path();
    let mut long = String::from("```python\nfrom azure.ai.ml.entities import AmlCompute\n");
    long.push_str(&"pass\n".repeat(90_000));
    long.push_str(&"x = 'unclosed\n".repeat(10));
    long.push_str(&"y = f(\n".repeat(5_000));
    long.push_str("```\n```python\nc = AmlCompute(name=\"long-gpu\", size=\"Standard_NC6\")\n```\n");
    write(root, "long/README.md", &long);
    write(
        root,
        "open/README.md",
        "```python\nc = AmlCompute(name=\"open-gpu\", size='Standard_NC6')\n",
    );
    // Beyond the Python reader's tokens: not read, and said so.
    let mut over = String::from("```python\nc = AmlCompute(name=\"over-gpu\")\n");
    over.push_str(&"x = 1\n".repeat(70_000));
    write(root, "over/README.md", &over);
    let mut plain = String::from("# Training\n");
    plain.push_str(&"```python\nimport torch\nmodel.fit(x)\n```\n".repeat(20_000));
    write(root, "plain/README.md", &plain);
    write(root, "job.yml", &job(&["open-gpu", "long-gpu"]));
    let (_, json) = json_check(root, &["--no-config", "."]);
    assert!(at(&json, "job.yml").is_empty(), "{:?}", at(&json, "job.yml"));
    assert!(
        at(&json, "open/README.md").contains(&("AML505".to_string(), 2, 39)),
        "{:?}",
        at(&json, "open/README.md")
    );
    assert!(at(&json, "long/README.md").iter().all(|(c, ..)| c != "AML005"));
    assert_eq!(at(&json, "over/README.md"), [("AML005".to_string(), 1, 1)]);
    assert!(at(&json, "plain/README.md").is_empty());
    assert!(!json.to_string().contains("AML000"));
}
