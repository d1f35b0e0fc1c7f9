// @ts-check
/**
 * The parts of the extension that do not need VS Code: the server's command line from the settings,
 * and the contexts of a kubeconfig (test/unit/lsp/vscodeExtension.test.ts runs them in Node).
 */
const { readFileSync } = require('node:fs');
const { homedir } = require('node:os');
const { join, delimiter } = require('node:path');
const YAML = require('yaml');

/**
 * @param {{ path?: string, crdFiles?: string[], kubeconfig?: string | null, context?: string | null }} s
 * @returns {{ command: string, args: string[] }}
 */
function serverCommand(s) {
  const args = ['lsp', '--stdio'];
  for (const f of s.crdFiles ?? []) args.push('--crd', f);
  if (s.kubeconfig) args.push('--kubeconfig', s.kubeconfig);
  if (s.context) args.push('--context', s.context);
  return { command: s.path || 'kgraph', args };
}

/** The kubeconfig files kubectl would read: $KUBECONFIG's list, else ~/.kube/config. */
function kubeconfigFiles(env = process.env) {
  if (env.KUBECONFIG) return env.KUBECONFIG.split(delimiter).filter((p) => p !== '');
  return [join(homedir(), '.kube', 'config')];
}

/**
 * The contexts of a kubeconfig file, with their cluster; an unreadable file has none.
 * @param {string} file
 * @returns {{ name: string, cluster: string, current: boolean }[]}
 */
function contextsOf(file) {
  let doc;
  try {
    doc = YAML.parse(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const list = Array.isArray(doc?.contexts) ? doc.contexts : [];
  return list
    .filter((c) => typeof c?.name === 'string')
    .map((c) => ({
      name: c.name,
      cluster: String(c.context?.cluster ?? ''),
      current: c.name === doc['current-context'],
    }));
}

module.exports = { serverCommand, kubeconfigFiles, contextsOf };
