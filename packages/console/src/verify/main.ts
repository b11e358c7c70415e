/**
 * The verifier page: a steering URL or a decision URI, fetched and verified in this browser by
 * the verifier's own network path (`fetchAndVerify` of `@wai-steering/verifier`, the one
 * `wai-steer verify --url` runs, on the noble backend), or the files of a decision dropped on it,
 * verified offline (`verifyDecision`, §9.1). It shows the outcome the CLI gives (companion C8)
 * with what it trusted: the room and its authority.
 */
import '../common/style.css';
import {
  FetchError,
  fetchAndVerify,
  type NetworkVerification,
  type Outcome,
  RoomPinError,
  verifyDecision,
} from '@wai-steering/verifier';
import {
  nobleBackend,
  readDecision,
  readPolicy,
  readRoom,
  roomIdOf,
  toHex,
} from '@wai-steering/wire';
import { byId, fill, h } from '../common/dom.js';
import { delivery, groupDigits, joules } from '../common/format.js';
import { specLink } from '../common/spec.js';
import { type HeldFile, inputsOf, kindOf } from './files.js';
import { type LogState, logState } from './log-state.js';

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
/** A line on what a refusal means, for the reasons an operator meets most. */
const REASON_TEXT: Record<string, string> = {
  bad_signature: 'a signature does not verify: the bytes are not what their signer signed',
  bad_key: 'a key is not a valid Ed25519 public key',
  wrong_room: 'a record or the policy is of another room than the one trusted',
  record_missing: 'a record the decision names was not given (or not served)',
  signer_not_authorised: "the signer is not allowed to sign this by the room's key log",
  signer_revoked: "the signer's key is revoked in the room's key log",
  evidence_mismatch: 'the figures stated are not those the named records give',
  decision_mismatch: 'the rule, applied to the stated inputs, gives another output',
  manifest_mismatch: 'the manifest served is not the one the decision writes',
  unmetered_as_zero:
    'a pathway with an unmetered hop was given a figure: an unmetered hop is not a hop of zero joules',
  classes_summed: 'figures of two classes were summed, which is neither class',
  truncated: 'the bytes end before the record does',
  malformed: 'the bytes do not read as the record',
};

/** What the page shows beside the outcome: what was trusted and given. */
interface Trusted {
  readonly roomId: string | null;
  readonly authority: string | null;
  readonly basis: number | null;
  readonly decisionUri: string | null;
  readonly records: number;
  readonly missing: readonly string[];
  readonly source: string;
  readonly hasManifest: boolean;
}

/** Records a decision names (0 when it does not read). */
function namedIn(decision: Uint8Array): number {
  const read = readDecision(decision);
  return read.ok ? read.value.pathways.reduce((n, p) => n + p.evidence.length, 0) : 0;
}

function basisOf(policy: Uint8Array): number | null {
  const p = readPolicy(policy);
  return p.ok ? p.value.basis : null;
}

function figureText(basis: number | null, j: string, d: string): string {
  if (basis === null || d === '0') return '—';
  // As the console and the command line say it (`readableFigure` of config-text): one decimal
  // from 100, two from 10, else three, cut off, never rounded up.
  const scale = basis === 1 ? 1000n : 3600n;
  const milli = (BigInt(j) * scale * 1000n) / BigInt(d);
  const decimals = milli >= 100_000n ? 1 : milli >= 10_000n ? 2 : 3;
  const kept = milli / 10n ** BigInt(3 - decimals);
  const one = 10n ** BigInt(decimals);
  return `${kept / one}.${String(kept % one).padStart(decimals, '0')} ${basis === 1 ? 'J/GB' : 'J/h'}`;
}

function kv(...pairs: [string, Node | string][]): HTMLElement {
  return h('dl', { class: 'kv' }, ...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

function mono(text: string): HTMLElement {
  return h('span', { class: 'mono' }, text);
}

function trustCard(t: Trusted): HTMLElement {
  const pairs: [string, Node | string][] = [['source', t.source]];
  if (t.decisionUri !== null) pairs.push(['decision URI', mono(t.decisionUri)]);
  pairs.push(
    ['room trusted', t.roomId === null ? '— (the room does not read)' : mono(t.roomId)],
    ['its authority', t.authority === null ? '—' : mono(t.authority)],
    [
      'records',
      `${t.records} named${t.missing.length > 0 ? `, ${t.missing.length} of them not served` : ''}`,
    ],
  );
  return h('div', { class: 'card', 'data-testid': 'trusted' }, kv(...pairs));
}

function outcomeDetails(outcome: Outcome): HTMLElement {
  return h(
    'details',
    { class: 'card' },
    h('summary', {}, 'The outcome, as ', specLink('C8'), ' writes it'),
    h('pre', { class: 'mono' }, JSON.stringify(outcome, null, 2)),
  );
}

function showRefused(outcome: Extract<Outcome, { outcome: 'refuse' }>, trusted: Trusted): void {
  const w = outcome.where;
  const place = `${w.at}${w.pathway === undefined ? '' : `, pathway ${w.pathway + 1}`}${w.record === undefined ? '' : `, record ${w.record + 1}`}`;
  fill(
    byId('result'),
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
          REASON_TEXT[outcome.reason] === undefined
            ? null
            : h('p', { class: 'muted' }, REASON_TEXT[outcome.reason]),
        ),
      ),
      trustCard(trusted),
      outcomeDetails(outcome),
    ),
  );
}

function show(outcome: Outcome, trusted: Trusted): void {
  if (outcome.outcome === 'refuse') {
    showRefused(outcome, trusted);
    return;
  }
  const first = outcome.priority[0] ?? '';
  const rows = outcome.pathways.map((p) => {
    const fig = p.status === 'figure';
    return h(
      'tr',
      {},
      h('td', { class: 'mono' }, p.id),
      h('td', {}, h('span', { class: `pill ${p.status}` }, p.status)),
      h('td', {}, fig ? (CLASS_LABEL[p.class] ?? String(p.class)) : '—'),
      h('td', { class: 'num', title: `${groupDigits(p.joules)} µJ` }, fig ? joules(p.joules) : '0'),
      h(
        'td',
        { class: 'num', title: groupDigits(p.delivery) },
        fig && trusted.basis !== null ? delivery(p.delivery, trusted.basis) : '0',
      ),
      h(
        'td',
        { class: 'num' },
        fig ? figureText(trusted.basis, p.joules, p.delivery) : 'no figure',
      ),
      h(
        'td',
        {},
        h(
          'span',
          { class: 'limits' },
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
  });
  fill(
    byId('result'),
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
            'The decision recomputes from its signed inputs (',
            specLink('§9.1'),
            trusted.hasManifest
              ? '), and the manifest served with it is the one it writes.'
              : '). No manifest was given to compare with.',
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
              ...['pathway', 'status', 'class', 'J', 'D', 'figure', 'limits'].map((t, i) =>
                h('th', i >= 3 && i <= 5 ? { class: 'num' } : {}, t),
              ),
            ),
          ),
          h('tbody', {}, ...rows),
        ),
      ),
      trustCard(trusted),
      outcomeDetails(outcome),
    ),
  );
}

/** The decision log's card, added to the outcome shown. */
async function showLog(v: NetworkVerification): Promise<void> {
  const text = h('span', { 'data-testid': 'log-text' }, 'checking the decision log…');
  const card = h(
    'div',
    { class: 'card', 'data-testid': 'log', 'data-log': 'checking' },
    kv(['decision log', text]),
  );
  byId('result')
    .querySelector('.outcome')
    ?.insertBefore(card, byId('result').querySelector('[data-testid="trusted"]'));
  let r: LogState;
  try {
    r = await logState(v);
  } catch (e) {
    r = { state: 'error', text: `The decision log could not be fetched: ${(e as Error).message}` };
  }
  card.setAttribute('data-log', r.state);
  fill(text, r.text);
}

function showError(message: string): void {
  fill(byId('result'), h('div', { class: 'banner error', 'data-outcome': 'error' }, message));
}

async function verifyUrl(url: string, pin: string): Promise<void> {
  const progress = byId('progress');
  const go = byId<HTMLButtonElement>('go');
  go.disabled = true;
  fill(progress, 'fetching and verifying…');
  try {
    const v = await fetchAndVerify(url, {
      backend: nobleBackend,
      ...(pin === '' ? {} : { roomId: pin.toLowerCase() }),
    });
    show(v.outcome, {
      roomId: v.roomId,
      authority: v.authority,
      basis: basisOf(v.policy),
      decisionUri: v.decisionUri,
      records: namedIn(v.decision),
      missing: v.missing,
      hasManifest: v.manifest !== null,
      source:
        v.manifest === null ? 'a decision URI' : 'a steering URL (its manifest, then the decision)',
    });
    if (v.outcome.outcome === 'accept') await showLog(v);
  } catch (e) {
    if (e instanceof RoomPinError) {
      showError(
        `This server serves room ${e.served}, not the pinned room ${e.pinned}: nothing was verified. Check the room id you pinned.`,
      );
    } else if (e instanceof FetchError || e instanceof TypeError) {
      showError(`Could not fetch what the verification needs: ${e.message}`);
    } else {
      showError(`The verification failed: ${(e as Error).message}`);
    }
  } finally {
    fill(progress, '');
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
  byId<HTMLButtonElement>('verify-files').disabled = 'missing' in inputsOf(held);
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
  const room = readRoom(input.room);
  const roomId = room.ok ? toHex(roomIdOf(room.value, nobleBackend)) : null;
  // A pinned room: the room given must be it, as the network path requires of the descriptor.
  const pin = roomInput.value.trim().toLowerCase();
  if (pin !== '' && roomId !== pin) {
    showError(
      `The room file is of room ${roomId ?? '(one that does not read)'}, not the pinned room ${pin}: nothing was verified.`,
    );
    return;
  }
  show(verifyDecision(input, { backend: nobleBackend }), {
    roomId,
    authority: room.ok ? toHex(room.value.authority) : null,
    basis: basisOf(input.policy),
    decisionUri: null,
    records: namedIn(input.decision),
    missing: [],
    hasManifest: input.manifest !== undefined && input.manifest !== null,
    source: `${held.length} files, ${input.records.length} of them records`,
  });
});

// A link from the console: ?uri=…&room=…
const params = new URLSearchParams(location.search);
const given = params.get('uri');
if (params.get('room') !== null) roomInput.value = params.get('room')!;
if (given !== null && given !== '') {
  urlInput.value = given;
  void verifyUrl(given, roomInput.value.trim());
}
