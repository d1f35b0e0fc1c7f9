// @ts-check
/**
 * The kgraph extension: starts `kgraph lsp` for YAML files and restarts it when its settings change;
 * `kgraph: Pick the cluster` lists the kubeconfig's contexts (or offline schemas only) and stores the
 * choice in the workspace settings.
 */
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');
const { contextsOf, kubeconfigFiles, serverCommand } = require('./settings.js');

/** @type {LanguageClient | undefined} */
let client;

function settings() {
  const c = vscode.workspace.getConfiguration('kgraph');
  return {
    path: c.get('path', 'kgraph'),
    crdFiles: c.get('crdFiles', []),
    kubeconfig: c.get('kubeconfig', null),
    context: c.get('context', null),
  };
}

async function start() {
  const { command, args } = serverCommand(settings());
  client = new LanguageClient(
    'kgraph',
    'kgraph',
    { command, args },
    {
      documentSelector: [
        { scheme: 'file', language: 'yaml' },
        { scheme: 'untitled', language: 'yaml' },
      ],
    },
  );
  await client.start();
}

async function restart() {
  if (client) await client.stop();
  client = undefined;
  await start();
}

async function pickCluster() {
  const items = [
    {
      label: 'Offline schemas only',
      description: 'the built-in bundle and CRD files',
      file: null,
      context: null,
    },
  ];
  for (const file of kubeconfigFiles())
    for (const c of contextsOf(file))
      items.push({
        label: c.name,
        description: `${c.cluster}${c.current ? ' (current)' : ''}`,
        file,
        context: c.name,
      });
  const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Schemas of which cluster?' });
  if (!pick) return;
  const c = vscode.workspace.getConfiguration('kgraph');
  await c.update('kubeconfig', pick.file, vscode.ConfigurationTarget.Workspace);
  await c.update('context', pick.context, vscode.ConfigurationTarget.Workspace);
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('kgraph.pickCluster', pickCluster),
    vscode.commands.registerCommand('kgraph.restartServer', restart),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('kgraph')) void restart();
    }),
  );
  await start();
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
