import type { Magic } from './refusal.js';

/** C2: the signing domain tag of each record. */
export const DOMAIN_TAGS: Readonly<Record<Magic, string>> = {
  WSP1: 'wai:steering-policy',
  WSD1: 'wai:steering-decision',
  WRD1: 'wai:room-descriptor',
  WKL1: 'wai:key-log',
  WMH1: 'wai:metering-hop',
};

/** C2: the message a record's signature covers: the tag, 0x01, then the bytes before `sig`. */
export function signingMessage(magic: Magic, body: Uint8Array): Uint8Array {
  return writeSigningMessage(magic, body, new Uint8Array(signingLength(magic, body)));
}

/** The length of {@link signingMessage}'s message. */
export function signingLength(magic: Magic, body: Uint8Array): number {
  return DOMAIN_TAGS[magic].length + 1 + body.length;
}

/** {@link signingMessage}'s message written at the start of `out`; the view of it. */
export function writeSigningMessage(magic: Magic, body: Uint8Array, out: Uint8Array): Uint8Array {
  const tag = DOMAIN_TAGS[magic];
  for (let i = 0; i < tag.length; i++) out[i] = tag.charCodeAt(i);
  out[tag.length] = 0x01;
  out.set(body, tag.length + 1);
  return out.subarray(0, tag.length + 1 + body.length);
}
