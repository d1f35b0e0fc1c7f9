// kgraph ui: the page. Plain JavaScript, no framework, no build step. The server pushes the list of
// entries and the selected entry's view over server-sent events (src/ui/server.ts); the shapes are
// described in src/ui/model.ts. The DAG is Graphviz's SVG from the server; this file only colours
// its nodes by state, adds item counts and opens a node's details on click.

const STATES = ['ready', 'waiting', 'pending', 'excluded', 'failed', 'conflict', 'unknown'];
const STATE_TEXT = {
  ready: 'ready',
  waiting: 'waiting for readiness',
  pending: 'data pending',
  excluded: 'excluded',
  failed: 'failed',
  conflict: 'conflict',
  unknown: 'not evaluated',
};
const GROUPS = [
  ['Graph', 'Graphs'],
  ['RGD', 'ResourceGraphDefinitions'],
  ['Instance', 'Instances'],
];

const $ = (id) => document.getElementById(id);

/** Builds an element: h('td', {class: 'x'}, 'text', child). Text is always set as text, never as HTML. */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replaces an element's children, skipping null/false and flattening arrays (as h() does). */
function fill(el, ...children) {
  el.replaceChildren(...children.flat(2).filter((c) => c !== undefined && c !== null && c !== false));
}

const page = {
  entries: [],
  view: null,
  key: decodeURIComponent(location.hash.slice(1)),
  node: null,
  svg: '',
  events: null,
};

function connect() {
  page.events?.close();
  const url = `/api/events${page.key ? `?key=${encodeURIComponent(page.key)}` : ''}`;
  const es = new EventSource(url);
  page.events = es;
  const conn = $('conn');
  es.onopen = () => {
    conn.dataset.state = 'live';
    conn.textContent = 'live';
  };
  es.onerror = () => {
    conn.dataset.state = 'lost';
    conn.textContent = 'reconnecting…';
  };
  es.addEventListener('entries', (e) => {
    const data = JSON.parse(e.data);
    page.entries = data.entries;
    $('source').textContent = data.description;
    renderList();
  });
  es.addEventListener('view', (e) => {
    page.view = JSON.parse(e.data);
    renderView();
  });
}

// ------------------------------------------------------------------ the list

function renderList() {
  const nsSelect = $('ns');
  const chosen = nsSelect.value;
  const namespaces = [...new Set(page.entries.map((e) => e.namespace).filter(Boolean))].sort();
  nsSelect.replaceChildren(
    h('option', { value: '' }, 'all namespaces'),
    ...namespaces.map((ns) => h('option', { value: ns, selected: ns === chosen }, ns)),
  );
  const q = $('q').value.trim().toLowerCase();
  const shown = page.entries.filter(
    (e) =>
      (chosen === '' || e.namespace === chosen) &&
      (q === '' || `${e.namespace ?? ''}/${e.name} ${e.kind}`.toLowerCase().includes(q)),
  );
  const list = $('list');
  list.replaceChildren();
  for (const [type, title] of GROUPS) {
    const items = shown.filter((e) => e.type === type);
    if (items.length === 0) continue;
    list.append(h('h3', {}, title));
    for (const e of items) {
      const label =
        e.type === 'Instance'
          ? `${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}`
          : `${e.namespace ? `${e.namespace}/` : ''}${e.name}`;
      list.append(
        h(
          'a',
          {
            href: `#${encodeURIComponent(e.key)}`,
            class: e.key === page.key ? 'selected' : undefined,
            'data-key': e.key,
            'data-ready': e.ready,
            title: e.message,
          },
          h('span', { class: 'dot', 'data-ready': e.ready }),
          label,
          h(
            'span',
            { class: 'sub' },
            e.ready === 'True' ? 'Ready' : `${e.reason}${e.message ? `: ${e.message}` : ''}`,
          ),
        ),
      );
    }
  }
  if (shown.length === 0) list.append(h('p', { class: 'sub', style: 'padding: 0 0.8em' }, 'nothing to show'));
}

// ------------------------------------------------------------------ the selected view

function chips(conditions) {
  return h(
    'div',
    { class: 'chips' },
    conditions.map((c) =>
      h(
        'span',
        { class: 'chip', 'data-status': c.status, 'data-type': c.type, title: c.message },
        `${c.type}=${c.status}`,
        c.reason ? h('small', {}, ` ${c.reason}`) : null,
      ),
    ),
  );
}

function renderView() {
  const v = page.view;
  renderFleet(v);
  $('empty').hidden = v !== null && v !== undefined;
  $('view').hidden = !v;
  if (!v) {
    $('details').hidden = true;
    if (page.key) $('empty').textContent = `${page.key} is not there (any more).`;
    return;
  }
  if (v.error) {
    $('title').textContent = page.key;
    $('diagnostics').replaceChildren(h('pre', { class: 'diagnostic' }, v.error));
    return;
  }
  $('title').textContent = v.title;
  $('conditions').replaceChildren(chips(v.conditions));
  $('note').hidden = !v.note;
  $('note').textContent = v.note ?? '';
  $('diagnostics').replaceChildren(
    ...v.diagnostics.map((d) =>
      h('pre', { class: 'diagnostic', 'data-code': d.code, 'data-severity': d.severity }, d.text),
    ),
  );
  $('legend').replaceChildren(
    ...STATES.map((s) => h('span', { class: 'state', 'data-state': s }, STATE_TEXT[s])),
  );
  if (v.svg !== page.svg) {
    // The SVG is Graphviz output produced by our own server from the compiled graph.
    $('dag').innerHTML = v.svg;
    page.svg = v.svg;
    fitDag();
  }
  decorateDag(v);
  void loadHistory();
  const status = $('status');
  status.hidden = !v.status;
  fill(status, ...(v.status ? [h('h4', {}, 'instance status (projected)'), h('pre', {}, v.status)] : []));
  renderDetails();
}

/** Fits the drawing to the width, but never below 55 % of its natural size (then it scrolls). */
function fitDag() {
  const svg = document.querySelector('#dag svg');
  if (!svg) return;
  const natural = svg.viewBox.baseVal.width * (4 / 3);
  const room = $('dag').clientWidth;
  svg.removeAttribute('height');
  svg.style.width = `${Math.round(Math.min(natural, Math.max(room, natural * 0.55)))}px`;
}

function decorateDag(v) {
  const byPath = new Map(shownNodes(v).map((n) => [n.path, n]));
  const svgNs = 'http://www.w3.org/2000/svg';
  for (const g of document.querySelectorAll('#dag g.node, #dag g.cluster')) {
    if (!g.dataset.node) {
      const title = g.querySelector('title')?.textContent ?? '';
      g.dataset.node = g.classList.contains('cluster') ? title.replace(/^cluster_/, '') : title;
      if (g.classList.contains('node')) g.addEventListener('click', () => selectNode(g.dataset.node));
    }
    const n = byPath.get(g.dataset.node);
    if (!n) continue;
    g.dataset.state = n.state;
    g.classList.toggle('selected', page.node === n.path);
    const tip = g.querySelector('title');
    if (tip) tip.textContent = `${n.path}: ${STATE_TEXT[n.state]}${n.reason ? ` — ${n.reason}` : ''}`;
    g.querySelector('text.count')?.remove();
    if (n.collection && g.classList.contains('node')) {
      const box = g.getBBox();
      const t = document.createElementNS(svgNs, 'text');
      t.setAttribute('class', 'count');
      t.setAttribute('x', String(box.x + box.width));
      t.setAttribute('y', String(box.y - 3));
      t.setAttribute('text-anchor', 'end');
      t.textContent = n.readyCount === n.count ? `×${n.count}` : `×${n.count} (${n.readyCount} ready)`;
      g.append(t);
    }
  }
}

function selectNode(path) {
  page.node = path;
  decorateDag(page.view);
  renderDetails();
}

function objectSection(o) {
  const changed = o.diff.filter((r) => r.change !== 'same');
  const same = o.diff.length - changed.length;
  return h(
    'section',
    { class: 'object', 'data-identity': o.identity ?? '', 'data-live': o.liveState },
    h(
      'h4',
      {},
      o.identity ?? 'value',
      ' ',
      o.liveState === 'none'
        ? null
        : h(
            'span',
            { class: 'state', 'data-state': o.liveState === 'found' ? 'ready' : 'waiting' },
            `live: ${o.liveState}`,
          ),
      o.ready === undefined
        ? null
        : h(
            'span',
            { class: 'state', 'data-state': o.ready ? 'ready' : 'waiting' },
            o.ready ? 'ready' : 'not ready',
          ),
    ),
    o.reason ? h('p', { class: 'meta' }, o.reason) : null,
    o.conditions.length > 0
      ? h(
          'table',
          { class: 'conditions' },
          h(
            'tr',
            {},
            h('th', {}, 'condition'),
            h('th', {}, 'status'),
            h('th', {}, 'reason'),
            h('th', {}, 'message'),
          ),
          o.conditions.map((c) =>
            h(
              'tr',
              {},
              h('td', {}, c.type),
              h('td', {}, c.status),
              h('td', {}, c.reason),
              h('td', {}, c.message),
            ),
          ),
        )
      : null,
    o.diff.length > 0
      ? h(
          'div',
          { class: 'diff' },
          h(
            'p',
            { class: 'meta' },
            `diff (rendered → live): ${changed.length} differing, ${same} equal field(s)`,
          ),
          changed.length > 0
            ? h(
                'table',
                {},
                h('tr', {}, h('th', {}, 'field'), h('th', {}, 'rendered'), h('th', {}, 'live')),
                changed.map((r) =>
                  h(
                    'tr',
                    { 'data-change': r.change },
                    h('td', {}, r.path),
                    h('td', {}, r.rendered),
                    h('td', {}, r.live ?? '(absent)'),
                  ),
                ),
              )
            : null,
        )
      : null,
    o.rendered
      ? h(
          'details',
          { open: true },
          h('summary', {}, 'rendered'),
          h('pre', { class: 'rendered' }, o.rendered),
        )
      : null,
    o.live ? h('details', {}, h('summary', {}, 'live object'), h('pre', { class: 'live' }, o.live)) : null,
  );
}

function renderDetails() {
  const panel = $('details');
  const n = page.view?.nodes?.find((x) => x.path === page.node);
  if (!n) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const where = n.location ? `${n.location.file}:${n.location.line}:${n.location.column}` : '';
  fill(
    panel,
    h('button', { class: 'close', title: 'close', onclick: () => selectNode(null) }, '×'),
    h(
      'h3',
      {},
      n.path,
      ' ',
      h('span', { class: 'state', 'data-state': n.state, id: 'node-state' }, STATE_TEXT[n.state]),
    ),
    h(
      'p',
      { class: 'meta' },
      `${n.kind}${n.collection ? ` · collection of ${n.count} (${n.readyCount} ready)` : ''}${where ? ` · declared at ${where}` : ''}`,
    ),
    n.reason ? h('p', { class: 'reason' }, n.reason) : null,
    n.issue
      ? h(
          'div',
          { class: 'issue' },
          h('h4', {}, n.state === 'failed' ? 'failing expression' : 'pending expression'),
          h(
            'pre',
            { class: 'issue', 'data-severity': n.state === 'failed' ? 'error' : 'info' },
            n.issue.text ?? n.issue.message,
          ),
          n.issue.reference ? h('p', { class: 'meta' }, `missing: ${n.issue.reference}`) : null,
        )
      : null,
    n.objects.length === 0 ? h('p', { class: 'meta' }, 'nothing rendered') : null,
    n.objects.map(objectSection),
  );
}

// ------------------------------------------------------------------ fleet panel (RGDs)
// The RGD's instances by the revision they are reconciled at, and its GraphRollout's progress
// (shapes: UiFleet in src/ui/fleetModel.ts). Redrawn from each pushed view, like the rest of the page.

const fleetOpen = new Set(); // revisions whose instance list the user opened (kept across updates)

function fleetBar(parts, total) {
  return h(
    'div',
    { class: 'fleet-bar' },
    parts.map(([cls, n]) =>
      n > 0 && total > 0
        ? h('span', { class: cls, style: `width: ${((100 * n) / total).toFixed(2)}%` })
        : null,
    ),
  );
}

function fleetRollout(r) {
  const c = r.counts;
  const count = (name, n) => h('span', { class: 'fleet-count', 'data-count': name }, String(n));
  return h(
    'div',
    { class: 'fleet-rollout', 'data-phase': r.phase },
    h(
      'p',
      {},
      h('strong', {}, `GraphRollout ${r.name}`),
      ' ',
      h('span', { class: 'fleet-phase', 'data-phase': r.phase }, r.phase),
      r.paused ? h('span', { class: 'fleet-mark' }, 'paused by user') : null,
    ),
    h(
      'p',
      { class: 'meta' },
      h(
        'span',
        { class: 'fleet-step', 'data-step': r.step },
        // Numbered as `kgraph rollout status` does: the steps done, then the one the rollout is at.
        r.steps === 0
          ? 'no steps'
          : `step ${r.step}/${r.steps} (${r.stepText ? `now: ${r.stepText}` : 'all done'})`,
      ),
      ' · revision ',
      h('span', { class: 'fleet-revs' }, `${r.stableRevision ?? '–'} → ${r.targetRevision ?? '–'}`),
      ' (stable → target)',
    ),
    h(
      'p',
      { class: 'meta' },
      'updated ',
      count('updated', c.updated),
      ', ready ',
      count('ready', c.ready),
      ', failed ',
      count('failed', c.failed),
      ` of ${c.governed} governed (${c.pinned} pinned, ${c.total} in all)`,
    ),
    fleetBar(
      [
        ['ready', c.ready],
        ['failed', c.failed],
        ['updated', Math.max(0, c.updated - c.ready - c.failed)],
      ],
      c.governed,
    ),
    r.message ? h('p', { class: 'meta fleet-message' }, r.message) : null,
    r.failed.length > 0 ? h('p', { class: 'meta fleet-failed' }, `failed: ${r.failed.join(', ')}`) : null,
  );
}

function fleetRevision(rev, total) {
  const id = rev.revision === null ? 'none' : String(rev.revision);
  const more = rev.count - rev.instances.length;
  const list = h(
    'details',
    {
      open: fleetOpen.has(id),
      ontoggle: (e) => (e.target.open ? fleetOpen.add(id) : fleetOpen.delete(id)),
    },
    h('summary', {}, rev.count === 0 ? 'no instance' : 'instances'),
    h(
      'ul',
      {},
      rev.instances.map((i) =>
        h(
          'li',
          { 'data-pinned': i.pinned ? 'true' : undefined },
          h('span', { class: 'dot', 'data-ready': i.ready }),
          h('a', { href: `#${encodeURIComponent(i.key)}` }, i.name),
          i.pinned ? h('span', { class: 'fleet-mark' }, 'pinned') : null,
          i.wants !== undefined ? h('span', { class: 'fleet-mark' }, `→ r${i.wants}`) : null,
        ),
      ),
      more > 0 ? h('li', { class: 'meta' }, `and ${more} more`) : null,
    ),
  );
  return h(
    'tr',
    { 'data-revision': id },
    h(
      'td',
      { class: 'fleet-rev' },
      rev.revision === null ? 'not reconciled yet' : `r${rev.revision}`,
      rev.marks.map((m) => h('span', { class: 'fleet-mark', 'data-mark': m }, m)),
    ),
    h('td', { class: 'count' }, String(rev.count)),
    h('td', { class: 'ready' }, String(rev.ready)),
    h('td', { class: 'pinned' }, String(rev.pinned)),
    h('td', { class: 'bar' }, fleetBar([['share', rev.count]], total)),
    h('td', {}, list),
  );
}

function renderFleet(v) {
  const panel = $('fleet');
  const f = v && !v.error ? v.fleet : undefined;
  panel.hidden = !f;
  if (!f) {
    panel.replaceChildren();
    return;
  }
  fill(
    panel,
    h(
      'h4',
      {},
      `fleet: ${f.total} instance(s)${f.latest !== undefined ? `, latest revision ${f.latest}` : ''}`,
    ),
    f.rollout
      ? fleetRollout(f.rollout)
      : h(
          'p',
          { class: 'meta' },
          'no GraphRollout: every instance follows the latest revision unless pinned',
        ),
    f.revisions.length > 0
      ? h(
          'table',
          { class: 'fleet-revisions' },
          h(
            'tr',
            {},
            h('th', {}, 'revision'),
            h('th', {}, 'instances'),
            h('th', {}, 'ready'),
            h('th', {}, 'pinned'),
            h('th', {}, ''),
            h('th', {}, ''),
          ),
          f.revisions.map((r) => fleetRevision(r, f.total)),
        )
      : null,
  );
}

// ------------------------------------------------------------------ the timeline

// An instance's or a Graph's last reconcile passes, as the controller remembers them (/api/history, asked at most
// once a second while the view changes, and every 2 s while an entry is shown: passes are not pushed, and the pass
// that wrote a status is recorded just after the status reaches the page). A click on a pass colours the DAG as that pass left it;
// "live" goes back to what the cluster holds now.
const timeline = { key: null, enabled: false, passes: [], selected: null, askedAt: 0 };
const PASS_STATE = {
  ready: 'ready',
  waiting: 'waiting',
  pending: 'pending',
  excluded: 'excluded',
  error: 'failed',
};

async function loadHistory() {
  const key = page.key;
  if (!key?.startsWith('instance:') && !key?.startsWith('graph:')) {
    timeline.key = null;
    renderTimeline();
    return;
  }
  if (timeline.key === key && Date.now() - timeline.askedAt < 1000) return;
  timeline.askedAt = Date.now();
  // A failed answer is asked again by the next view or the 2 s poll.
  const body = await fetch(`/api/history?key=${encodeURIComponent(key)}`)
    .then((r) => r.json())
    .catch(() => undefined);
  if (!body) return;
  if (page.key !== key) return;
  if (timeline.key !== key) timeline.selected = null;
  timeline.key = key;
  timeline.enabled = body.enabled === true;
  timeline.passes = body.passes ?? [];
  renderTimeline();
}

/** The view's nodes, or (a pass selected) the same nodes with the states that pass recorded. */
function shownNodes(v) {
  const pass = selectedPass();
  if (!pass || timeline.key !== page.key) return v.nodes;
  const then = new Map(pass.nodes.map((n) => [n.id, n]));
  return v.nodes.map((n) => {
    const p = then.get(n.path);
    return { ...n, state: p ? (PASS_STATE[p.state] ?? 'unknown') : 'unknown', reason: p?.reason };
  });
}

function passSummary(p) {
  const parts = [`${p.result} (${p.reason}) in ${p.durationMs} ms`];
  if (p.created.length) parts.push(`created ${p.created.length}`);
  if (p.updated.length) parts.push(`updated ${p.updated.length}`);
  if (p.pruned.length) parts.push(`pruned ${p.pruned.length}`);
  if (p.waiting) parts.push(`waiting on ${p.waiting.node}: ${p.waiting.reason}`);
  if (p.refused) parts.push(`${p.refused.verb} refused: ${p.refused.message}`);
  else if (p.error) parts.push(`error: ${p.error}`);
  return parts.join('; ');
}

/** The selected pass, by its start time (the list shifts as new passes come in). */
function selectedPass() {
  return timeline.selected === null ? undefined : timeline.passes.find((p) => p.at === timeline.selected);
}

function selectPass(at) {
  timeline.selected = at;
  renderTimeline();
  if (page.view) decorateDag(page.view);
}

function renderTimeline() {
  const el = $('timeline');
  el.hidden = timeline.key === null || !timeline.enabled;
  if (el.hidden) return;
  const time = (iso) => iso.slice(11, 23);
  fill(
    $('passes'),
    timeline.passes.map((p) =>
      h(
        'button',
        {
          class: 'pass',
          'data-result': p.result,
          'aria-pressed': String(timeline.selected === p.at),
          title: passSummary(p),
          onclick: () => selectPass(p.at),
        },
        `${time(p.at)} ${p.result}`,
      ),
    ),
    h(
      'button',
      {
        class: 'pass live',
        'aria-pressed': String(timeline.selected === null),
        onclick: () => selectPass(null),
      },
      'live',
    ),
  );
  const pass = selectedPass();
  $('pass-note').textContent = pass ? `pass at ${pass.at}: ${passSummary(pass)}` : '';
}

// ------------------------------------------------------------------ wiring

window.addEventListener('hashchange', () => {
  page.key = decodeURIComponent(location.hash.slice(1));
  page.node = null;
  page.view = null;
  page.svg = '';
  timeline.selected = null;
  $('dag').replaceChildren();
  renderList();
  connect();
});
$('ns').addEventListener('change', renderList);
window.addEventListener('resize', fitDag);
$('q').addEventListener('input', renderList);
setInterval(() => {
  if (page.key && !document.hidden) void loadHistory();
}, 2000);
connect();
