/**
 * Every record as JSON (`--json` of the inspect commands: u64 and u128 as decimal strings, bytes
 * as lowercase hex, field names the specification's) and as a readable account (times in the one
 * form of human output: instants RFC 3339 to the millisecond, with their µs where exactness
 * matters; durations readable).
 */
import {
  formatBytes,
  formatDuration,
  formatDurationExact,
  formatInstantExact,
  readableFigure,
} from '@wai-steering/config-text';
import {
  CLASS_LABEL,
  type Decision,
  digestOf,
  type HopRecord,
  type KeyLog,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  namesOrigin,
  type Policy,
  REASON_NAME,
  type Room,
  STATUS_NAME,
  toHex,
} from '@wai-steering/wire';
import { spanText } from './time.js';
import { formatBitrate, formatPpm } from './units.js';
import { joulesText } from './why.js';

/** A duration in whole ms or s, for people. */
const ms = (n: number | bigint): string => formatDurationExact(BigInt(n) * 1000n);
const seconds = (n: number | bigint): string => formatDurationExact(BigInt(n) * 1_000_000n);

export function policyJson(p: Policy): Record<string, unknown> {
  return {
    kind: 'WSP1',
    digest: toHex(digestOf(p)),
    room: toHex(p.room),
    signer: toHex(p.signer),
    period_us: p.period_us.toString(),
    window_us: p.window_us.toString(),
    lag_us: p.lag_us.toString(),
    basis: p.basis,
    floor: p.floor,
    latency_ceiling_ms: p.latency_ceiling_ms,
    min_buffer_ms: p.min_buffer_ms,
    hysteresis_ppm: p.hysteresis_ppm,
    ttl_s: p.ttl_s,
    min_ttl_s: p.min_ttl_s,
    flags: p.flags,
    initial: p.initial,
    tiers: p.tiers.map(String),
    server_uri: p.server_uri,
    reload_uri: p.reload_uri,
    decision_uri: p.decision_uri,
    pathways: p.pathways.map((pw) => ({
      id: pw.id,
      base: pw.base,
      host: pw.host,
      params: pw.params.map((x) => ({ name: x.name, value: x.value })),
      top_tier: pw.top_tier,
      latency_ms: pw.latency_ms,
      capacity: pw.capacity,
      min_share_ppm: pw.min_share_ppm,
      hops: pw.hops.map((h) => ({ key: toHex(h.key), place: h.place })),
    })),
    sig: toHex(p.sig),
  };
}

const BASIS: Readonly<Record<number, string>> = {
  1: 'joules per delivered byte',
  2: 'joules per delivered second at or above the floor tier',
};

const PLACE: Readonly<Record<number, string>> = { 1: 'edge', 2: 'interior' };

export function policyText(p: Policy): string {
  const tier = (i: number): string => {
    const rate = p.tiers[i];
    return rate === undefined ? `tier ${i} (not a tier)` : `tier ${i} (${formatBitrate(rate)})`;
  };
  const lines = [
    `policy           ${toHex(digestOf(p))}`,
    `room             ${toHex(p.room)}`,
    `signer           ${toHex(p.signer)}`,
    `period           ${formatDurationExact(p.period_us)}  window ${formatDurationExact(p.window_us)}  lag ${formatDurationExact(p.lag_us)}`,
    `basis            ${BASIS[p.basis] ?? `unknown (${p.basis})`}`,
    `tiers            ${p.tiers.map((t, i) => `${i}: ${formatBitrate(t)}`).join('  ')} (bits/s)`,
    `floor            ${tier(p.floor)}`,
    `latency ceiling  ${ms(p.latency_ceiling_ms)}`,
    `min buffer       ${ms(p.min_buffer_ms)}`,
    `hysteresis       ${formatPpm(p.hysteresis_ppm)} (${p.hysteresis_ppm} ppm)`,
    `ttl              ${seconds(p.ttl_s)}  (min ttl ${seconds(p.min_ttl_s)})`,
    `queryBeforeStart ${(p.flags & 1) === 1 ? 'true' : 'false'}`,
    `initial          ${p.pathways[p.initial]?.id ?? `#${p.initial + 1}`}`,
    `server uri       ${p.server_uri}`,
    `reload uri       ${p.reload_uri}`,
    `decision uri     ${p.decision_uri}`,
    `pathways         ${p.pathways.length}`,
  ];
  p.pathways.forEach((pw, i) => {
    const capacity = pw.capacity === NO_CAPACITY_LIMIT ? 'unlimited' : String(pw.capacity);
    lines.push(
      `  ${i + 1} ${pw.id}: top ${tier(pw.top_tier)}, latency ${ms(pw.latency_ms)}, capacity ${capacity}, min share ${formatPpm(pw.min_share_ppm)}`,
    );
    if (pw.base !== NOT_A_CLONE) {
      const base = p.pathways[pw.base]?.id ?? `#${pw.base + 1}`;
      const params = pw.params.map((x) => `${x.name}=${x.value}`).join('&');
      lines.push(
        `    clone of ${base}${pw.host === '' ? '' : `, host ${pw.host}`}${params === '' ? '' : `, params ${params}`}`,
      );
    }
    pw.hops.forEach((hop, k) => {
      const place = (PLACE[hop.place] ?? `place ${hop.place}`).padEnd(8);
      lines.push(`    hop ${k + 1} ${place} ${toHex(hop.key)}`);
    });
  });
  return `${lines.join('\n')}\n`;
}

export function roomJson(r: Room): Record<string, unknown> {
  return {
    kind: 'WRD1',
    room: toHex(digestOf(r)),
    authority: toHex(r.authority),
    origin: namesOrigin(r) ? toHex(r.origin) : null,
    name: r.name,
    sig: toHex(r.sig),
  };
}

export function roomText(r: Room): string {
  return [
    `room       ${toHex(digestOf(r))}`,
    `name       ${r.name}`,
    `authority  ${toHex(r.authority)}`,
    `origin     ${namesOrigin(r) ? toHex(r.origin) : 'none (only the authority signs)'}`,
    '',
  ].join('\n');
}

const KEY_STATUS_NAME: Readonly<Record<number, string>> = { 1: 'active', 2: 'revoked' };

export function keyLogJson(k: KeyLog): Record<string, unknown> {
  return {
    kind: 'WKL1',
    digest: toHex(digestOf(k)),
    origin: toHex(k.origin),
    seq: k.seq.toString(),
    prev: toHex(k.prev),
    entries: k.entries.map((e) => ({
      key: toHex(e.key),
      status: KEY_STATUS_NAME[e.status] ?? e.status,
      may_sign: [...e.may_sign],
    })),
    sig: toHex(k.sig),
  };
}

export function keyLogText(k: KeyLog): string {
  const lines = [
    `key log    ${toHex(digestOf(k))}`,
    `origin     ${toHex(k.origin)}`,
    `seq        ${k.seq}`,
    `prev       ${k.seq === 0n ? 'none' : toHex(k.prev)}`,
    `entries    ${k.entries.length}`,
  ];
  for (const e of k.entries) {
    lines.push(
      `  ${toHex(e.key)} ${KEY_STATUS_NAME[e.status] ?? e.status}: ${e.may_sign.join(', ') || '(none)'}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export function classLabel(tag: number): string {
  return tag === 0 ? 'unmetered' : (CLASS_LABEL[tag] ?? `class ${tag}`);
}

export function hopRecordJson(r: HopRecord): Record<string, unknown> {
  return {
    kind: 'WMH1',
    digest: toHex(digestOf(r)),
    room: toHex(r.room),
    hop: toHex(r.hop),
    start: r.start.toString(),
    end: r.end.toString(),
    sessions: r.sessions,
    class: r.class,
    joules: r.joules.toString(),
    subscriber_us: r.subscriber_us.map(String),
    tracks: r.tracks.map((t) => ({
      track: t.track,
      kind: t.kind,
      direction: t.direction,
      bytes: t.bytes.toString(),
    })),
    sig: toHex(r.sig),
  };
}

const KIND: Readonly<Record<number, string>> = { 1: 'media', 2: 'other' };
const DIRECTION: Readonly<Record<number, string>> = { 1: 'in', 2: 'out' };

export function hopRecordText(r: HopRecord): string {
  const lines = [
    `record     ${toHex(digestOf(r))}`,
    `room       ${toHex(r.room)}`,
    `hop        ${toHex(r.hop)}`,
    `span       ${spanText(r.start, r.end)}, ${formatDurationExact(r.end - r.start)}`,
    `sessions   ${r.sessions}`,
    `class      ${classLabel(r.class)} (${r.class})`,
    `joules     ${joulesText(r.joules)} (${r.joules} µJ)`,
    `delivery   ${r.subscriber_us.map((us, i) => `${i}: ${us}`).join('  ')} (subscriber us per layer class)`,
    `tracks     ${r.tracks.length}`,
  ];
  for (const t of r.tracks) {
    lines.push(
      `  track ${t.track} ${KIND[t.kind] ?? t.kind} ${DIRECTION[t.direction] ?? t.direction}: ${t.bytes} bytes${t.bytes >= 1000n ? ` (${formatBytes(t.bytes)})` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export function decisionJson(d: Decision): Record<string, unknown> {
  return {
    kind: 'WSD1',
    digest: toHex(digestOf(d)),
    room: toHex(d.room),
    signer: toHex(d.signer),
    policy: toHex(d.policy),
    t: d.t.toString(),
    session: toHex(d.session),
    draw: d.draw,
    protocol: d.protocol,
    report: {
      present: d.report.present,
      pathway: d.report.pathway,
      throughput: d.report.throughput.toString(),
      buffer: d.report.buffer.toString(),
    },
    pathways: d.pathways.map((pw) => ({
      load: pw.load,
      limits: pw.limits,
      status: pw.status,
      class: pw.class,
      joules: pw.joules.toString(),
      delivery: pw.delivery.toString(),
      evidence: pw.evidence.map(toHex),
    })),
    ttl: d.ttl,
    reason: d.reason,
    priority: [...d.priority],
    sig: toHex(d.sig),
  };
}

export function limitsText(limits: number): string {
  const held = [
    (limits & 1) !== 0 ? 'latency' : '',
    (limits & 2) !== 0 ? 'quality' : '',
    (limits & 4) !== 0 ? 'capacity' : '',
  ].filter((x) => x !== '');
  return held.length === 3
    ? 'within the limits'
    : `fails ${['latency', 'quality', 'capacity'].filter((x) => !held.includes(x)).join(', ')}`;
}

/**
 * A figure for people: J/D in J/GB or J/h, then J and D in readable units, and the class
 * (`26.07 J/GB: 2.66 J over 102 MB (OnChipCounter)`). Without the basis (D's unit), J and D alone.
 */
export function figureText(
  joules: bigint,
  delivery: bigint,
  cls: number,
  basis: number | undefined,
): string {
  const label = classLabel(cls);
  if (delivery <= 0n || (basis !== 1 && basis !== 2)) {
    return `J ${joulesText(joules)}, D ${delivery} (${label})`;
  }
  const d = basis === 1 ? formatBytes(delivery) : `${formatDuration(delivery)} at the floor tier`;
  return `${readableFigure(basis, joules, delivery).text}: ${joulesText(joules)} over ${d} (${label})`;
}

/** A decision for people; `basis`, the basis of its policy when known, gives D its unit. */
export function decisionText(d: Decision, basis?: number): string {
  const present = d.report.present;
  const report = [
    (present & 1) !== 0 ? `pathway #${d.report.pathway + 1}` : 'no pathway',
    (present & 2) !== 0 ? `throughput ${d.report.throughput} bit/s` : 'no throughput',
    (present & 4) !== 0 ? `buffer ${ms(d.report.buffer)}` : 'no buffer',
  ].join(', ');
  const lines = [
    `decision   ${toHex(digestOf(d))}`,
    `room       ${toHex(d.room)}`,
    `policy     ${toHex(d.policy)}`,
    `signer     ${toHex(d.signer)}`,
    `t          ${formatInstantExact(d.t)}`,
    `session    ${toHex(d.session)} (draw ${d.draw})`,
    `protocol   ${d.protocol === 1 ? 'hls' : d.protocol === 2 ? 'dash' : d.protocol}`,
    `report     ${report}`,
    `priority   ${d.priority.map((i) => `#${i + 1}`).join(' ')}`,
    `reason     ${REASON_NAME[d.reason] ?? d.reason}`,
    `ttl        ${seconds(d.ttl)}`,
    `pathways   ${d.pathways.length}`,
  ];
  d.pathways.forEach((pw, i) => {
    const figure = pw.status === 0 ? figureText(pw.joules, pw.delivery, pw.class, basis) : '';
    const status = STATUS_NAME[pw.status] ?? String(pw.status);
    const parts = [status, figure, `load ${pw.load},`, `${limitsText(pw.limits)},`];
    parts.push(`${pw.evidence.length} record(s)`);
    lines.push(`  #${i + 1} ${parts.filter((x) => x !== '').join(' ')}`);
  });
  return `${lines.join('\n')}\n`;
}
