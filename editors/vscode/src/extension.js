// The VS Code client for `amlint lsp`: finds the amlint executable (src/find.js), starts
// the server on YAML and JSON files and lets vscode-languageclient do the rest
// (diagnostics, quick fixes, hover). Bundled into dist/extension.js by esbuild.
"use strict";

const fs = require("fs");
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");
const { findAmlint, INSTALL_HELP } = require("./find");

const INSTALL_URL = "https://github.com/amlint/amlint/blob/main/docs/install.md";

let client;

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

// The interpreter of the active Python environment, from the Python extension's API, if
// that extension is installed.
async function activePython() {
  const ext = vscode.extensions.getExtension("ms-python.python");
  if (!ext) return undefined;
  try {
    const api = ext.isActive ? ext.exports : await ext.activate();
    const envs = api && api.environments;
    if (!envs) return undefined;
    const env = await envs.resolveEnvironment(envs.getActiveEnvironmentPath());
    return env && env.executable && env.executable.uri ? env.executable.uri.fsPath : undefined;
  } catch {
    return undefined;
  }
}

async function activate(context) {
  const setting = vscode.workspace.getConfiguration("amlint").inspect("path");
  const found = findAmlint({
    userPath: setting && setting.globalValue,
    trusted: vscode.workspace.isTrusted,
    python: vscode.workspace.isTrusted ? await activePython() : undefined,
    envPath: process.env.PATH,
    platform: process.platform,
    isExecutable,
  });
  const output = vscode.window.createOutputChannel("amlint");
  context.subscriptions.push(output);
  if (found.missing) {
    output.appendLine(INSTALL_HELP);
    output.appendLine("Looked at: " + found.missing.join(", "));
    const choice = await vscode.window.showErrorMessage(INSTALL_HELP, "How to install");
    if (choice) {
      vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL));
    }
    return;
  }
  output.appendLine(`amlint: ${found.command} (from ${found.source})`);
  client = new LanguageClient(
    "amlint",
    "amlint",
    { command: found.command, args: ["lsp"] },
    {
      documentSelector: [
        { scheme: "file", language: "yaml" },
        { scheme: "file", language: "json" },
      ],
      outputChannel: output,
    },
  );
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
