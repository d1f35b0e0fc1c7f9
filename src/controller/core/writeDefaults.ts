/**
 * What the controllers' own writes carry: `fieldValidation=Ignore`. The controllers write
 * objects they rendered from templates the compiler already checked against the kinds' schemas, and
 * server-side apply refuses fields a schema lacks whatever the directive says; the server's default
 * (`Warn`) makes it decode every apply patch a second time, strictly, to look for duplicate fields, which
 * our JSON bodies cannot hold. User-facing commands (`kgraph deploy`, `apply`-like paths) keep the
 * server's default: its warnings are meant for people.
 */
import type { RestClient, WriteDefaults } from '../../kube/index.ts';

export const CONTROLLER_WRITE_DEFAULTS: Readonly<WriteDefaults> = Object.freeze({
  fieldValidation: 'Ignore',
});

/** A copy of `client` (sharing its connections, counters and discovery) whose writes carry the defaults. */
export function controllerClient(client: RestClient): RestClient {
  return client.withWriteDefaults(CONTROLLER_WRITE_DEFAULTS);
}
