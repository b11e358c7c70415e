/**
 * The pathways an instance counts its loads under, as it publishes them with its heartbeat
 * (`loads.ts`, `ipc-loads.ts`): its room and the pathway IDs of its policy in force, in order.
 * A peer's counts (and slots) are added to this instance's by pathway ID, so that they add up
 * across a rotation whatever its IDs: a pathway the peer's policy lacks counts 0 here, one this
 * instance's policy lacks is left out (as the load replay drops its sessions: `docs/audit.md`).
 * An operator's rotation applies at one instant for every instance (`policy-in-force.ts`), and
 * until a peer's next beat after it, its counts under the policy before are read by ID.
 *
 * The text: `wai-loads/1`, the room id in hex, then each pathway ID, one per line (a pathway ID
 * has no line break: §3.3). A layout that does not read so (a release before this one
 * published the SHA-256 of its IDs) adds up only with the very same bytes, by index.
 */
import { toHex } from '@wai-steering/wire';

const MAGIC = 'wai-loads/1';
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The layout of a room's policy of these pathway IDs. */
export function layoutOf(room: Uint8Array, ids: readonly string[]): Uint8Array {
  return encoder.encode([MAGIC, toHex(room), ...ids].join('\n'));
}

/** A layout read: the room (hex) and the pathway IDs; `undefined` for another form. */
interface Layout {
  readonly room: string;
  readonly ids: readonly string[];
}

const read = new Map<string, Layout | undefined>();

function readLayout(bytes: Uint8Array): Layout | undefined {
  const text = decoder.decode(bytes);
  if (read.has(text)) return read.get(text);
  const lines = text.split('\n');
  const layout =
    lines[0] === MAGIC && lines.length >= 3 ? { room: lines[1]!, ids: lines.slice(2) } : undefined;
  // A handful of layouts in a deployment's life: kept, within reason.
  if (read.size > 1024) read.clear();
  read.set(text, layout);
  return layout;
}

/** The room of a layout (hex), for the lock of its deployment's beats; `undefined` for another form. */
export function roomOfLayout(bytes: Uint8Array): string | undefined {
  return readLayout(bytes)?.room;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A peer's `values` (counts or slots, by index of its layout `theirs`) under this instance's
 * layout `mine`: by pathway ID; `undefined` when the peer is of another room (or of a layout
 * of another form, unless it is the very same bytes).
 */
export function underLayout(
  mine: Uint8Array,
  theirs: Uint8Array,
  values: ArrayLike<number | string>,
): number[] | undefined {
  if (sameBytes(mine, theirs)) return Array.from(values, Number);
  const a = readLayout(mine);
  const b = readLayout(theirs);
  if (a === undefined || b === undefined || a.room !== b.room) return undefined;
  return a.ids.map((id) => {
    const i = b.ids.indexOf(id);
    return i < 0 ? 0 : Number(values[i] ?? 0);
  });
}
