/** The Graph API: its group/version, kind, CRD and finalizer (design/graph.md §2, §23.5). Pure. */

import { KRO_API_VERSION } from '../../graph/kroApi.ts';

export const GRAPH_API_VERSION = KRO_API_VERSION;
export const GRAPH_KIND = 'Graph';
export const GRAPH_PLURAL = 'graphs';
export const GRAPH_CRD_NAME = 'graphs.kro.run';
export const GRAPH_FINALIZER = 'kro.run/graph-finalizer';
