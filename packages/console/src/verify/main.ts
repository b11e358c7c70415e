/**
 * The verifier page: a steering URL or a decision URI, fetched and verified in this browser
 * (§9.1, `@wai-steering/verifier` on the noble backend), or the files of a decision dropped on
 * it, verified offline. It shows the outcome the CLI gives (companion C8) with what it trusted:
 * the room and its authority.
 */
import '../shared/style.css';
import { type Outcome, verifyDecision } from '@wai-steering/verifier';
import {
  bytesEqual,
  fromHex,
  nobleBackend,
  readDecision,
  readPolicy,
  readRoom,
  roomIdOf,
  toHex,
} from '@wai-steering/wire';
import { byId, fill, h } from '../shared/dom.js';
import { delivery, groupDigits, joules } from '../shared/format.js';
import { type HeldFile, inputsOf, kindOf } from './files.js';
import { fetchInputs } from './network.js';

const CLASS_LABEL: Record<number, string> = {
  2: 'ModelBased',
  3: 'Estimator',
  4: 'OnChipCounter',
  5: 'CalibratedInstrument',
};
const KIND_LABEL: Record<string, string> = {
  decision: 'decision (WSD1)',
  record: 'record (WMH1)',
  policy: 'policy (WSP1)',
  room: 'room (WRD1)',
  keyLog: 'key log head (WKL1)',
  manifest: 'steering manifest (JSON)',
  unknown: 'not a record this page reads',
};

/** What the page knows of the inputs, beyond the outcome: what it trusted. */
interface Trusted {
  readonly roomId: string | null;
  readonly authority: string | null;
  readonly origin: string | null;
  readonly basis: number | null;
  readonly decisionUri: string | null;
  readonly records: number;
  readonly missing: readonly string[];
  readonly source: string;
  readonly hasManifest: boolean;
}

function trustedOf(
  room: Uint8Array,
  policy: Uint8Array,
  extra: Omit<Trusted, 'roomId' | 'authority' | 'origin' | 'basis'>,
): Trusted {
  const r = readRoom(room);
  const p = readPolicy(policy);
  const origin = r.ok && r.value.origin.some((b) => b !== 0) ? toHex(r.value.origin) : null;
  return {
    roomId: r.ok ? toHex(roomIdOf(r.value, nobleBackend)) : null,
    authority: r.ok ? toHex(r.value.authority) : null,
    origin,
    basis: p.ok ? p.value.basis : null,
    ...extra,
  };
}

function figureText(basis: number | null, j: string, d: string): string {
  if (basis === null || d === '0') return '—';
  const scale = basis === 1 ? 1000n : 3600n;
  const milli = (BigInt(j) * scale * 1000n) / BigInt(d);
  const v = Number(milli) / 1000;
  return `${v.toFixed(v >= 100 ? 1 : v >= 10 ? 2 : 3)} ${basis === 1 ? 'J/GB' : 'J/h'}`;
}

function kv(...pairs: [string, Node | string][]): HTMLElement {
  return h('dl', { class: 'kv' }, ...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

function mono(text: string, title?: string): HTMLElement {
  return h('span', { class: 'mono', ...(title === undefined ? {} : { title }) }, text);
}

function show(outcome: Outcome, trusted: Trusted): void {
  const result = byId('result');
  const trust = kv(
    ['source', trusted.source],
    ...(trusted.decisionUri === null
      ? []
      : ([['decision URI', mono(trusted.decisionUri)]] as [string, Node][])),
    ['room trusted', trusted.roomId === null ? '— (the room does not read)' : mono(trusted.roomId)],
    ['authority', trusted.authority === null ? '—' : mono(trusted.authority)],
    [
      'origin (key log)',
      trusted.origin === null ? 'none: only the authority signs' : mono(trusted.origin),
    ],
    [
      'records',
      `${trusted.records} held${trusted.missing.length > 0 ? `, ${trusted.missing.length} named but not served` : ''}`,
    ],
  );
  if (outcome.outcome === 'refuse') {
    const w = outcome.where;
    const place = `${w.at}${w.pathway === undefined ? '' : `, pathway ${w.pathway}`}${w.record === undefined ? '' : `, record ${w.record}`}`;
    fill(
      result,
      h(
        'div',
        { class: 'outcome', 'data-outcome': 'refuse' },
        h(
          'div',
          { class: 'verdict refuse' },
          h('span', { class: 'mark', 'aria-hidden': 'true' }, '✗'),
          h(
            'div',
            {},
            h('h3', {}, 'Refused: ', h('span', { 'data-testid': 'reason' }, outcome.reason)),
            h('p', {}, 'at ', h('b', { 'data-testid': 'where' }, place)),
          ),
        ),
        h('div', { class: 'card' }, trust),
        h(
          'details',
          { class: 'card' },
          h('summary', {}, 'The outcome (companion C8)'),
          h('pre', { class: 'mono' }, JSON.stringify(outcome, null, 2)),
        ),
      ),
    );
    return;
  }
  const first = outcome.priority[0] ?? '';
  const rows = outcome.pathways.map((p) =>
    h(
      'tr',
      {},
      h('td', { class: 'mono' }, p.id),
      h('td', {}, h('span', { class: `pill ${p.status}` }, p.status)),
      h('td', {}, p.status === 'figure' ? (CLASS_LABEL[p.class] ?? String(p.class)) : '—'),
      h(
        'td',
        { class: 'num', title: `${groupDigits(p.joules)} µJ` },
        p.status === 'figure' ? joules(p.joules) : '0',
      ),
      h(
        'td',
        { class: 'num', title: groupDigits(p.delivery) },
        p.status === 'figure' && trusted.basis !== null ? delivery(p.delivery, trusted.basis) : '0',
      ),
      h(
        'td',
        { class: 'num' },
        p.status === 'figure' ? figureText(trusted.basis, p.joules, p.delivery) : 'no figure',
      ),
      h(
        'td',
        {},
        ...(['latency', 'quality', 'capacity'] as const).map((k) =>
          h(
            'span',
            { class: `pill ${p.limits[k] ? 'ok' : 'bad'}` },
            `${p.limits[k] ? '✓' : '✗'} ${k}`,
          ),
        ),
      ),
    ),
  );
  fill(
    result,
    h(
      'div',
      { class: 'outcome', 'data-outcome': 'accept' },
      h(
        'div',
        { class: 'verdict accept' },
        h('span', { class: 'mark', 'aria-hidden': 'true' }, '✓'),
        h(
          'div',
          {},
          h(
            'h3',
            {},
            'Accepted: ',
            h('span', { 'data-testid': 'first' }, first),
            ' first, for ',
            h('span', { 'data-testid': 'reason' }, outcome.reason),
          ),
          h(
            'p',
            {},
            'The decision recomputes from its signed inputs (§9.1), and its manifest matches.',
          ),
        ),
      ),
      h(
        'div',
        { class: 'card' },
        kv(
          [
            'priority',
            h(
              'span',
              { class: 'priority' },
              ...outcome.priority.flatMap((id, i) => [
                i > 0 ? '→' : '',
                h('span', { class: `step${i === 0 ? ' first' : ''}` }, id),
              ]),
            ),
          ],
          ['reason', outcome.reason],
          ['TTL', `${outcome.ttl} s`],
          ['digest', mono(outcome.digest)],
        ),
      ),
      h(
        'div',
        { class: 'card table-wrap' },
        h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ...['pathway', 'status', 'class', 'J', 'D', 'figure', 'limits (§6.1)'].map((t, i) =>
                h('th', i >= 3 && i <= 5 ? { class: 'num' } : {}, t),
              ),
            ),
          ),
          h('tbody', {}, ...rows),
        ),
      ),
      h('div', { class: 'card' }, trust),
      h(
        'details',
        { class: 'card' },
        h('summary', {}, 'The outcome (companion C8)'),
        h('pre', { class: 'mono' }, JSON.stringify(outcome, null, 2)),
      ),
    ),
  );
}

function showError(message: string): void {
  fill(byId('result'), h('div', { class: 'banner error', 'data-outcome': 'error' }, message));
}

/** §9.1 with a room pinned: a decision of another room is refused at the room, unverified. */
function pinnedRefusal(pin: string, decision: Uint8Array): Outcome | undefined {
  if (pin === '') return undefined;
  const read = readDecision(decision);
  const room = read.ok
    ? read.value.room
    : decision.length >= 37
      ? decision.subarray(5, 37)
      : undefined;
  const pinned = fromHex(pin.toLowerCase());
  if (room !== undefined && bytesEqual(room, pinned)) return undefined;
  return { outcome: 'refuse', reason: 'wrong_room', where: { at: 'room' } };
}

async function verifyUrl(url: string, pin: string): Promise<void> {
  const progress = byId('progress');
  const go = byId<HTMLButtonElement>('go');
  go.disabled = true;
  try {
    const f = await fetchInputs(url, (t) => fill(progress, t));
    fill(progress, 'verifying…');
    const outcome =
      pinnedRefusal(pin, f.decision) ??
      verifyDecision(
        {
          room: f.room,
          keyLog: f.keyLog,
          policy: f.policy,
          decision: f.decision,
          records: f.records,
          ...(f.manifest === null ? {} : { manifest: f.manifest }),
        },
        { backend: nobleBackend },
      );
    show(
      outcome,
      trustedOf(f.room, f.policy, {
        decisionUri: f.decisionUri,
        records: f.records.length,
        missing: f.missing,
        hasManifest: f.manifest !== null,
        source:
          f.manifest === null
            ? 'a decision URI'
            : 'a steering URL (its manifest, then the decision)',
      }),
    );
    fill(progress, '');
  } catch (e) {
    fill(progress, '');
    showError(`Could not fetch what the verification needs: ${(e as Error).message}`);
  } finally {
    go.disabled = false;
  }
}

// The form.
const urlInput = byId<HTMLInputElement>('url');
const roomInput = byId<HTMLInputElement>('room');
byId<HTMLFormElement>('form').addEventListener('submit', (e) => {
  e.preventDefault();
  const u = new URL(location.href);
  u.searchParams.set('uri', urlInput.value.trim());
  if (roomInput.value.trim() === '') u.searchParams.delete('room');
  else u.searchParams.set('room', roomInput.value.trim());
  history.replaceState(null, '', u);
  void verifyUrl(urlInput.value.trim(), roomInput.value.trim());
});

// Files, for offline use.
let held: HeldFile[] = [];
const drop = byId('drop');
function showFiles(): void {
  fill(
    byId('file-list'),
    ...held.map((f) =>
      h(
        'li',
        {},
        h('span', { class: 'mono' }, f.name),
        ` — ${KIND_LABEL[f.kind]}, ${groupDigits(String(f.bytes.length))} bytes`,
      ),
    ),
  );
  const ready = !('missing' in inputsOf(held));
  byId<HTMLButtonElement>('verify-files').disabled = !ready;
  byId<HTMLButtonElement>('clear-files').disabled = held.length === 0;
}
async function addFiles(list: FileList | null): Promise<void> {
  if (list === null) return;
  for (const file of Array.from(list)) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    held.push({ name: file.name, kind: kindOf(bytes), bytes });
  }
  showFiles();
}
byId<HTMLInputElement>('files').addEventListener('change', (e) => {
  void addFiles((e.target as HTMLInputElement).files);
});
drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  void addFiles(e.dataTransfer?.files ?? null);
});
byId('clear-files').addEventListener('click', () => {
  held = [];
  showFiles();
});
byId('verify-files').addEventListener('click', () => {
  const input = inputsOf(held);
  if ('missing' in input) {
    showError(`Missing: ${input.missing.join(', ')}`);
    return;
  }
  const pin = roomInput.value.trim();
  const outcome =
    pinnedRefusal(pin, input.decision) ?? verifyDecision(input, { backend: nobleBackend });
  show(
    outcome,
    trustedOf(input.room, input.policy, {
      decisionUri: null,
      records: input.records.length,
      missing: [],
      hasManifest: input.manifest !== undefined && input.manifest !== null,
      source: `${held.length} files`,
    }),
  );
});

// A link from the console: ?uri=…&room=…
const params = new URLSearchParams(location.search);
const given = params.get('uri');
if (params.get('room') !== null) roomInput.value = params.get('room')!;
if (given !== null && given !== '') {
  urlInput.value = given;
  void verifyUrl(given, roomInput.value.trim());
}
