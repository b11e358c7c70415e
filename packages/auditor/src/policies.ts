/**
 * The policies of an archive: each, the span it was in force (the first and last `t` of the
 * decisions that name it), and what changed from the one in force before it, field by field, so
 * that a server re-signing its policy is seen doing so.
 */
import { type CryptoBackend, type Policy, readPolicy, toHex } from '@wai-steering/wire';

/** One field that differs between a policy and the one before it. */
export interface PolicyChange {
  readonly field: string;
  readonly from: string | number | null;
  readonly to: string | number | null;
}

/** A policy of the archive. */
export interface PolicyResult {
  readonly digest: string;
  /** The signer's key, or null for a policy that does not read. */
  readonly signer: string | null;
  /** C7 reason when the policy does not read; null otherwise. */
  readonly invalid: string | null;
  /** The first and last `t` (µs, decimal) of the decisions naming it; null when none does. */
  readonly first: string | null;
  readonly last: string | null;
  readonly decisions: number;
  /** What changed from the policy before it in the order of first use (empty for the first). */
  readonly changes: readonly PolicyChange[];
}

type Flat = Map<string, string | number>;

/** A policy's fields as `name → value`, pathways by id (`pathways.<id>.<field>`). */
export function flattenPolicy(p: Policy): Flat {
  const f: Flat = new Map();
  f.set('signer', toHex(p.signer));
  f.set('period_us', p.period_us.toString());
  f.set('window_us', p.window_us.toString());
  f.set('lag_us', p.lag_us.toString());
  f.set('basis', p.basis);
  f.set('floor', p.floor);
  f.set('latency_ceiling_ms', p.latency_ceiling_ms);
  f.set('min_buffer_ms', p.min_buffer_ms);
  f.set('hysteresis_ppm', p.hysteresis_ppm);
  f.set('ttl_s', p.ttl_s);
  f.set('min_ttl_s', p.min_ttl_s);
  f.set('flags', p.flags);
  f.set('initial', p.pathways[p.initial]?.id ?? p.initial);
  f.set('tiers', p.tiers.map((t) => t.toString()).join(','));
  f.set('server_uri', p.server_uri);
  f.set('reload_uri', p.reload_uri);
  f.set('decision_uri', p.decision_uri);
  f.set('pathways', p.pathways.map((pw) => pw.id).join(','));
  for (const pw of p.pathways) {
    const k = `pathways.${pw.id}`;
    f.set(`${k}.base`, pw.base === 255 ? '' : (p.pathways[pw.base]?.id ?? String(pw.base)));
    f.set(`${k}.host`, pw.host);
    f.set(`${k}.params`, pw.params.map((q) => `${q.name}=${q.value}`).join('&'));
    f.set(`${k}.top_tier`, pw.top_tier);
    f.set(`${k}.latency_ms`, pw.latency_ms);
    f.set(`${k}.capacity`, pw.capacity);
    f.set(`${k}.min_share_ppm`, pw.min_share_ppm);
    f.set(`${k}.hops`, pw.hops.map((h) => `${toHex(h.key)}:${h.place}`).join(','));
  }
  return f;
}

function diff(a: Flat, b: Flat): PolicyChange[] {
  const out: PolicyChange[] = [];
  const keys = [...a.keys(), ...[...b.keys()].filter((k) => !a.has(k))];
  for (const k of keys) {
    const from = a.get(k) ?? null;
    const to = b.get(k) ?? null;
    if (from !== to) out.push({ field: k, from, to });
  }
  return out;
}

interface Held {
  digest: string;
  policy: Policy | undefined;
  invalid: string | null;
  first: bigint | null;
  last: bigint | null;
  decisions: number;
  index: number;
}

export class PolicyLog {
  private readonly held = new Map<string, Held>();

  constructor(policies: Iterable<Uint8Array>, backend: CryptoBackend) {
    let index = 0;
    for (const bytes of policies) {
      const read = readPolicy(bytes);
      const body = read.ok ? read.value.body : bytes.subarray(0, Math.max(0, bytes.length - 64));
      const digest = toHex(backend.sha256(body));
      if (this.held.has(digest)) continue;
      this.held.set(digest, {
        digest,
        policy: read.ok ? read.value : undefined,
        invalid: read.ok ? null : read.refusal.reason,
        first: null,
        last: null,
        decisions: 0,
        index: index++,
      });
    }
  }

  /** The policy of `digest` (hex), when the archive holds one that reads. */
  get(digest: string): Policy | undefined {
    return this.held.get(digest)?.policy;
  }

  /** Every policy that reads. */
  all(): Policy[] {
    return [...this.held.values()].flatMap((h) => (h.policy === undefined ? [] : [h.policy]));
  }

  /** A decision at `t` named the policy `digest`. */
  use(digest: string, t: bigint): void {
    const h = this.held.get(digest);
    if (h === undefined) return;
    if (h.first === null) h.first = t;
    h.last = t;
    h.decisions++;
  }

  results(): PolicyResult[] {
    const order = [...this.held.values()].sort((x, y) => {
      if (x.first !== null && y.first !== null) {
        return x.first < y.first ? -1 : x.first > y.first ? 1 : x.index - y.index;
      }
      if (x.first !== null) return -1;
      if (y.first !== null) return 1;
      return x.index - y.index;
    });
    let prev: Flat | undefined;
    return order.map((h) => {
      const flat = h.policy === undefined ? undefined : flattenPolicy(h.policy);
      const changes = prev !== undefined && flat !== undefined ? diff(prev, flat) : [];
      if (flat !== undefined) prev = flat;
      return {
        digest: h.digest,
        signer: h.policy === undefined ? null : toHex(h.policy.signer),
        invalid: h.invalid,
        first: h.first === null ? null : h.first.toString(),
        last: h.last === null ? null : h.last.toString(),
        decisions: h.decisions,
        changes,
      };
    });
  }
}
