// node --test: the esbuild bundle (dist/extension.js, made by `npm run bundle`) loads
// with vscode-languageclient inside it, and when no amlint is found it says how to
// install it instead of starting a server. Skipped when the bundle has not been built.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const fs = require("fs");
const path = require("path");
const Module = require("module");

const bundle = path.join(__dirname, "..", "dist", "extension.js");

// A stand-in for the `vscode` module: any property is a callable object, except what the
// test sets.
function stub(overrides) {
  const make = (name) =>
    new Proxy(function () {}, {
      get(_, key) {
        if (key === "then") return undefined;
        return overrides[`${name}.${String(key)}`] ?? make(`${name}.${String(key)}`);
      },
      apply() {
        return make(`${name}()`);
      },
      construct() {
        return make(`new ${name}`);
      },
    });
  return make("vscode");
}

test("the bundle loads and asks for an install when amlint is missing", { skip: !fs.existsSync(bundle) }, async () => {
  const messages = [];
  const vscode = stub({
    "vscode.workspace": {
      isTrusted: false,
      getConfiguration: () => ({ inspect: () => ({ workspaceValue: "/tmp/evil", globalValue: undefined }) }),
    },
    "vscode.window": {
      createOutputChannel: () => ({ appendLine: () => {}, dispose: () => {} }),
      showErrorMessage: async (text) => {
        messages.push(text);
        return undefined;
      },
    },
  });
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request === "vscode" ? "vscode" : resolve.call(this, request, ...rest);
  };
  require.cache.vscode = { id: "vscode", filename: "vscode", loaded: true, exports: vscode };
  const saved = process.env.PATH;
  process.env.PATH = "/nonexistent";
  try {
    const ext = require(bundle);
    assert.strictEqual(typeof ext.activate, "function");
    assert.strictEqual(typeof ext.deactivate, "function");
    await ext.activate({ subscriptions: [] });
  } finally {
    process.env.PATH = saved;
    Module._resolveFilename = resolve;
  }
  // The workspace's value of amlint.path was not used; the user is told how to install.
  assert.strictEqual(messages.length, 1);
  assert.match(messages[0], /pip install amlint/);
});
