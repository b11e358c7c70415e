/**
 * Compact decisions. Every decision of one window repeats the window's evidence: for each pathway
 * its status, class, J, D and the digests of the records named (§7.1), 3 pathways × 2 hops × 6
 * periods being already 36 digests. A decision is cut here into:
 *
 * - its **evidence set**: `room`, `signer`, `policy`, then for each pathway the bytes of §7.1 from
 *   `status` to the end of `evidence` (its "chunk"), shared by every decision of the window; and
 * - its **tail**: what differs per decision: `t`, `session`, `draw`, `protocol`, `report`, each
 *   pathway's `load` and `limits`, `ttl`, `reason`, `priority` and `sig`.
 *
 * Joining them gives back the exact bytes: the split is a cut of the byte string at §7.1's
 * offsets, never a re-encoding, so nothing is lost whatever the values.
 */

/** §7.1: offsets in a `WSD1` record. */
const HEADER = 5; // magic 4, version 1
const IDS_END = HEADER + 32 * 3; // room, signer, policy
const REPORT_END = IDS_END + 8 + 16 + 4 + 1 + 18; // t, session, draw, protocol, report
/** A pathway's chunk before its evidence digests: status, class, joules, delivery, count. */
const CHUNK_HEAD = 1 + 1 + 16 + 16 + 1;
const SIG = 64;
const MAGIC = [0x57, 0x53, 0x44, 0x31, 0x01]; // "WSD1", version 1

/** A decision cut in two: the window's evidence set and the decision's own tail. */
export interface CompactDecision {
  /** room ‖ signer ‖ policy ‖ m (u8) ‖ chunk of each pathway. */
  readonly set: Uint8Array;
  /** t ‖ session ‖ draw ‖ protocol ‖ report ‖ (load ‖ limits) × m ‖ ttl ‖ reason ‖ priority ‖ sig. */
  readonly tail: Uint8Array;
}

/**
 * Cuts a well-formed `WSD1` record (as signed by the server) into its evidence set and its tail.
 * Throws a `RangeError` for bytes that do not have §7.1's shape.
 */
export function splitDecision(bytes: Uint8Array): CompactDecision {
  const bad = (): never => {
    throw new RangeError('splitDecision: not a WSD1 record of §7.1');
  };
  if (bytes.length < REPORT_END + 1 + 4 + 1 + 1 + SIG) bad();
  for (let i = 0; i < HEADER; i++) if (bytes[i] !== MAGIC[i]) bad();
  const m = bytes[REPORT_END]!;
  // First pass: the size of the chunks.
  let pos = REPORT_END + 1;
  let chunks = 0;
  for (let p = 0; p < m; p++) {
    pos += 5; // load, limits
    if (pos + CHUNK_HEAD > bytes.length) bad();
    const k = bytes[pos + CHUNK_HEAD - 1]!;
    const size = CHUNK_HEAD + 32 * k;
    chunks += size;
    pos += size;
  }
  const after = pos; // ttl
  if (after + 4 + 1 + 1 > bytes.length) bad();
  const prio = bytes[after + 5]!;
  const end = after + 6 + prio;
  if (end + SIG !== bytes.length) bad();

  const set = new Uint8Array(32 * 3 + 1 + chunks);
  set.set(bytes.subarray(HEADER, IDS_END), 0);
  set[96] = m;
  const tail = new Uint8Array(REPORT_END - IDS_END + 5 * m + (end - after) + SIG);
  tail.set(bytes.subarray(IDS_END, REPORT_END), 0);
  let s = 97;
  let t = REPORT_END - IDS_END;
  pos = REPORT_END + 1;
  for (let p = 0; p < m; p++) {
    tail.set(bytes.subarray(pos, pos + 5), t);
    t += 5;
    pos += 5;
    const size = CHUNK_HEAD + 32 * bytes[pos + CHUNK_HEAD - 1]!;
    set.set(bytes.subarray(pos, pos + size), s);
    s += size;
    pos += size;
  }
  tail.set(bytes.subarray(after, end + SIG), t);
  return { set, tail };
}

/**
 * The hot path of {@link splitDecision}: writes the decision's tail into `scratch` (its length is
 * returned) and tells whether its evidence set is `current`, byte for byte, without building the
 * set; `set` is built only when it is not. With `knownSame` the caller vouches that it is (the
 * encoder gave both), and only the sizes are checked. Throws a `RangeError` as `splitDecision`
 * does.
 */
export function splitAgainst(
  bytes: Uint8Array,
  current: Uint8Array | undefined,
  scratch: Uint8Array,
  knownSame = false,
): { readonly tailLength: number; readonly set: Uint8Array | undefined } {
  const bad = (): never => {
    throw new RangeError('splitDecision: not a WSD1 record of §7.1');
  };
  const n = bytes.length;
  if (n < REPORT_END + 1 + 4 + 1 + 1 + SIG) bad();
  for (let i = 0; i < HEADER; i++) if (bytes[i] !== MAGIC[i]) bad();
  const m = bytes[REPORT_END]!;
  let same = current !== undefined && current[96] === m;
  // The caller knows the set is `current` (the server encoded both): only the tail is cut.
  const compare = same && !knownSame;
  if (compare) {
    for (let i = 0; i < 96; i++) {
      if (bytes[HEADER + i] !== current![i]) {
        same = false;
        break;
      }
    }
  }
  const fixed = REPORT_END - IDS_END;
  scratch.set(bytes.subarray(IDS_END, REPORT_END), 0);
  let t = fixed;
  let pos = REPORT_END + 1;
  let s = 97;
  for (let p = 0; p < m; p++) {
    if (pos + 5 + CHUNK_HEAD > n) bad();
    for (let i = 0; i < 5; i++) scratch[t + i] = bytes[pos + i]!;
    t += 5;
    pos += 5;
    const size = CHUNK_HEAD + 32 * bytes[pos + CHUNK_HEAD - 1]!;
    if (pos + size > n) bad();
    if (same) {
      if (s + size > current!.length) same = false;
      else if (compare) {
        for (let i = 0; i < size; i++) {
          if (bytes[pos + i] !== current![s + i]) {
            same = false;
            break;
          }
        }
      }
    }
    s += size;
    pos += size;
  }
  const after = pos;
  if (after + 6 > n) bad();
  const end = after + 6 + bytes[after + 5]!;
  if (end + SIG !== n) bad();
  if (same && s !== current!.length) same = false;
  scratch.set(bytes.subarray(after, n), t);
  const tailLength = t + (n - after);
  return { tailLength, set: same ? undefined : splitDecision(bytes).set };
}

/** Joins an evidence set and a tail back into the decision's exact bytes. */
export function joinDecision(set: Uint8Array, tail: Uint8Array): Uint8Array {
  const bad = (): never => {
    throw new RangeError('joinDecision: an evidence set and a tail that do not fit');
  };
  if (set.length < 97) bad();
  const m = set[96]!;
  const fixed = REPORT_END - IDS_END; // 47
  const rest = tail.length - fixed - 5 * m; // ttl, reason, priority, sig
  if (rest < 4 + 1 + 1 + SIG) bad();
  const size = HEADER + 96 + fixed + 1 + 5 * m + (set.length - 97) + rest;
  const out = new Uint8Array(size);
  out.set(MAGIC, 0);
  out.set(set.subarray(0, 96), HEADER);
  out.set(tail.subarray(0, fixed), IDS_END);
  out[REPORT_END] = m;
  let o = REPORT_END + 1;
  let s = 97;
  let t = fixed;
  for (let p = 0; p < m; p++) {
    out.set(tail.subarray(t, t + 5), o);
    o += 5;
    t += 5;
    if (s + CHUNK_HEAD > set.length) bad();
    const chunk = CHUNK_HEAD + 32 * set[s + CHUNK_HEAD - 1]!;
    if (s + chunk > set.length) bad();
    out.set(set.subarray(s, s + chunk), o);
    o += chunk;
    s += chunk;
  }
  if (s !== set.length) bad();
  out.set(tail.subarray(t), o);
  return out;
}

/** The digests an evidence set names, in order. */
export function setDigests(set: Uint8Array): Uint8Array[] {
  const m = set[96] ?? 0;
  const out: Uint8Array[] = [];
  let s = 97;
  for (let p = 0; p < m; p++) {
    const k = set[s + CHUNK_HEAD - 1] ?? 0;
    for (let j = 0; j < k; j++) {
      const at = s + CHUNK_HEAD + 32 * j;
      out.push(set.subarray(at, at + 32));
    }
    s += CHUNK_HEAD + 32 * k;
  }
  return out;
}
