// Which amlint executable the extension runs, decided without touching VS Code (so that
// test/find.test.js can test it): in order,
//   1. `amlint.path` from the user's settings (the setting is machine-scoped: a
//      repository's workspace settings cannot choose the executable; only the user's
//      own value is read even so),
//   2. in a trusted workspace, `amlint` beside the interpreter of the active Python
//      environment (where `pip install amlint` put it),
//   3. `amlint` on PATH.
// Returns { command, source } or { missing: [places looked at] }.
"use strict";

const path = require("path");

function candidates(dir, platform) {
  if (platform === "win32") {
    return ["amlint.exe"].map((n) => path.win32.join(dir, n));
  }
  return [path.posix.join(dir, "amlint")];
}

/**
 * @param {object} o
 * @param {string|undefined} o.userPath  `amlint.path` from the user's settings
 * @param {boolean} o.trusted             the workspace is trusted
 * @param {string|undefined} o.python     the active Python environment's interpreter
 * @param {string|undefined} o.envPath    the PATH environment variable
 * @param {string} o.platform             process.platform
 * @param {(file: string) => boolean} o.isExecutable
 */
function findAmlint(o) {
  const looked = [];
  if (o.userPath) {
    return { command: o.userPath, source: "the amlint.path setting" };
  }
  if (o.trusted && o.python) {
    const dir = (o.platform === "win32" ? path.win32 : path.posix).dirname(o.python);
    for (const file of candidates(dir, o.platform)) {
      looked.push(file);
      if (o.isExecutable(file)) {
        return { command: file, source: "the active Python environment" };
      }
    }
  }
  const sep = o.platform === "win32" ? ";" : ":";
  for (const dir of (o.envPath || "").split(sep)) {
    if (!dir) continue;
    for (const file of candidates(dir, o.platform)) {
      looked.push(file);
      if (o.isExecutable(file)) {
        return { command: file, source: "PATH" };
      }
    }
  }
  return { missing: looked };
}

const INSTALL_HELP =
  "amlint was not found. Install it with `pip install amlint` (into the project's Python " +
  "environment or any on PATH), `cargo install amlint`, or a release binary; or set " +
  "amlint.path in your user settings.";

module.exports = { findAmlint, INSTALL_HELP };
