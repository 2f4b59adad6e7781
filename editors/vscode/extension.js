// The smallest VS Code client for `amlint lsp`: starts the server on YAML and JSON files
// and lets vscode-languageclient do the rest (diagnostics, quick fixes, hover).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate() {
  const command = vscode.workspace.getConfiguration("amlint").get("path") || "amlint";
  client = new LanguageClient(
    "amlint",
    "amlint",
    { command, args: ["lsp"] },
    {
      documentSelector: [
        { scheme: "file", language: "yaml" },
        { scheme: "file", language: "json" },
      ],
    },
  );
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
