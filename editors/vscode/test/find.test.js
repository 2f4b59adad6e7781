// node --test: which executable the extension runs (src/find.js).
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const { findAmlint } = require("../src/find");

const base = {
  userPath: undefined,
  trusted: true,
  python: "/proj/.venv/bin/python",
  envPath: "/usr/local/bin:/usr/bin",
  platform: "linux",
};
const only = (...files) => (f) => files.includes(f);

test("the user's amlint.path wins", () => {
  const r = findAmlint({ ...base, userPath: "/opt/amlint", isExecutable: only("/usr/bin/amlint") });
  assert.deepStrictEqual(r, { command: "/opt/amlint", source: "the amlint.path setting" });
});

test("the active Python environment comes before PATH in a trusted workspace", () => {
  const r = findAmlint({ ...base, isExecutable: only("/proj/.venv/bin/amlint", "/usr/bin/amlint") });
  assert.deepStrictEqual(r, { command: "/proj/.venv/bin/amlint", source: "the active Python environment" });
});

test("an untrusted workspace's Python environment is never used", () => {
  const r = findAmlint({
    ...base,
    trusted: false,
    isExecutable: only("/proj/.venv/bin/amlint", "/usr/bin/amlint"),
  });
  assert.deepStrictEqual(r, { command: "/usr/bin/amlint", source: "PATH" });
});

test("Windows: amlint.exe beside python.exe (Scripts), PATH split on ;", () => {
  const win = { ...base, platform: "win32", envPath: "C:\\a;C:\\b" };
  let r = findAmlint({
    ...win,
    python: "C:\\proj\\.venv\\Scripts\\python.exe",
    isExecutable: only("C:\\proj\\.venv\\Scripts\\amlint.exe"),
  });
  assert.deepStrictEqual(r, { command: "C:\\proj\\.venv\\Scripts\\amlint.exe", source: "the active Python environment" });
  r = findAmlint({ ...win, python: undefined, isExecutable: only("C:\\b\\amlint.exe") });
  assert.deepStrictEqual(r, { command: "C:\\b\\amlint.exe", source: "PATH" });
});

test("missing: every place looked at is listed", () => {
  const r = findAmlint({ ...base, isExecutable: () => false });
  assert.deepStrictEqual(r.missing, ["/proj/.venv/bin/amlint", "/usr/local/bin/amlint", "/usr/bin/amlint"]);
});
