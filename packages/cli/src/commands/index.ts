import type { Command } from '../internal/command.js';
import { keygen, pubkey } from './keys.js';
import { keylogAdd, keylogCreate, keylogInspect, keylogRevoke } from './keylog.js';
import { policyCompile, policyInspect } from './policy.js';
import { recordInspect, recordSign } from './record.js';
import { roomCreate, roomInspect } from './room.js';

/** Every command, in the order of the help. */
export const COMMANDS: readonly Command[] = [
  keygen,
  pubkey,
  roomCreate,
  roomInspect,
  keylogCreate,
  keylogAdd,
  keylogRevoke,
  keylogInspect,
  policyCompile,
  policyInspect,
  recordSign,
  recordInspect,
];
