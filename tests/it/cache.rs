//! The project cache (`src/cache.rs`, docs/cache.md) seen from the command line: a
//! one-file run gives the same findings with a cache, without one, and after any change
//! to the rest of the project; a cache file that is damaged, foreign, a link or a pipe
//! changes nothing; `--no-cache` and `AMLINT_NO_CACHE` neither read nor write one.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;

/// A project whose job names a compute an `az ml compute create` in a script defines.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for d in [".git", "jobs", "infra", "other/deep"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::write(
        root.join("jobs/job.yml"),
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:env@latest\ncompute: azureml:gpu-a100-west\n",
    )
    .unwrap();
    write_compute(root, "cpu-small");
    std::fs::write(root.join("other/deep/notes.yml"), "name: something-else\n").unwrap();
    std::fs::write(root.join(".gitignore"), "# nothing ignored yet\n").unwrap();
    dir
}

fn write_compute(root: &Path, name: &str) {
    std::fs::write(
        root.join("infra/setup.sh"),
        format!(
            "az ml compute create --name {name} --type amlcompute --size Standard_DS3_v2 --min-instances 0\n"
        ),
    )
    .unwrap();
}

/// `amlint check --format concise jobs/job.yml` in `root` with the cache in `store`
/// (recording entries at once: no settling time), and its standard output.
fn check(root: &Path, store: &Path, extra: &[&str]) -> String {
    let mut cmd = Command::cargo_bin("amlint").unwrap();
    cmd.timeout(Duration::from_secs(60))
        .current_dir(root)
        .env("AMLINT_CACHE_DIR", store)
        .env("AMLINT_CACHE_SETTLE_MS", "0")
        .env_remove("AMLINT_NO_CACHE")
        .args(["check", "--format", "concise", "--fail-on", "never"])
        .args(extra)
        .arg("jobs/job.yml");
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn unresolved(out: &str) -> bool {
    out.contains("AML203")
}

fn caches(store: &Path) -> Vec<std::path::PathBuf> {
    match std::fs::read_dir(store) {
        Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn a_cached_run_sees_every_change_to_the_rest_of_the_project() {
    let project = project();
    let store = tempfile::tempdir().unwrap();
    let (root, store) = (project.path(), store.path());
    let uncached = check(root, store, &["--no-cache"]);
    assert!(unresolved(&uncached), "{uncached}");
    assert!(caches(store).is_empty(), "--no-cache writes nothing");

    // Written by the first run, used by the second: the same findings.
    assert_eq!(check(root, store, &[]), uncached);
    assert_eq!(caches(store).len(), 1);
    assert_eq!(check(root, store, &[]), uncached);

    // The script rewritten in place (same inode, same directory) to define the name:
    // the cache knew it held none of the name's trigrams, and must not be trusted now.
    let in_place = |name: &str| {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(root.join("infra/setup.sh"))
            .unwrap();
        let line = format!(
            "az ml compute create --name {name} --type amlcompute --size Standard_DS3_v2 --min-instances 0\n"
        );
        f.write_all(line.as_bytes()).unwrap();
    };
    in_place("gpu-a100-west");
    let defined = check(root, store, &[]);
    assert!(!unresolved(&defined), "{defined}");
    assert_eq!(defined, check(root, store, &["--no-cache"]));
    assert_eq!(check(root, store, &[]), defined);

    // And back.
    in_place("gpu-a100-east");
    let renamed = check(root, store, &[]);
    assert!(unresolved(&renamed), "{renamed}");
    assert_eq!(renamed, check(root, store, &["--no-cache"]));

    // Defined again in a new file of a directory the cache had listed.
    std::fs::write(
        root.join("other/deep/compute.yml"),
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: gpu-a100-west\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 0\nmax_instances: 2\n",
    )
    .unwrap();
    let again = check(root, store, &[]);
    assert!(!unresolved(&again), "{again}");
    assert_eq!(again, check(root, store, &["--no-cache"]));

    // That file removed, and the directory holding the script replaced by another
    // with the original definition.
    std::fs::remove_file(root.join("other/deep/compute.yml")).unwrap();
    assert!(unresolved(&check(root, store, &[])));
    std::fs::rename(root.join("infra"), root.join("infra-old")).unwrap();
    std::fs::create_dir(root.join("infra")).unwrap();
    write_compute(root, "gpu-a100-west");
    assert!(!unresolved(&check(root, store, &[])));

    // A YAML file that mentions the name only where it cannot define it (`value:`): the
    // cache keeps where it may (its `name:` values) and a later run does not read it;
    // rewritten in place to define it, it is read again.
    let rewrite = |text: &str| {
        std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(root.join("other/deep/notes.yml"))
            .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
            .unwrap();
    };
    std::fs::remove_dir_all(root.join("infra")).unwrap();
    rewrite("name: notes\nenv:\n  - {name: COMPUTE, value: gpu-a100-west}\n");
    let mentioned = check(root, store, &[]);
    assert!(unresolved(&mentioned), "{mentioned}");
    assert_eq!(check(root, store, &[]), mentioned);
    assert_eq!(mentioned, check(root, store, &["--no-cache"]));
    rewrite(
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: gpu-a100-west\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 0\nmax_instances: 2\n",
    );
    let defined = check(root, store, &[]);
    assert!(!unresolved(&defined), "{defined}");
    assert_eq!(defined, check(root, store, &["--no-cache"]));
    rewrite("name: something-else\n");
    std::fs::create_dir(root.join("infra")).unwrap();
    write_compute(root, "gpu-a100-west");

    // The ignore file rewritten in place to hide the script: its directory's listing is
    // the cache's (unchanged), its rules are read afresh.
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(root.join(".gitignore"))
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"infra/\n"))
        .unwrap();
    let ignored = check(root, store, &[]);
    assert!(unresolved(&ignored), "{ignored}");
    assert_eq!(ignored, check(root, store, &["--no-cache"]));
}

#[test]
fn no_cache_in_the_environment_reads_and_writes_nothing() {
    let project = project();
    let store = tempfile::tempdir().unwrap();
    let mut cmd = Command::cargo_bin("amlint").unwrap();
    cmd.timeout(Duration::from_secs(60))
        .current_dir(project.path())
        .env("AMLINT_CACHE_DIR", store.path())
        .env("AMLINT_CACHE_SETTLE_MS", "0")
        .env("AMLINT_NO_CACHE", "1")
        .args(["check", "jobs/job.yml"]);
    cmd.assert().success();
    assert!(caches(store.path()).is_empty());
}

/// Whatever stands where the cache file goes, the findings are those of a run without a
/// cache, and nothing outside the cache directory is written or followed into.
#[cfg(unix)]
#[test]
fn a_damaged_foreign_linked_or_special_cache_file_changes_nothing() {
    let project = project();
    let root = project.path();
    let expected = {
        let store = tempfile::tempdir().unwrap();
        check(root, store.path(), &["--no-cache"])
    };
    // The name the cache of this project takes: learnt from a first run.
    let learn = tempfile::tempdir().unwrap();
    check(root, learn.path(), &[]);
    let name = caches(learn.path())[0].file_name().unwrap().to_owned();
    let real = std::fs::read(learn.path().join(&name)).unwrap();

    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    std::fs::write(&victim, b"not a cache").unwrap();
    type Plant = Box<dyn Fn(&Path)>;
    let plants: Vec<(&str, Plant)> = vec![
        (
            "garbage",
            Box::new(|p: &Path| std::fs::write(p, b"AMLCACHE\x01\x00\x00\x00garbage").unwrap()),
        ),
        ("empty", Box::new(|p: &Path| std::fs::write(p, b"").unwrap())),
        (
            "truncated",
            Box::new({
                let real = real.clone();
                move |p: &Path| std::fs::write(p, &real[..real.len() / 2]).unwrap()
            }),
        ),
        (
            "one bit flipped",
            Box::new({
                let real = real.clone();
                move |p: &Path| {
                    let mut bytes = real.clone();
                    let mid = bytes.len() / 2;
                    bytes[mid] ^= 1;
                    std::fs::write(p, bytes).unwrap()
                }
            }),
        ),
        (
            "a link out",
            Box::new({
                let victim = victim.clone();
                move |p: &Path| std::os::unix::fs::symlink(&victim, p).unwrap()
            }),
        ),
        (
            "a pipe",
            Box::new(|p: &Path| {
                let status = std::process::Command::new("mkfifo").arg(p).status().unwrap();
                assert!(status.success());
            }),
        ),
        (
            "a directory",
            Box::new(|p: &Path| std::fs::create_dir(p).unwrap()),
        ),
    ];
    for (what, plant) in plants {
        let store = tempfile::tempdir().unwrap();
        plant(&store.path().join(&name));
        assert_eq!(check(root, store.path(), &[]), expected, "{what}");
        assert_eq!(check(root, store.path(), &[]), expected, "{what}, again");
    }
    assert_eq!(std::fs::read(&victim).unwrap(), b"not a cache");
}
