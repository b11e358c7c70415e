/** The refused vectors of §9.1 step 7: the manifest. */
import { toHex } from '@wai-steering/wire';
import { HOLD, ONE_CLASS } from '../accepted.js';
import { base, manifest, type RefusedCase } from './common.js';

const HOLD_FOR_MANIFEST = HOLD;

export const MANIFEST: readonly RefusedCase[] = [
  {
    name: 'refuse/manifest/trailing-newline',
    note: 'The manifest served with a line terminator (C9).',
    reason: 'manifest_mismatch',
    where: manifest,
    make: (ctx) => base(ctx, { manifest: `${ctx.built(ONE_CLASS).manifest}\n` }),
  },
  {
    name: 'refuse/manifest/uppercase-hex',
    note: "The decision's digest in uppercase hexadecimal (C9).",
    reason: 'manifest_mismatch',
    where: manifest,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const hex = toHex(b.decisionDigest);
      return base(ctx, { manifest: b.manifest.replace(hex, hex.toUpperCase()) });
    },
  },
  {
    name: 'refuse/manifest/white-space',
    note: 'The same JSON with a space after each comma.',
    reason: 'manifest_mismatch',
    where: manifest,
    make: (ctx) => base(ctx, { manifest: ctx.built(ONE_CLASS).manifest.replaceAll(',"', ', "') }),
  },
  {
    name: 'refuse/manifest/other-decision',
    note: "The manifest of another decision (the hysteresis scenario's) served with this one.",
    reason: 'manifest_mismatch',
    where: manifest,
    make: (ctx) => base(ctx, { manifest: ctx.built(HOLD_FOR_MANIFEST).manifest }),
  },
];
