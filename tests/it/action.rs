//! The GitHub Action: `action.yml` is valid YAML whose inputs all reach a step, its
//! install steps (`scripts/action-install.sh`) fetch, verify and cache the release binary
//! from a fake release served on loopback (archives made by `scripts/release-archive.sh`,
//! as the release workflow makes them), and its run step (`scripts/action-run.sh`) runs
//! amlint as the inputs say.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn action() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml");
    let loaded = amlint::load::parse_text(
        "action.yml",
        std::fs::read_to_string(path).unwrap(),
        amlint::load::Format::Yaml,
        &Default::default(),
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    loaded.documents[0].to_json()
}

#[test]
fn every_input_reaches_the_run_step() {
    let a = action();
    assert_eq!(a["runs"]["using"], "composite");
    let steps = a["runs"]["steps"].as_array().unwrap();
    let text = serde_json::to_string(steps).unwrap();
    let inputs = a["inputs"].as_object().unwrap();
    for name in [
        "paths", "format", "fail-on", "output", "config", "baseline", "version",
    ] {
        assert!(inputs.contains_key(name), "input {name} is missing");
    }
    for name in inputs.keys() {
        assert!(
            text.contains(&format!("${{{{ inputs.{name} }}}}")),
            "input {name} is not used"
        );
    }
    assert!(text.contains("scripts/action-run.sh"));
    assert!(text.contains("scripts/action-install.sh"));
    // The default version is the release the action belongs to: Cargo.toml's.
    assert_eq!(
        a["inputs"]["version"]["default"].as_str(),
        Some(env!("CARGO_PKG_VERSION"))
    );
    // The binary is cached; the cargo registry and build only when building from source.
    let caches: Vec<&Value> = steps
        .iter()
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/cache@"))
        })
        .collect();
    assert_eq!(caches.len(), 2, "{text}");
    assert!(caches[1]["if"].as_str().unwrap().contains("build == 'true'"));
    assert!(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scripts/action-run.sh")
            .is_file()
    );
}

#[test]
fn run_step_follows_the_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("jobs")).unwrap();
    let job = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: local\n";
    std::fs::write(root.join("jobs/bad.yml"), format!("{job}compute: local\n")).unwrap();
    std::fs::write(root.join("other dir.yml"), job).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("amlint");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action-run.sh");
    let run = |envs: &[(&str, &str)]| {
        let outputs = root.join("github-output");
        let _ = std::fs::remove_file(&outputs);
        let out = std::process::Command::new("bash")
            .arg(&script)
            .current_dir(root)
            .env("PATH", &path)
            .env("GITHUB_OUTPUT", &outputs)
            .envs(envs.iter().copied())
            .output()
            .unwrap();
        let recorded = std::fs::read_to_string(&outputs).unwrap_or_default();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            recorded,
        )
    };
    let (code, stdout, outputs) = run(&[
        ("INPUT_PATHS", "jobs\nother dir.yml"),
        ("INPUT_FORMAT", "sarif"),
        ("INPUT_OUTPUT", "amlint.sarif"),
    ]);
    assert_eq!(code, Some(1), "{stdout}");
    assert_eq!(outputs, "exit-code=1\n");
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("amlint.sarif")).unwrap()).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 1);
    // Defaults: annotations for the current directory, failing on errors.
    let (code, stdout, _) = run(&[]);
    assert_eq!(code, Some(1));
    assert!(stdout.starts_with("::error file=jobs/bad.yml,line=5"), "{stdout}");
    let (code, _, outputs) = run(&[("INPUT_FAIL_ON", "never")]);
    assert_eq!((code, outputs.as_str()), (Some(0), "exit-code=0\n"));
    let (code, _, _) = run(&[("INPUT_CONFIG", "missing.toml")]);
    assert_eq!(code, Some(2));
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Serves the files under `root` over HTTP on loopback (GET only; 404 for what is not
/// there) until the test process ends. Returns the base URL.
fn serve(root: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            // Skip the headers.
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                header.clear();
            }
            let path = line.split(' ').nth(1).unwrap_or("/").trim_start_matches('/');
            let file = root.join(path);
            let reply = match std::fs::read(&file) {
                Ok(body) if !path.contains("..") && file.is_file() => {
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    [head.into_bytes(), body].concat()
                }
                _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
            };
            let _ = stream.write_all(&reply);
        }
    });
    url
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    outputs: String,
    path: String,
}

/// `scripts/action-install.sh SUBCOMMAND` as the action runs it, on a Linux x64 runner
/// unless `envs` says otherwise.
fn install(sub: &str, cache: &Path, envs: &[(&str, &str)]) -> Run {
    let github = tempfile::tempdir().unwrap();
    let outputs = github.path().join("output");
    let path = github.path().join("path");
    let out = Command::new("bash")
        .arg(repo().join("scripts/action-install.sh"))
        .arg(sub)
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_ARCH", "X64")
        .env("RUNNER_TOOL_CACHE", cache)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_PATH", &path)
        .env("GITHUB_ACTION_PATH", repo())
        .env("AMLINT_VERSION", env!("CARGO_PKG_VERSION"))
        .envs(envs.iter().copied())
        .output()
        .unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        outputs: std::fs::read_to_string(&outputs).unwrap_or_default(),
        path: std::fs::read_to_string(&path).unwrap_or_default(),
    }
}

/// A fake release of this version: `v<version>/` with the Linux x64 archive of the
/// test build of amlint and its checksum, made by scripts/release-archive.sh (once per
/// test run, then copied). The binary is stripped first when `strip` is there, as the
/// release's are (Cargo.toml, `[profile.dist]`): 19 MB to pack, serve, checksum and
/// unpack instead of 64 MB of symbols and line tables.
fn fake_release() -> (tempfile::TempDir, PathBuf) {
    static MADE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let made = MADE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("action-release");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let built = assert_cmd::cargo::cargo_bin("amlint");
        let stripped = dir.join("amlint");
        let binary = match Command::new("strip")
            .arg("-o")
            .arg(&stripped)
            .arg(&built)
            .status()
        {
            Ok(status) if status.success() => stripped,
            _ => built,
        };
        let out = Command::new("bash")
            .arg(repo().join("scripts/release-archive.sh"))
            .arg(&binary)
            .arg("x86_64-unknown-linux-musl")
            .arg(&dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    });
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join(format!("v{}", env!("CARGO_PKG_VERSION")));
    std::fs::create_dir_all(&dir).unwrap();
    let name = made.file_name().unwrap();
    let archive = dir.join(name);
    std::fs::copy(made, &archive).unwrap();
    let sums = format!("{}.sha256", name.to_str().unwrap());
    std::fs::copy(made.with_file_name(&sums), dir.join(&sums)).unwrap();
    (root, archive)
}

#[test]
fn install_downloads_verifies_and_caches_the_release_binary() {
    let version = env!("CARGO_PKG_VERSION");
    let (release, archive) = fake_release();
    let asset = format!("amlint-{version}-x86_64-unknown-linux-musl.tar.gz");
    assert_eq!(archive.file_name().unwrap().to_str(), Some(asset.as_str()));
    let url = serve(release.path().to_path_buf());
    let cache = tempfile::tempdir().unwrap();
    let at = [("AMLINT_RELEASE_URL", url.as_str())];

    let plan = install("plan", cache.path(), &at);
    assert_eq!(plan.code, Some(0), "{}", plan.stderr);
    let dir = cache
        .path()
        .join(format!("amlint/{version}/x86_64-unknown-linux-musl"));
    assert!(
        plan.outputs.contains(&format!("asset={asset}\n")),
        "{}",
        plan.outputs
    );
    assert!(plan.outputs.contains(&format!("dir={}\n", dir.display())));

    // Downloaded, verified, installed and put on PATH.
    let run = install("install", cache.path(), &at);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(&format!("{asset} verified")),
        "{}",
        run.stdout
    );
    assert_eq!(run.outputs, "build=false\n");
    assert_eq!(run.path, format!("{}\n", dir.join("bin").display()));
    let installed = dir.join("bin/amlint");
    let said = Command::new(&installed).arg("--version").output().unwrap();
    let said = String::from_utf8_lossy(&said.stdout);
    assert!(
        said.starts_with(&format!("amlint {version} (schemas: ")),
        "{said}"
    );

    // Cached: a second run downloads nothing (the release is unreachable now).
    let gone = [("AMLINT_RELEASE_URL", "http://127.0.0.1:9")];
    let run = install("install", cache.path(), &gone);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("cached"), "{}", run.stdout);
    assert_eq!(run.outputs, "build=false\n");

    // Without a cache and without the release: the step fails (not a silent build).
    let empty = tempfile::tempdir().unwrap();
    let run = install("install", empty.path(), &gone);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.stderr.contains("could not download"), "{}", run.stderr);

    // A version the release does not have (404): build from source instead.
    let run = install("install", empty.path(), &[at[0], ("AMLINT_VERSION", "v9.9.9")]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("404"), "{}", run.stdout);
    assert_eq!(run.outputs, "build=true\n");

    // A runner the release has no binary for: build from source, nothing downloaded.
    let run = install("install", empty.path(), &[gone[0], ("RUNNER_ARCH", "ARM")]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.outputs, "build=true\n");

    // Not a version: refused before anything is fetched.
    let run = install("plan", empty.path(), &[("AMLINT_VERSION", "latest; rm -rf /")]);
    assert_eq!(run.code, Some(2));
    assert!(std::fs::read_dir(empty.path()).unwrap().next().is_none());
}

#[test]
fn install_refuses_a_wrong_or_missing_checksum() {
    let (release, archive) = fake_release();
    let url = serve(release.path().to_path_buf());
    let at = [("AMLINT_RELEASE_URL", url.as_str())];
    let sums = PathBuf::from(format!("{}.sha256", archive.display()));
    let right = std::fs::read_to_string(&sums).unwrap();
    let name = archive.file_name().unwrap().to_str().unwrap();
    assert_eq!(right.split_whitespace().nth(1), Some(name), "{right}");

    // One hex digit changed.
    let first = if right.starts_with('0') { "1" } else { "0" };
    std::fs::write(&sums, format!("{first}{}", &right[1..])).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let run = install("install", cache.path(), &at);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.stderr.contains("checksum mismatch"), "{}", run.stderr);
    assert!(run.path.is_empty() && !run.outputs.contains("build="));
    let bin = cache.path().join(format!(
        "amlint/{}/x86_64-unknown-linux-musl/bin",
        env!("CARGO_PKG_VERSION")
    ));
    assert!(!bin.exists(), "an unverified binary was installed");

    // No checksum at all.
    std::fs::remove_file(&sums).unwrap();
    let run = install("install", cache.path(), &at);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.stderr.contains("no checksum"), "{}", run.stderr);
    assert!(!bin.exists());

    // The right checksum again: installed.
    std::fs::write(&sums, right).unwrap();
    let run = install("install", cache.path(), &at);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(bin.join("amlint").is_file());
}

#[test]
fn build_step_installs_the_action_source_with_cargo() {
    // A stand-in `cargo` records how it is called.
    let fake = tempfile::tempdir().unwrap();
    let log = fake.path().join("cargo.log");
    std::fs::write(
        fake.path().join("cargo"),
        format!("#!/bin/sh\necho \"$CARGO_TARGET_DIR $*\" > '{}'\n", log.display()),
    )
    .unwrap();
    Command::new("chmod")
        .arg("755")
        .arg(fake.path().join("cargo"))
        .status()
        .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let path = format!(
        "{}:{}",
        fake.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = install(
        "build",
        cache.path(),
        &[("PATH", &path), ("AMLINT_VERSION", "source")],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let called = std::fs::read_to_string(&log).unwrap();
    let dir = run.path.trim().strip_suffix("/bin").unwrap().to_string();
    assert!(dir.starts_with(&format!("{}/amlint/source-", cache.path().display())));
    assert_eq!(
        called.trim(),
        format!(
            "{dir}-target install --locked --root {dir} --path {}",
            repo().display()
        )
    );
}

#[test]
fn every_runner_with_a_release_binary_is_built_by_the_release_workflow() {
    let release = std::fs::read_to_string(repo().join(".github/workflows/release.yml")).unwrap();
    let cache = tempfile::tempdir().unwrap();
    for (os, arch) in [
        ("Linux", "X64"),
        ("Linux", "ARM64"),
        ("macOS", "X64"),
        ("macOS", "ARM64"),
        ("Windows", "X64"),
    ] {
        let plan = install("plan", cache.path(), &[("RUNNER_OS", os), ("RUNNER_ARCH", arch)]);
        let target = plan
            .outputs
            .lines()
            .find_map(|l| l.strip_prefix("target="))
            .unwrap();
        assert!(!target.is_empty(), "{os}/{arch}");
        assert!(
            release.contains(&format!("target: {target}")),
            "release.yml builds no {target} (for {os}/{arch})"
        );
    }
}
