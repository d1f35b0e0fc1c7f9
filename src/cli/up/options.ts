/**
 * What `kgraph up` is asked to do, and the names it writes under.
 */
export const FIELD_MANAGER = 'kgraph-up';

export interface UpCliOptions {
  dataDir: string;
  examples: string;
  objects: string;
  timeout: string;
  controller: boolean;
  /** Keep the controller in this process until Ctrl-C instead of handing it to a background one. */
  foreground?: boolean;
  /** ResourceGraphDefinitions to apply, and instances of them (applied once their kinds are served). */
  rgds: string;
  instances: string;
  /** `kgraph ui` beside the in-process controller (`--no-ui` turns it off). */
  ui: boolean;
  uiAddr: string;
}

/** How the printed hints run the CLI: `npx kgraph` works after `npm ci`, a bare `kgraph` only when installed globally. */
export const CLI = 'npx kgraph';
